// `npm start [-- --migrations <dir>]`: compiles the model (MODEL, default the publishing example) into
// <dir>/current.sql (db/migrations), brings the database (DATABASE_URL or embedded) up to it, serves the
// API the database's manifest describes (and /health) on PORT.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compileFile, ModelValidationError, type Compiled } from '../../compiler/index.ts';
import { projectRoot, resolveDatabase } from '../pg/resolve.ts';
import { gatewayUrl } from '../pg/gateway-role.ts';
import { describeFailure, migrateDatabase } from '../migrate.ts';
import { limitsFromEnv } from '../request/limits.ts';
import type { Pools } from '../pg/pools.ts';
import { jwtSecret } from './jwt-secret.ts';
import { poolsFromEnv, portFromEnv, runGateway } from './gateway.ts';

function compile(modelPath: string): Compiled {
  try {
    return compileFile(modelPath);
  } catch (err) {
    // ModelValidationError's message lists every error with its JSON pointer and rule.
    const what = err instanceof ModelValidationError ? 'is not a valid model' : 'could not be compiled';
    console.error(`${modelPath} ${what}.\n${(err as Error).message}`);
    process.exit(1);
  }
}

/**
 * The project's example model migrates from the repository's db/migrations (its current.sql is that
 * model compiled, so writing it changes nothing); any other model keeps its script under
 * .data/migrations/<slug>, so starting it never touches a tracked file.
 */
function defaultMigrations(modelPath: string, slug: string): string {
  const example = resolve(join(projectRoot, 'examples/publishing.model.json'));
  return modelPath === example ? join(projectRoot, 'db/migrations') : join(projectRoot, '.data/migrations', slug);
}

async function main(): Promise<void> {
  const modelPath = resolve(process.env.MODEL ?? join(projectRoot, 'examples/publishing.model.json'));
  const port = portFromEnv(process.env);
  const limits = limitsFromEnv();
  const jwtSecretValue = process.env.JWKS_URL ? undefined : jwtSecret();
  const { model, sql: script } = compile(modelPath);

  const { values } = parseArgs({ options: { migrations: { type: 'string' } } });
  const migrations = resolve(values.migrations ?? defaultMigrations(modelPath, model.api.slug));
  mkdirSync(join(migrations, 'committed'), { recursive: true });
  writeFileSync(join(migrations, 'current.sql'), script);

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
    pools = poolsFromEnv(await gatewayUrl(db.url), limits, process.env);
    await runGateway({
      pools, port, limits, env: process.env, onStop: () => db.stop(), ...(jwtSecretValue ? { jwtSecret: jwtSecretValue } : {}),
      banner: (base, manifest) => [
        `Serving ${model.api.title} at ${base}`,
        `API: ${base}${manifest.api.basePath} (collections: ${Object.values(manifest.resources).map((r) => r.collection).join(', ')})`,
        `Token: npm run -s token -- --sub u1 --roles editor  (then: curl -H "Authorization: Bearer <token>" …)`,
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
