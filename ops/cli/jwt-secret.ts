// The JWT signing secret shared by `npm start` (verifies) and `npm run token` (signs): JWT_SECRET
// when set, else a random one generated once and kept in .data/jwt-secret (0600).
import { join } from 'node:path';
import { projectRoot } from '../pg/resolve.ts';
import { persistentSecret } from '../../server/pg/secret.ts';

/** HS256 keys shorter than the hash (32 bytes) are weak; refuse them rather than run with one. */
export const MIN_SECRET_BYTES = 32;

export function jwtSecret(env: NodeJS.ProcessEnv = process.env, root = projectRoot): string {
  const secret = env.JWT_SECRET || persistentSecret(join(root, '.data', 'jwt-secret'), 32);
  if (Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    throw new Error(`JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes long (HS256).`);
  }
  return secret;
}
