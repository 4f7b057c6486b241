// A fingerprint of every app.* table (row count and an md5 of its rows in a stable order), taken
// with the superuser connection, to prove that a batch of refused requests changed no data.
import type postgres from 'postgres';
import { quoteIdent } from '../../../ops/pg/admin.ts';

export type Snapshot = Record<string, { rows: number; hash: string }>;

export async function snapshot(sql: postgres.Sql): Promise<Snapshot> {
  const tables = await sql<{ name: string }[]>`
    select table_name as name from information_schema.tables
    where table_schema = 'app' and table_type = 'BASE TABLE' order by table_name`;
  const out: Snapshot = {};
  for (const { name } of tables) {
    const [row] = await sql.unsafe<{ rows: number; hash: string }[]>(
      `select count(*)::int as rows, md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as hash from app.${quoteIdent(name)} t`,
    );
    out[name] = { rows: row!.rows, hash: row!.hash };
  }
  return out;
}
