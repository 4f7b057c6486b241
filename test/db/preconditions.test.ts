// Spec tables 3.2 and 4.4 in SQL: If-Match (list, *), If-Unmodified-Since and the body version lock,
// for PUT, PATCH and DELETE, on an entity with a Version property and one without; and races.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const model = {
  api: testApi('pre'),
  entities: {
    Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true }, title: { type: 'String' }, rev: { type: 'Number', modules: { Version: {} } } } },
    Note: { collection: 'notes', properties: { id: { type: 'String', primary: true }, title: { type: 'String' } } },
  },
};

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
});
test.after(async () => db?.close());

const call = async (fn: string, args: unknown, sql: postgres.Sql = db.sql) =>
  (await sql`select api.dispatch('authenticated', '{"sub":"u1"}', '', ${fn}, ${sql.json(args as any)}) as r`)[0]!.r;
async function code(fn: string, args: unknown): Promise<{ code: string; message: string; detail: any }> {
  try { await call(fn, args); } catch (err: any) { return { code: err.code, message: err.message, detail: JSON.parse(err.detail ?? 'null') }; }
  assert.unreachable(`${fn} should have been refused`);
  throw new Error('unreachable');
}
const state = async (table: string, id: string) => (await db.sql.unsafe(`select * from app.${table} where id = $1`, [id]))[0];

// The same rows for both entities: `etag(row)` is the Version with one, the revision token without.
for (const [entity, table, etag] of [['Doc', 'docs', (r: any) => String(r.rev)], ['Note', 'notes', (r: any) => r._rev]] as const) {
  const fn = (a: string) => `${table}_${a}`;
  for (const action of ['replace', 'patch'] as const) {
    test(`${entity} ${action}: no precondition, a matching If-Match or a list containing it: applies, new ETag`, async () => {
      const id = `${action}-ok`;
      const created = await call(fn('create'), { body: { id, title: 'a', ...(table === 'docs' ? { rev: 42 } : {}) } });
      if (table === 'docs') assert.is(created.etag, '1', 'create: version 1, the supplied version discarded');
      const a = await call(fn(action), { id, body: { title: 'b' } });
      assert.is.not(a.etag, created.etag);
      const b = await call(fn(action), { id, body: { title: 'c' }, if_match: [a.etag] });
      const c = await call(fn(action), { id, body: { title: 'd' }, if_match: ['"nope"', b.etag] });
      assert.is(c.etag, etag(await state(table, id)));
      if (table === 'docs') assert.equal([a.etag, b.etag, c.etag], ['2', '3', '4']);
    });

    test(`${entity} ${action}: a stale If-Match is 412 naming both ETags, and nothing changes`, async () => {
      const id = `${action}-stale`;
      const created = await call(fn('create'), { body: { id, title: 'a' } });
      const moved = await call(fn(action), { id, body: { title: 'b' } });
      const before = await state(table, id);
      const err = await code(fn(action), { id, body: { title: 'lost' }, if_match: [created.etag] });
      assert.is(err.code, 'PT412');
      assert.match(err.message, `current ETag is "${moved.etag}"`);
      assert.match(err.message, `"${created.etag}"`);
      assert.equal(await state(table, id), before);
    });

    test(`${entity} ${action}: If-Match * needs the record; If-Unmodified-Since before the last change is 412`, async () => {
      const id = `${action}-star`;
      assert.is((await code(fn(action), { id, body: { title: 'x' }, if_match: ['*'] })).code, 'PT412');
      await call(fn('create'), { body: { id, title: 'a' } });
      await call(fn(action), { id, body: { title: 'b' }, if_match: ['*'] });
      const past = await code(fn(action), { id, body: { title: 'c' }, if_unmodified_since: '2001-01-01T00:00:00Z' });
      assert.is(past.code, 'PT412');
      const future = await call(fn(action), { id, body: { title: 'c' }, if_unmodified_since: '2999-01-01T00:00:00Z' });
      assert.is(future.data.title, 'c');
      // RFC 9110 13.2.2: with If-Match present, If-Unmodified-Since is not evaluated.
      const both = await call(fn(action), { id, body: { title: 'd' }, if_match: [future.etag], if_unmodified_since: '2001-01-01T00:00:00Z' });
      assert.is(both.data.title, 'd');
    });
  }

  test(`${entity} delete: stale If-Match 412, matching If-Match deletes, If-Match * on a missing record 412`, async () => {
    const id = 'del';
    const created = await call(fn('create'), { body: { id, title: 'a' } });
    const moved = await call(fn('patch'), { id, body: { title: 'b' } });
    assert.is((await code(fn('delete'), { id, if_match: [created.etag] })).code, 'PT412');
    await call(fn('delete'), { id, if_match: [moved.etag] });
    assert.is((await code(fn('delete'), { id, if_match: ['*'] })).code, 'PT412');
    assert.is((await code(fn('delete'), { id })).code, 'PT404');
  });
}

test('Doc body version: equal applies and is not written as the new version; different is 409; others 422', async () => {
  await call('docs_create', { body: { id: 'v', title: 'a' } });
  for (const action of ['replace', 'patch']) {
    const [row] = await db.sql`select rev from app.docs where id = 'v'`;
    const ok = await call(`docs_${action}`, { id: 'v', body: { title: action, rev: row!.rev } });
    assert.is(ok.data.rev, row!.rev + 1);
    const stale = await code(`docs_${action}`, { id: 'v', body: { title: 'lost', rev: row!.rev } });
    assert.is(stale.code, 'PT409');
    assert.match(stale.message, 'modified by another user');
    for (const bad of ['3', 1.5, 0, -2, true, [1], { a: 1 }, null]) {
      assert.is((await code(`docs_${action}`, { id: 'v', body: { rev: bad } })).code, 'PT422', `${action} ${JSON.stringify(bad)}`);
    }
  }
  const [final] = await db.sql`select rev, title from app.docs where id = 'v'`;
  assert.equal({ ...final }, { rev: 3, title: 'patch' });
});

test('race: 20 concurrent patches with the same If-Match: exactly one applies, 19 get 412', async () => {
  const first = await call('docs_create', { body: { id: 'race', title: 'r' } });
  const clients = Array.from({ length: 20 }, () => postgres(db.url, { max: 1, onnotice: () => {} }));
  try {
    const results = await Promise.allSettled(clients.map((c, i) => call('docs_patch', { id: 'race', body: { title: `r${i}` }, if_match: [first.etag] }, c)));
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.ok(results.every((r) => r.status === 'fulfilled' || (r.reason as any).code === 'PT412'));
    const [row] = await db.sql`select rev from app.docs where id = 'race'`;
    assert.is(row!.rev, 2);
    await Promise.all(clients.map((c, i) => call('docs_patch', { id: 'race', body: { title: `s${i}` } }, c)));
    const [after] = await db.sql`select rev from app.docs where id = 'race'`;
    assert.is(after!.rev, 22, 'without preconditions every one of the 20 applies');
  } finally {
    await Promise.all(clients.map((c) => c.end()));
  }
});

test.run();
