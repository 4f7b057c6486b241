// `npm run serve` (or `node dist/ops/cli/serve.js` after `npm run build`): serves a database that
// `migrate` already brought up to a model, with the gateway's own credentials only: no compiling, no
// DDL, no role changes, no files written; every secret comes from the environment.
import { ENGINE_VERSION } from '../../compiler/manifest/types.ts';
import { loadManifest } from '../../server/query/manifest.ts';
import { limitsFromEnv } from '../../server/request/limits.ts';
import { poolsFromEnv, portFromEnv, runGateway } from './gateway.ts';
import { serveSettings } from './serve-settings.ts';
import { commandLine } from '../../compiler/command-line.ts';
import { assertSupportedServer } from '../pg/version.ts';

const USAGE = `Usage: npm run serve   (node dist/ops/cli/serve.js)

Serves a database that migrate brought up to a model, with the gateway's own login only: no compiling, no DDL, no
role changes, nothing written. Needs GATEWAY_DATABASE_URL (or DATABASE_URL), JWT_SECRET (or JWT_PRIVATE_KEY or
JWKS_URL) and, with the local file driver, FILES_SECRET; every other setting is in docs/deployment.md, "Environment variables".`;

async function main(): Promise<void> {
  commandLine(USAGE, {});
  const settings = serveSettings(process.env);
  const limits = limitsFromEnv();
  const pools = poolsFromEnv(settings.url, limits, process.env);
  try {
    await assertSupportedServer(pools.primary.sql);
    const manifest = await loadManifest(pools.primary.sql);
    if (manifest.engine !== ENGINE_VERSION) {
      throw new Error(`The database speaks engine version ${manifest.engine ?? 1}, this gateway version ${ENGINE_VERSION}: run migrate with this version of modelapi first.`);
    }
    // The gateway's login can only switch to the request roles (design 7): a superuser's would hand every
    // request's process the whole database, should anything in it ever be turned against it.
    const [login] = await pools.primary.sql<Array<{ name: string; rolsuper: boolean }>>`select current_user as name, rolsuper from pg_roles where rolname = current_user`;
    if (login?.rolsuper) {
      throw new Error(`GATEWAY_DATABASE_URL logs in as ${login.name}, a superuser: serve takes the gateway's own login (authenticator), which can do nothing but switch to the request roles.`);
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
