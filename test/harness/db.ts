// Per-test-file databases on the run's cluster (TEST_ADMIN_URL), installing SQL or a model into one
// through the real migration path, and running statements as the API's `anon`/`authenticated` roles.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { Compiled } from '../../compiler/index.ts';
import { migrateDatabase, type MigrateResult } from '../../ops/migrate.ts';
import { dropDatabase, quoteIdent, withAdminClient, withDatabase } from '../../ops/pg/admin.ts';

export interface TestDatabase {
  name: string;
  url: string;
  /** postgres.js client on the database, as the cluster's superuser; notices silenced. */
  sql: postgres.Sql;
  /** Ends the client and drops the database, ending any session still on it. */
  close(): Promise<void>;
}

export function adminUrl(): string {
  const url = process.env.TEST_ADMIN_URL;
  if (!url) throw new Error('TEST_ADMIN_URL is not set: run the tests with `npm test`');
  return url;
}

let created = 0;

export async function freshDatabase(): Promise<TestDatabase> {
  const admin = adminUrl();
  const name = `test_${process.pid}_${++created}_${randomBytes(3).toString('hex')}`;
  await withAdminClient(admin, (sql) => sql.unsafe(`create database ${quoteIdent(name)}`));
  const url = withDatabase(admin, name);
  const sql = postgres(url, { onnotice: () => {}, max: 4 });
  return {
    name,
    url,
    sql,
    async close() {
      await sql.end({ timeout: 5 });
      await waitForSessionsToEnd(admin, name);
      await dropDatabase(admin, name);
    },
  };
}

/**
 * Lets clients that are already closing (graphile-migrate's pool) leave before DROP … WITH (FORCE):
 * a session killed under a pg pool makes graphile-migrate's pool error handler exit the process.
 */
async function waitForSessionsToEnd(admin: string, name: string): Promise<void> {
  await withAdminClient(admin, async (sql) => {
    for (let i = 0; i < 40; i++) {
      const [row] = await sql`select count(*)::int as n from pg_stat_activity where datname = ${name}`;
      if (!row || row.n === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  });
}

/**
 * Drops roles a test created (roles are cluster-wide: other files run on the same cluster), after the databases
 * holding their privileges are gone; a role the cluster does not have is skipped.
 */
export async function dropRoles(names: string[]): Promise<void> {
  await withAdminClient(adminUrl(), async (sql) => {
    for (const name of names) await sql.unsafe(`drop role if exists ${quoteIdent(name)}`);
  });
}

/** Applies `script` as current.sql (graphile-migrate, from a fresh temp folder) to `db`. */
export async function installSql(db: TestDatabase, script: string): Promise<MigrateResult> {
  const folder = mkdtempSync(join(tmpdir(), 'modelapi-migrations-'));
  try {
    mkdirSync(join(folder, 'committed'));
    writeFileSync(join(folder, 'current.sql'), script);
    return await migrateDatabase({ connectionString: db.url, migrationsFolder: folder });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * Compiles a model (object, or path to a model file) and installs its SQL into `db`. Calling it again
 * with a changed model re-runs the new script over the existing schema, as a deployment would.
 */
export async function installModel(db: TestDatabase, model: unknown): Promise<Compiled> {
  // Imported here so that suites not using the compiler still run while it is broken.
  const { compileFile, compileModel } = await import('../../compiler/index.ts');
  const compiled = typeof model === 'string' ? compileFile(model) : compileModel(model);
  await installSql(db, compiled.sql);
  return compiled;
}

export type Claims = Record<string, unknown>;
type RoleWork<T> = (tx: postgres.TransactionSql) => Promise<T>;

/**
 * Runs `fn` in a transaction as `role`, with `claims` as the request's JWT claims (what the gateway
 * sets per request): `set local role` plus `request.jwt.claims`, both gone at commit.
 */
export async function asRole<T>(sql: postgres.Sql, role: 'anon' | 'authenticated', fn: RoleWork<T>): Promise<T>;
export async function asRole<T>(sql: postgres.Sql, role: 'anon' | 'authenticated', claims: Claims, fn: RoleWork<T>): Promise<T>;
export async function asRole<T>(
  sql: postgres.Sql,
  role: 'anon' | 'authenticated',
  claimsOrFn: Claims | RoleWork<T>,
  maybeFn?: RoleWork<T>,
): Promise<T> {
  const fn = typeof claimsOrFn === 'function' ? claimsOrFn : maybeFn;
  const claims = typeof claimsOrFn === 'function' ? {} : claimsOrFn;
  if (!fn) throw new Error('asRole needs a function to run');
  const result = await sql.begin(async (tx) => {
    await tx.unsafe(`set local role ${quoteIdent(role)}`);
    // Row-level policies judge rows for the action being served; plain statements pose as a read.
    await tx`select set_config('request.jwt.claims', ${JSON.stringify(claims)}, true), set_config('request.action', 'read', true)`;
    return fn(tx);
  });
  return result as T;
}

/** Runs `statement` as `role` with `claims`; the PostgreSQL error it raised, or undefined on success. */
export async function sqlFailure(sql: postgres.Sql, role: 'anon' | 'authenticated', claims: Claims, statement: string): Promise<postgres.PostgresError | undefined> {
  try {
    await asRole(sql, role, claims, (tx) => tx.unsafe(statement));
    return undefined;
  } catch (err) {
    if (err instanceof postgres.PostgresError) return err;
    throw err;
  }
}
