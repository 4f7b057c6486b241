// `npm run serve` (or `node dist/server/cli/serve.js` after `npm run build`): serves a database that
// `migrate` already brought up to a model, with the gateway's own credentials only: no compiling, no
// DDL, no role changes, no files written; every secret comes from the environment.
import { ENGINE_VERSION } from '../../compiler/manifest/types.ts';
import { loadManifest } from '../query/manifest.ts';
import { limitsFromEnv } from '../request/limits.ts';
import { poolsFromEnv, portFromEnv, runGateway } from './gateway.ts';

/** What `serve` needs from its environment, or why it cannot start. */
export function serveSettings(env: NodeJS.ProcessEnv): { url: string; jwtSecret?: string } {
  const url = env.GATEWAY_DATABASE_URL ?? env.DATABASE_URL;
  if (!url) throw new Error('serve needs GATEWAY_DATABASE_URL (or DATABASE_URL): the gateway\'s own login (authenticator).');
  if (!env.JWKS_URL && !env.JWT_SECRET && !env.JWT_PRIVATE_KEY) throw new Error('serve needs JWT_SECRET (HS256), JWT_PRIVATE_KEY (ES256/RS256) or JWKS_URL: it generates no secret.');
  if ((env.STORAGE_DRIVER ?? 'local').toLowerCase() === 'local' && !env.FILES_SECRET) {
    throw new Error('serve with the local file driver needs FILES_SECRET (the key of its signed addresses); or use STORAGE_DRIVER=s3.');
  }
  return { url, ...(env.JWKS_URL ? {} : { jwtSecret: env.JWT_SECRET }) };
}

async function main(): Promise<void> {
  const settings = serveSettings(process.env);
  const limits = limitsFromEnv();
  const pools = poolsFromEnv(settings.url, limits, process.env);
  try {
    const manifest = await loadManifest(pools.primary.sql);
    if (manifest.engine !== ENGINE_VERSION) {
      throw new Error(`The database speaks engine version ${manifest.engine ?? 1}, this gateway version ${ENGINE_VERSION}: run migrate with this version of modelapi first.`);
    }
    await runGateway({ pools, port: portFromEnv(process.env), limits, env: process.env, ...(settings.jwtSecret ? { jwtSecret: settings.jwtSecret } : {}) });
  } catch (err) {
    await pools.end(2).catch(() => {});
    throw err;
  }
}

main().catch((err: unknown) => {
  console.error(`Serve failed: ${(err as Error)?.message ?? String(err)}`);
  process.exit(1);
});
