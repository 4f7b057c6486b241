// `npm run serve` (or `node dist/server/cli/serve.js` after `npm run build`): serves a database that
// `migrate` already brought up to a model, with the gateway's own credentials only: no compiling, no
// DDL, no role changes, no files written; every secret comes from the environment.
import { ENGINE_VERSION } from '../../compiler/manifest/types.ts';
import { loadManifest } from '../query/manifest.ts';
import { limitsFromEnv } from '../request/limits.ts';
import { poolsFromEnv, portFromEnv, runGateway } from './gateway.ts';
import { serveSettings } from './serve-settings.ts';

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
