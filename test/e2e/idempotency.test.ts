// Idempotency-Key over HTTP: a retried create or PATCH replays the first answer and writes once, a key
// reused for another request is 422, a key in flight is 409, failures keep nothing, keys are per caller.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, download, upload } from '../files/support.ts';
import { assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { DEFAULT_CLAIMS } from './support/http.ts';

let api: RunningApi;
let project = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = dataOf(await api.post('/projects', { name: 'Retries' }), 201).id;
});
test.after(async () => api?.close());

const key = (k: string) => ({ headers: { 'Idempotency-Key': k } });
const count = async (id: string) => Number((await api.db.sql`select count(*)::int as n from app.posts where id = ${id}`)[0]!.n);

test('a retried create answers the same status, headers and body, and writes one row', async () => {
  const body = { id: 'once-1', project_id: project, title: 'Once' };
  const first = await api.post('/posts', body, key('create-once-1'));
  const data = dataOf(first, 201);
  assert.is(first.headers.get('idempotent-replayed'), null);
  const again = await api.post('/posts', body, key('create-once-1'));
  assert.is(again.status, 201);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.is(again.headers.get('location'), first.headers.get('location'));
  assert.is(again.headers.get('etag'), first.headers.get('etag'));
  assert.equal(again.body, { data });
  assert.is(await count('once-1'), 1);
  // Without the key the same body is a new request: the key exists, 409.
  assert.is((await api.post('/posts', body)).status, 409);
});

test('a retried PATCH advances the Version once', async () => {
  dataOf(await api.post('/posts', { id: 'once-2', project_id: project, title: 'V1' }), 201);
  const first = await api.patch('/posts/once-2', { title: 'V2' }, key('patch-once-2'));
  assert.is(dataOf(first).version, 2);
  const again = await api.patch('/posts/once-2', { title: 'V2' }, key('patch-once-2'));
  assert.is(dataOf(again).version, 2);
  assert.is(again.headers.get('etag'), '"2"');
  assert.is(dataOf(await api.get('/posts/once-2')).version, 2);
});

test('the same key with another body, path or projection is 422; another caller has its own keys', async () => {
  const body = { id: 'once-3', project_id: project, title: 'Three' };
  dataOf(await api.post('/posts', body, key('k-3')), 201);
  const problem = await api.post('/posts', { ...body, title: 'Other' }, key('k-3'));
  assertProblem(problem, 422, api.docsUrl, { code: 'E_IDEMPOTENCY_KEY_REUSED' });
  assert.is((await api.post('/posts?include=id', body, key('k-3'))).status, 422);
  assert.is((await api.post('/projects', { name: 'k-3' }, key('k-3'))).status, 422);
  const other = await api.token({ sub: 'someone-else', roles: ['admin'] });
  // Into a project of their own: a post goes only under a project its caller may read.
  const own = dataOf(await api.post('/projects', { name: 'Theirs' }, { token: other }), 201).id;
  const theirs = await api.post('/posts', { ...body, id: 'once-3b', project_id: own }, { ...key('k-3'), token: other });
  assert.is(dataOf(theirs, 201).id, 'once-3b');
  assert.is(theirs.headers.get('idempotent-replayed'), null);
});

test('a retry whose body lists the same members in another order replays; a list in another order is another request', async () => {
  const first = await api.post('/posts', { id: 'once-order', project_id: project, title: 'Order', meta: { priority: 1, address: { city: 'A', zip: 'B' } } }, key('k-order'));
  dataOf(first, 201);
  const reordered = await api.post('/posts', { meta: { address: { zip: 'B', city: 'A' }, priority: 1 }, title: 'Order', project_id: project, id: 'once-order' }, key('k-order'));
  assert.is(reordered.status, 201, reordered.text);
  assert.is(reordered.headers.get('idempotent-replayed'), 'true');
  const batch = (ops: object[]) => api.post('/batch', { operations: ops }, key('k-order-batch'));
  const one = { method: 'POST', path: '/tags', body: { slug: 'order-p', label: 'P' } };
  const two = { method: 'POST', path: '/tags', body: { slug: 'order-q', label: 'Q' } };
  assert.is((await batch([one, two])).status, 200);
  const replay = await api.post('/batch', { operations: [{ path: '/tags', body: { label: 'P', slug: 'order-p' }, method: 'POST' }, two] }, key('k-order-batch'));
  assert.is(replay.headers.get('idempotent-replayed'), 'true', replay.text);
  // The order of a list is its content: another order is another request.
  assert.is((await batch([two, one])).status, 422);
});

test('the same sub with other access claims is another request (422), a refreshed token replays', async () => {
  const body = { id: 'once-3c', project_id: project, title: 'Claims' };
  const first = await api.post('/posts', body, key('k-3c'));
  dataOf(first, 201);
  // Another organization, other roles, no roles at all: the key's first answer is not theirs to see.
  for (const claims of [{ ...DEFAULT_CLAIMS, org: 'o2' }, { ...DEFAULT_CLAIMS, roles: ['editor'] }, { sub: DEFAULT_CLAIMS.sub }]) {
    const other = await api.post('/posts', body, { ...key('k-3c'), token: await api.token(claims) });
    assertProblem(other, 422, api.docsUrl, { code: 'E_IDEMPOTENCY_KEY_REUSED' });
  }
  // The same claims in a new token (another expiry, roles in another order) are the same caller.
  const refreshed = await api.token({ ...DEFAULT_CLAIMS, roles: [...DEFAULT_CLAIMS.roles].reverse() }, { exp: '2h' });
  const again = await api.post('/posts', body, { ...key('k-3c'), token: refreshed });
  assert.is(again.status, 201);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.is(await count('once-3c'), 1);
});

