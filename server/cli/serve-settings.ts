// What `serve` needs from its environment, checked before it connects: the gateway's login, a token key
// it does not invent, and the local file driver's secret. Its own module, so it can be tested without starting serve.
import { MIN_SECRET_BYTES } from './jwt-secret.ts';

/** What `serve` needs from its environment, or why it cannot start. */
export function serveSettings(env: NodeJS.ProcessEnv): { url: string; jwtSecret?: string } {
  // An empty variable counts as unset, as storageFromEnv and the rest of the gateway read them.
  const url = env.GATEWAY_DATABASE_URL || env.DATABASE_URL;
  if (!url) throw new Error('serve needs GATEWAY_DATABASE_URL (or DATABASE_URL): the gateway\'s own login (authenticator).');
  if (!env.JWKS_URL && !env.JWT_SECRET && !env.JWT_PRIVATE_KEY) throw new Error('serve needs JWT_SECRET (HS256), JWT_PRIVATE_KEY (ES256/RS256) or JWKS_URL: it generates no secret.');
  if (env.JWT_SECRET && !env.JWKS_URL && Buffer.byteLength(env.JWT_SECRET) < MIN_SECRET_BYTES) {
    throw new Error(`JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes long (HS256).`);
  }
  if ((env.STORAGE_DRIVER || 'local').toLowerCase() === 'local' && !env.FILES_SECRET) {
    throw new Error('serve with the local file driver needs FILES_SECRET (the key of its signed addresses); or use STORAGE_DRIVER=s3.');
  }
  return { url, ...(env.JWKS_URL ? {} : { jwtSecret: env.JWT_SECRET }) };
}
