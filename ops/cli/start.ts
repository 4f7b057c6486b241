// `npm start [-- --migrations <dir>]`: compiles the model (MODEL, default the publishing example) into
// <dir>/current.sql (db/migrations), brings the database (DATABASE_URL or embedded) up to it, serves the
// API the database's manifest describes (and /health) on PORT.
import { resolve } from 'node:path';
import { commandLine } from '../../compiler/command-line.ts';
import { resolveDatabase } from '../pg/resolve.ts';
import { gatewayUrl } from '../pg/gateway-role.ts';
import { describeFailure, migrateDatabase } from '../migrate.ts';
import { limitsFromEnv } from '../../server/request/limits.ts';
import type { Pools } from '../../server/pg/pools.ts';
import { jwtSecret } from './jwt-secret.ts';
import { poolsFromEnv, portFromEnv, runGateway } from './gateway.ts';
import { compileOrExit, EXAMPLE_MODEL, writeScript } from './model-script.ts';

const START_USAGE = `Usage: npm start [-- --migrations <dir>]

Compiles the model (MODEL, default examples/publishing.model.json) into <dir>/current.sql, brings the database
(DATABASE_URL, else an embedded PostgreSQL under .data/) up to it, and serves the API on PORT (default 3000).
Every setting is an environment variable: see docs/deployment.md, "Environment variables".`;

async function main(): Promise<void> {
  const values = commandLine(START_USAGE, { migrations: { type: 'string' } });
  const modelPath = resolve(process.env.MODEL ?? EXAMPLE_MODEL);
  const port = portFromEnv(process.env);
  const limits = limitsFromEnv();
  const jwtSecretValue = process.env.JWKS_URL ? undefined : jwtSecret();
  const compiled = compileOrExit(modelPath);
  const { model } = compiled;

  const migrations = writeScript(modelPath, compiled, values.migrations);

  const db = await resolveDatabase();
  try {
    await migrateDatabase({ connectionString: db.url, migrationsFolder: migrations });
  } catch (err) {
    console.error(describeFailure(err));
    await db.stop();
    process.exit(1);
  }

  let pools: Pools | undefined;
  try {
    pools = poolsFromEnv(await gatewayUrl(db.url, process.env, { embedded: db.embedded }), limits, process.env);
    await runGateway({
      pools, port, limits, env: process.env, onStop: () => db.stop(), ...(jwtSecretValue ? { jwtSecret: jwtSecretValue } : {}),
      banner: (base, manifest) => [
        `Serving ${model.api.title} at ${base}`,
        `API: ${base}${manifest.api.basePath} (collections: ${Object.values(manifest.resources).map((r) => r.collection).join(', ')})`,
        // Under organization strategies every row belongs to the token's org, and roles are the org's.
        `Token: npm run -s token -- --sub u1 ${model.api.strategy === 'RBAC' ? '--roles editor' : '--org o1 --org-roles owner'}  (then: curl -H "Authorization: Bearer <token>" …)`,
        ...(manifest.identity ? [`Sign in: POST ${base}${manifest.api.basePath}/auth/token {"email", "password"} (sign up: POST …/${manifest.identity.collection})`] : []),
      ],
    });
  } catch (err) {
    console.error(`Start failed: ${(err as Error).message}`);
    await pools?.end(2).catch(() => {});
    await db.stop();
    process.exit(1);
  }
}

main().catch((err: unknown) => {
  console.error(`Start failed: ${(err as Error)?.message ?? String(err)}`);
  process.exit(1);
});
