// One JSON style for records: every answer that carries a record (read, list, search, create, bulk create, PUT,
// PATCH, restore, an embed, a linked-records list, an idempotent replay) writes its members as `"key":value`, in the
// model's order, whoever wrote it (PostgreSQL or the gateway).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../harness/child.ts';
import { dataOf } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let project = '';

const model = JSON.parse(readFileSync(join(root, 'examples/publishing.model.json'), 'utf8'));
/** The model's order of a post's properties, as wire names (`legacy_code` is sent as `legacyCode`). */
const POST_ORDER = Object.entries<{ web?: { name?: string } }>(model.entities.Post.properties).map(([name, p]) => p.web?.name ?? name);
const PROJECT_ORDER = Object.keys(model.entities.Project.properties);

test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = dataOf(await api.post('/projects', { name: 'Style' }), 201).id;
  await api.post('/tags', { slug: 'style', label: 'Style' });
});
test.after(async () => {
  await api?.close();
});

/** The record's keys as the text wrote them (JSON.parse keeps the order of keys that are not numbers). */
const keysOf = (record: Record<string, unknown>) => Object.keys(record);
/** The readable ones of `order`, as the record has them. */
const expected = (order: string[], record: Record<string, unknown>) => order.filter((k) => k in record);

function assertStyle(text: string, what: string): void {
  assert.not.match(text, /" : /, `${what}: no "key" : value (json_build_object's spacing)`);
  assert.not.match(text, /\{"id": /, `${what}: no "key": value (jsonb's spacing) for a record`);
}

function assertPost(record: Record<string, unknown>, what: string): void {
  assert.ok(keysOf(record).length > 10, `${what}: a whole post`);
  assert.equal(keysOf(record).filter((k) => POST_ORDER.includes(k)), expected(POST_ORDER, record), `${what}: the model's order`);
}

test('a post reads, lists, searches and is written back in the model order, `"key":value`', async () => {
  const created = await api.post(`/projects/${project}/posts`, { id: 's1', title: 'One', meta: { b: 1, a: 2 } });
  const replies = {
    create: created,
    read: await api.get('/posts/s1'),
    list: await api.get('/posts?id=s1'),
    search: await api.post('/posts/search', { where: { id: { eq: 's1' } } }),
    patch: await api.patch('/posts/s1', { title: 'Two' }),
    put: await api.put('/posts/s1', { title: 'Three', project_id: project }),
    bulk: await api.post('/posts/bulk', [{ id: 's2', title: 'Bulk', project_id: project }]),
    replay: await api.post(`/projects/${project}/posts`, { id: 's3', title: 'Kept' }, { headers: { 'Idempotency-Key': 'style-1' } }),
    replayed: await api.post(`/projects/${project}/posts`, { id: 's3', title: 'Kept' }, { headers: { 'Idempotency-Key': 'style-1' } }),
  };
  assert.is(replies.replayed.headers.get('idempotent-replayed'), 'true');
  for (const [what, reply] of Object.entries(replies)) {
    assert.ok(reply.status < 300, `${what}: ${reply.status} ${reply.text}`);
    assertStyle(reply.text, what);
    const data = reply.body.data;
    for (const record of Array.isArray(data) ? data : [data]) assertPost(record, what);
  }
  assert.is(replies.replayed.text, replies.replay.text, 'a replay is the text first sent');
});

test('a restored post, an embedded project and the linked tags keep the model order too', async () => {
  await api.post(`/projects/${project}/posts`, { id: 's4', title: 'Gone' });
  assert.is((await api.del('/posts/s4')).status, 204);
  const restored = await api.post('/posts/s4/restore');
  assert.is(restored.status, 200, restored.text);
  assertStyle(restored.text, 'restore');
  assertPost(restored.body.data, 'restore');

  assert.is((await api.put('/posts/s4/tags/style', {})).status, 201);
  const embedded = await api.get('/posts/s4?include=project,tags');
  assert.is(embedded.status, 200, embedded.text);
  assertStyle(embedded.text, 'include');
  assertPost(embedded.body.data, 'include');
  const keys = keysOf(embedded.body.data);
  assert.equal(keys.slice(-2), ['project', 'tags'], 'the embeds follow the properties');
  assert.equal(keysOf(embedded.body.data.project), PROJECT_ORDER, 'the embedded project in its model order');
  assert.equal(keysOf(embedded.body.data.tags[0]), ['slug', 'label', 'edge']);

  const listed = await api.get('/posts?id=s4&include=project');
  assertStyle(listed.text, 'list include');
  assert.equal(keysOf(listed.body.data[0].project), PROJECT_ORDER);

  const linked = await api.get('/posts/s4/tags');
  assert.is(linked.status, 200, linked.text);
  assert.equal(keysOf(linked.body.data[0]), ['slug', 'label', 'edge']);
  assert.equal(api.serverErrors, []);
});

test.run();
