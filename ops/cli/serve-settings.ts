// What `serve` needs from its environment, checked before it connects: the gateway's login, a token key
// it does not invent, and the local file driver's secret. Its own module, so it can be tested without starting serve.
import { MIN_SECRET_BYTES } from './jwt-secret.ts';

/** What `serve` needs from its environment, or every reason it cannot start, each on a line of the Error's message. */
export function serveSettings(env: NodeJS.ProcessEnv): { url: string; jwtSecret?: string } {
  // An empty variable counts as unset, as storageFromEnv and the rest of the gateway read them.
  const url = env.GATEWAY_DATABASE_URL || env.DATABASE_URL;
  const missing: string[] = [];
  if (!url) missing.push('GATEWAY_DATABASE_URL: the gateway\'s own login (the authenticator role migrate created), e.g. postgres://authenticator:…@host/db.');
  if (!env.JWKS_URL && !env.JWT_SECRET && !env.JWT_PRIVATE_KEY) missing.push('JWT_SECRET (HS256), JWT_PRIVATE_KEY (ES256/RS256) or JWKS_URL: serve generates no secret.');
  if (env.JWT_SECRET && !env.JWKS_URL && Buffer.byteLength(env.JWT_SECRET) < MIN_SECRET_BYTES) {
    missing.push(`JWT_SECRET must be at least ${MIN_SECRET_BYTES} bytes long (HS256).`);
  }
  if ((env.STORAGE_DRIVER || 'local').toLowerCase() === 'local' && !env.FILES_SECRET) {
    missing.push('FILES_SECRET: the local file driver\'s key of its signed addresses (or use STORAGE_DRIVER=s3).');
  }
  if (missing.length === 1) throw new Error(`serve needs ${missing[0]}`);
  if (missing.length) throw new Error(`serve needs:\n${missing.map((m) => `  - ${m}`).join('\n')}`);
  return { url: url!, ...(env.JWKS_URL ? {} : { jwtSecret: env.JWT_SECRET }) };
}
