// A restore is a write for entities without a Version too (issue 14): their ETag is the revision token, and a restore
// gives a new one, so a precondition taken before the delete fails (412) and the new ETag works.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testApi } from '../harness/fixtures.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
test.before(async () => {
  api = await startApi({
    api: testApi('restoring'),
    entities: { Note: { collection: 'notes', softDelete: true, properties: { id: { type: 'String', primary: true }, title: { type: 'String' } } } },
  });
});
test.after(async () => api?.close());

test('without a Version: a restore answers a new revision ETag, the read agrees, the old one is stale', async () => {
  const created = await api.post('/notes', { id: 'n1', title: 'One' });
  dataOf(created, 201);
  const first = created.headers.get('etag')!;
  assert.match(first, /^"[^"]+"$/);
  expectStatus(await api.del('/notes/n1'), 204);
  const [deleted] = await api.db.sql`select _rev::text as rev from app.notes where id = 'n1'`;
  const restored = await api.post('/notes/n1/restore');
  assert.is(dataOf(restored).title, 'One');
  const second = restored.headers.get('etag');
  assert.ok(second, 'a restore answers an ETag');
  assert.is.not(second, first, 'a new revision');
  assert.is.not(second, `"${deleted!.rev}"`, 'the restore itself made it, not only the delete before it');
  assert.is((await api.get('/notes/n1')).headers.get('etag'), second, 'the read agrees');
  expectStatus(await api.patch('/notes/n1', { title: 'stale' }, { headers: { 'If-Match': first } }), 412);
  expectStatus(await api.patch('/notes/n1', { title: 'fresh' }, { headers: { 'If-Match': second! } }), 200);
  assert.equal(api.serverErrors, []);
});

test.run();
