// postgres.js keeps counting rows past a statement that failed after PostgreSQL sent one (porsager/postgres#1119,
// #1181): the next statement on that connection resolves with holes before its rows. The gateway reads a statement's
// one row as the last element, and sets the counter back after a cancel, so no answer is lost to the holes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { onlyRow, resetRowCount } from '../../server/pg/row-count.ts';

let db: TestDatabase;
let sql: postgres.Sql;
test.before(async () => {
  db = await freshDatabase();
  sql = postgres(db.url, { max: 1, onnotice: () => {} }); // one connection: each statement follows the last
});
test.after(async () => {
  await sql?.end();
  await db?.close();
});

/** Sends two rows, then fails on the third (division by zero), as a cancel landing after a row fails a statement. */
const failAfterRows = () => sql`select i, 1 / (3 - i) as boom from generate_series(1, 3) i`.catch((err: Error) => err);

test('after a statement failed past its first rows, the next one\'s row is still found', async () => {
  assert.instance(await failAfterRows(), Error);
  const rows = await sql`select 'next' as result`;
  assert.is(onlyRow(rows)?.result, 'next', `rows as postgres.js gave them: ${JSON.stringify(rows)}`);
  const raw = await (async () => { assert.instance(await failAfterRows(), Error); return sql`select 'raw' as result`.raw(); })();
  assert.is(onlyRow(raw)?.[0]?.toString(), 'raw');
});

test('resetRowCount sets the counter back, so statements after it come whole', async () => {
  assert.instance(await failAfterRows(), Error);
  await resetRowCount(sql);
  const rows = await sql`select x from generate_series(1, 3) x`;
  assert.equal(rows.map((r) => r.x), [1, 2, 3]);
  assert.is(rows.length, 3);
});

test.run();