test('a failed write keeps nothing: the same key may carry the corrected request', async () => {
  const bad = await api.post('/posts', { id: 'once-4', project_id: project }, key('k-4'));
  assert.is(bad.status, 422);
  const good = await api.post('/posts', { id: 'once-4', project_id: project, title: 'Fixed' }, key('k-4'));
  assert.is(dataOf(good, 201).title, 'Fixed');
  assert.is(good.headers.get('idempotent-replayed'), null);
});

test('a key in flight is 409 with Retry-After; an expired key is forgotten', async () => {
  const reserved = await api.db.sql.reserve();
  try {
    await reserved`select pg_advisory_lock(hashtextextended(${'idempotency sub u-admin k-5'}, 0))`;
    const busy = await api.post('/posts', { id: 'once-5', project_id: project, title: 'Busy' }, key('k-5'));
    assertProblem(busy, 409, api.docsUrl, { code: 'E_IDEMPOTENCY_IN_PROGRESS' });
    assert.is(busy.headers.get('retry-after'), '1');
    assert.is(await count('once-5'), 0);
  } finally {
    await reserved`select pg_advisory_unlock_all()`;
    reserved.release();
  }
  dataOf(await api.post('/posts', { id: 'once-5', project_id: project, title: 'Now' }, key('k-5')), 201);
  await api.db.sql`update lib.idempotency set expires_at = now() - interval '1 second' where key = 'k-5'`;
  assert.is((await api.post('/posts', { id: 'once-5', project_id: project, title: 'Now' }, key('k-5'))).status, 409, 'no replay: the write runs again and meets the key');
});

test('concurrent retries write once: one 201, the others replay it or are told it is in flight', async () => {
  const body = { id: 'once-6', project_id: project, title: 'Race' };
  const replies = await Promise.all(Array.from({ length: 8 }, () => api.post('/posts', body, key('k-6'))));
  const statuses = replies.map((r) => r.status);
  assert.ok(statuses.every((s) => s === 201 || s === 409), statuses.join());
  assert.is(replies.filter((r) => r.status === 201 && !r.headers.get('idempotent-replayed')).length, 1, statuses.join());
  assert.ok(replies.filter((r) => r.status === 409).every((r) => r.body.code === 'E_IDEMPOTENCY_IN_PROGRESS'));
  assert.is(await count('once-6'), 1);
});

test('a replayed create with a file does not attach it again and signs a fresh link', async () => {
  const up = await upload(api, { name: 'cover.png' });
  const body = { id: 'once-7', project_id: project, title: 'Cover', cover: up.ref };
  const first = dataOf(await api.post('/posts', body, key('k-7')), 201);
  const again = await api.post('/posts', body, key('k-7'));
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(dataOf(again, 201).cover.id, first.cover.id);
  assert.is((await download(dataOf(again, 201).cover.url)).status, 200);
});

test('a retried batch and a retried bulk create replay their answers and write once', async () => {
  const batch = { operations: [
    { method: 'POST', path: '/posts', body: { id: 'once-9', project_id: project, title: 'Batch' } },
    { method: 'PATCH', path: '/posts/$1.data.id', body: { title: 'Batch 2' } },
  ] };
  const first = await api.post('/batch', batch, key('k-9'));
  assert.is(first.status, 200, first.text);
  const again = await api.post('/batch', batch, key('k-9'));
  assert.is(again.status, 200, again.text);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body, first.body);
  assert.is(dataOf(await api.get('/posts/once-9')).version, 2, 'the PATCH ran once');
  assert.is((await api.post('/batch', { operations: batch.operations.slice(0, 1) }, key('k-9'))).status, 422);
  const bulk = [{ id: 'once-10', project_id: project, title: 'A' }, { id: 'once-11', project_id: project, title: 'B' }];
  dataOf(await api.post('/posts', bulk, key('k-10')), 201);
  const replay = await api.post('/posts', bulk, key('k-10'));
  assert.is(replay.headers.get('idempotent-replayed'), 'true');
  assert.is(dataOf(replay, 201).length, 2);
  assert.is((await api.post('/posts', [bulk[0]], key('k-10'))).status, 422, 'another array with the key');
  assert.is(await count('once-10'), 1);
});

test('a malformed key is 400; reads and PUT ignore the header', async () => {
  assert.is((await api.post('/posts', { id: 'once-8', project_id: project, title: 'x' }, key('x'.repeat(256)))).status, 400);
  assert.is((await api.post('/posts', { id: 'once-8', project_id: project, title: 'x' }, key('tab\there'))).status, 400);
  assert.is((await api.post('/posts', { id: 'once-8', project_id: project, title: 'x' }, key('"quoted-ok"'))).status, 201);
  assert.is((await api.get('/posts/once-8', key('read'))).status, 200);
  assert.is((await api.get('/posts/once-8', key('read'))).headers.get('idempotent-replayed'), null);
  assert.is((await api.db.sql`select count(*)::int as n from lib.idempotency where key = 'read'`)[0]!.n, 0);
});

test.run();
