// A database of its own for one bench run: created on the bench cluster, with the publishing example
// compiled and migrated into it. Shared by `npm run bench` and `npm run bench:fairness`.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { compileFile } from '../compiler/index.ts';
import { roleNamesFromEnv } from '../compiler/sql/roles.ts';
import { migrateDatabase } from '../ops/migrate.ts';

/** Creates `bench_<time>` on the admin connection's server, installs the publishing example, returns its URL. */
export async function installBenchDatabase(adminUrl: string): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const name = `bench_${Date.now()}`;
  await admin.unsafe(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const folder = mkdtempSync(join(tmpdir(), 'modelapi-bench-'));
  mkdirSync(join(folder, 'committed'));
  writeFileSync(join(folder, 'current.sql'), compileFile('examples/publishing.model.json', { roles: roleNamesFromEnv(process.env) }).sql);
  await migrateDatabase({ connectionString: url.toString(), migrationsFolder: folder });
  rmSync(folder, { recursive: true, force: true });
  return url.toString();
}
