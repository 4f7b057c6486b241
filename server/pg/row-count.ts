// postgres.js keeps counting rows past a statement that failed after PostgreSQL sent one (a cancel landing between
// the row and the statement's end): how a statement's one row is still found, and how the count is set back.
import type { Sql } from 'postgres';

/**
 * The statement's one row. After such a failure the next statement on that connection resolves with holes before its
 * rows (porsager/postgres#1119, #1181, open in 3.4.9): its one row is then the last element.
 */
export const onlyRow = <T>(rows: ArrayLike<T>): T | undefined => rows[rows.length - 1];

/**
 * After a cancel, a statement that ends normally on the same connection sets postgres.js's row counter back to 0
 * (it does so at every statement's end), before the connection serves other statements.
 */
export async function resetRowCount(sql: Sql): Promise<void> {
  await sql`select 1`.catch(() => {});
}
