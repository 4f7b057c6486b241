// The change log (design 9) over the real gateway: every kind of write appends one row per changed record to
// lib.changes in its own transaction (action, key, ETag, the row as written, the caller), a rolled-back batch none.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testApi } from '../harness/fixtures.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { ChangeLogRetention } from '../../server/events/retention.ts';

let api: RunningApi;
test.before(async () => {
  api = await startApi({
    api: testApi('changelog'),
    entities: {
      Note: {
        collection: 'notes',
        softDelete: true,
        history: false, // its rows follow the log's retention alone (test/e2e/history.test.ts: kept histories)
        properties: {
          id: { type: 'String', primary: true },
          title: { type: 'String' },
          version: { type: 'Number', modules: { Version: {} } },
        },
        relations: {
          tags: { kind: 'manyToMany', entity: 'Tag' },
          extra: { kind: 'oneToOne', properties: { body: { type: 'String' } } },
        },
      },
      Tag: { collection: 'tags', properties: { id: { type: 'String', primary: true }, label: { type: 'String' } } },
    },
  });
});
test.after(async () => api?.close());

interface Logged { id: string; entity: string; table_name: string; record_key: string; action: string; etag: string | null; image: any; sub: string | null }

/** The log rows after `after`, in order. */
async function logSince(after: string): Promise<Logged[]> {
  return [...await api.db.sql<Logged[]>`select c.id::text, entity, table_name, record_key, action, etag, image, sub from lib.changes c where c.id > ${after} order by c.id`];
}
async function lastId(): Promise<string> {
  const [row] = await api.db.sql`select coalesce(max(id), 0)::text as id from lib.changes`;
  return row!.id;
}
const brief = (rows: Logged[]) => rows.map((r) => `${r.entity} ${r.record_key} ${r.action}`);

test('create, replace, patch, delete and restore: one row each, with ETag, image and caller', async () => {
  const start = await lastId();
  dataOf(await api.post('/notes', { id: 'n1', title: 'One' }), 201);
  dataOf(await api.put('/notes/n1', { title: 'Uno' }));
  dataOf(await api.patch('/notes/n1', { title: 'Eins' }));
  expectStatus(await api.del('/notes/n1'), 204);
  dataOf(await api.post('/notes/n1/restore'));
  const rows = await logSince(start);
  assert.equal(brief(rows), ['Note n1 created', 'Note n1 updated', 'Note n1 updated', 'Note n1 deleted', 'Note n1 restored']);
  assert.equal(rows.map((r) => r.etag), ['1', '2', '3', '3', '4'], 'the Version each write left (a delete: the record before it)');
  assert.equal(rows.map((r) => r.image.title), ['One', 'Uno', 'Eins', 'Eins', 'Eins']);
  assert.is(rows[3]!.image.deleted_at, null, 'a deleted record is logged as it was before (who could read it)');
  assert.ok(rows.every((r) => r.sub === 'u-admin' && r.table_name === 'notes'));
  assert.equal(api.serverErrors, []);
});

test('a permanent delete, link, edge update, unlink and a sub-resource PUT', async () => {
  dataOf(await api.post('/notes', { id: 'n2', title: 'Two' }), 201);
  dataOf(await api.post('/tags', { id: 't1', label: 'red' }), 201);
  const start = await lastId();
  expectStatus(await api.put('/notes/n2/tags/t1', {}), 201);
  expectStatus(await api.del('/notes/n2/tags/t1'), 204);
  dataOf(await api.put('/notes/n2/extra', { body: 'more' }));
  expectStatus(await api.del('/notes/n2?permanent=true'), 204);
  const rows = await logSince(start);
  assert.equal(brief(rows), ['Note n2 linked', 'Note n2 unlinked', 'Note n2 updated', 'Note n2 deleted']);
  assert.is(rows[0]!.table_name, 'notes_tags');
  assert.is(rows[2]!.etag, '2', "a sub-resource PUT is its owner's update");
  assert.equal(api.serverErrors, []);
});

test('a bulk create and a batch: one row per record; a rolled-back batch leaves none', async () => {
  const start = await lastId();
  dataOf(await api.post('/tags', [{ id: 't2', label: 'a' }, { id: 't3', label: 'b' }]), 201);
  const batch = await api.post('/batch', { operations: [
    { method: 'POST', path: '/tags', body: { id: 't4', label: 'c' } },
    { method: 'PATCH', path: '/tags/t2', body: { label: 'A' } },
  ] });
  expectStatus(batch, 200);
  const committed = await logSince(start);
  assert.equal(brief(committed), ['Tag t2 created', 'Tag t3 created', 'Tag t4 created', 'Tag t2 updated']);
  const mark = await lastId();
  const failed = await api.post('/batch', { operations: [
    { method: 'POST', path: '/tags', body: { id: 't5', label: 'd' } },
    { method: 'POST', path: '/tags', body: { id: 't5', label: 'duplicate' } },
  ] });
  assert.ok(failed.status >= 400, `the batch failed (${failed.status})`);
  assert.equal(await logSince(mark), [], 'nothing logged');
  const [t5] = await api.db.sql`select count(*)::int as n from app.tags where id = 't5'`;
  assert.is(t5!.n, 0);
  assert.equal(api.serverErrors, []);
});

test('pruning removes rows past the retention, a batch at a time, and moves the horizon', async () => {
  const oldest = await api.db.sql`select tx::text, id::text from lib.changes order by tx, id limit 3`;
  await api.db.sql`update lib.changes set at = now() - interval '2 hours' where id in ${api.db.sql(oldest.map((r) => r.id))}`;
  const [first] = await api.db.sql`select lib.changes_prune(3600, 2) as n`;
  assert.is(first!.n, 2);
  const [second] = await api.db.sql`select lib.changes_prune(3600, 2) as n`;
  assert.is(second!.n, 1);
  const [horizon] = await api.db.sql`select pruned_tx::text as tx, pruned_id::text as id from lib.changes_horizon`;
  assert.equal({ ...horizon }, { ...oldest[2] }, 'the last row pruned, in reading order (tx, id)');
});

test("the gateway's retention removes every row past EVENTS_RETENTION_SECONDS, and none younger", async () => {
  await api.db.sql`update lib.changes set at = now() - interval '2 days' where record_key = 't2'`;
  const young = await api.db.sql`select count(*)::int as n from lib.changes where record_key <> 't2'`;
  const errors: unknown[] = [];
  const retention = new ChangeLogRetention(api.db.sql, 24 * 60 * 60, (_m, err) => errors.push(err));
  assert.is(await retention.prune(), 2, 'the two rows of t2');
  const [left] = await api.db.sql`select count(*)::int as n from lib.changes`;
  assert.is(left!.n, young[0]!.n);
  await retention.stop();
  assert.equal(errors, []);
});

test.run();
