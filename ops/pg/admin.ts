// Small cluster-level chores shared by the start-up path and the test harness:
// pointing a connection URL at another database, creating and dropping databases.
import postgres from 'postgres';

/** `url` with its database name replaced by `database`. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = '/' + encodeURIComponent(database);
  return u.toString();
}

/** Runs `fn` with a one-connection client on `url`, silencing notices, and closes it. */
export async function withAdminClient<T>(url: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Creates database `name` on the cluster behind `adminUrl` unless it exists; tolerates a race. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdminClient(adminUrl, async (sql) => {
    const found = await sql`select 1 from pg_database where datname = ${name}`;
    if (found.length > 0) return;
    try {
      await sql.unsafe(`create database ${quoteIdent(name)}`);
    } catch (err) {
      if ((err as { code?: string }).code !== '42P04') throw err; // duplicate_database: created meanwhile
    }
  });
}

/** Drops database `name`, terminating its sessions (PostgreSQL 13+ `with (force)`). */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdminClient(adminUrl, (sql) => sql.unsafe(`drop database if exists ${quoteIdent(name)} with (force)`));
}

/** Quotes an identifier: wrap in double quotes, double any inside, refuse NUL. */
export function quoteIdent(name: string): string {
  if (name.includes('\0')) throw new Error('identifier contains NUL');
  return '"' + name.replace(/"/g, '""') + '"';
}
