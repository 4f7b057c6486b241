// The test harness itself: installModel through the real migration path (v1, rows, then v2 keeps
// the rows), and asRole setting the request role and claims for one transaction only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tinyModel } from '../harness/fixtures.ts';
import { asRole, freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { uvuTarget } from '../harness/target.ts';

const v1 = tinyModel;
const v2 = structuredClone(v1) as typeof v1 & { entities: { Note: { properties: Record<string, unknown> } } };
v2.entities.Note.properties.body = { type: 'String' };

let db: TestDatabase;

test.before(async () => {
  db = await freshDatabase();
});

test.after(async () => {
  await db?.close();
});

test('installModel installs v1, then v2 over it keeping the rows', async () => {
  const compiled = await installModel(db, v1);
  assert.is(compiled.model.api.title, 'Tiny API');
  const [note] = await db.sql`insert into app.notes (title) values ('kept') returning id`;
  await installModel(db, v2);
  const rows = await db.sql`select id, title, body from app.notes`;
  assert.equal([...rows], [{ id: note?.id, title: 'kept', body: null }]);
});

test('asRole runs as the role with the claims, for that transaction only', async () => {
  const claims = { sub: 'u1', roles: ['editor'] };
  const seen = await asRole(db.sql, 'authenticated', claims, async (tx) => {
    const [row] = await tx`select current_user as role, current_setting('request.jwt.claims') as claims`;
    return row;
  });
  assert.is(seen?.role, 'authenticated');
  assert.equal(JSON.parse(seen?.claims), claims);
  const [after] = await db.sql`select current_user as role, current_setting('request.jwt.claims', true) as claims`;
  assert.is.not(after?.role, 'authenticated');
  assert.ok(!after?.claims, 'claims do not outlive the transaction');
});

test('asRole without claims sets {} and rolls back on error', async () => {
  const claims = await asRole(db.sql, 'anon', async (tx) => (await tx`select current_setting('request.jwt.claims') as c`)[0]?.c);
  assert.is(claims, '{}');
  const failed = await asRole(db.sql, 'anon', (tx) => tx`select 1/0`).then(() => null, (e: { code?: string }) => e.code);
  assert.is(failed, '22012'); // division_by_zero reaches the caller
});

test('npm test -- <target>: a folder runs its *.test.ts files, a file runs alone, a missing file is an error', () => {
  assert.equal(uvuTarget('test/db/'), ['test/db', '\\.test\\.ts$']);
  assert.equal(uvuTarget('test/server/query.test.ts'), ['test/server', '^query\\.test\\.ts$']);
  assert.throws(() => uvuTarget('test/server/nothing.test.ts'), /no test file/);
});

test.run();
