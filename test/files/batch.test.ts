// File references in a batch and a bulk create: attached as in a single request (signed links in the
// results), and after a rolled-back batch the reference is still unused, so it attaches on a retry.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import { dataOf, download, PNG, upload } from './support.ts';

let api: RunningApi;
let project = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = dataOf(await api.post('/projects', { name: 'Batch files' }), 201).id;
});
test.after(async () => {
  const errors = api?.serverErrors ?? [];
  await api?.close();
  assert.equal(errors, []);
});

test('a rolled-back batch leaves the file reference unused; the retry attaches it and the result holds a signed link', async () => {
  const { ref } = await upload(api, { name: 'cover.png', type: 'image/png', bytes: PNG });
  const ops = (title: string) => [
    { method: 'POST', path: `/projects/${project}/posts`, body: { id: `bf-${title}`, title, cover: ref } },
    { method: 'PATCH', path: `/posts/bf-${title}`, headers: { 'If-Match': '"7"' }, body: { title: 'never' } },
  ];
  const failed = await api.post('/batch', { operations: ops('one') });
  assert.is(failed.status, 412, failed.text);
  assert.is(failed.body.operation, 2);
  const [row] = await api.db.sql`select used_at from lib.uploads where token = ${ref}`;
  assert.is(row!.used_at, null, 'the claim was rolled back with the batch');
  assert.is((await api.get('/posts/bf-one')).status, 404);

  const ok = await api.post('/batch', { operations: [ops('two')[0]] });
  assert.is(ok.status, 200, ok.text);
  const cover = ok.body.results[0].body.data.cover;
  assert.is(cover.name, 'cover.png');
  const got = await download(cover.url);
  assert.is(got.status, 200);
  assert.equal([...got.bytes], [...PNG]);
});

test('bulk create attaches each element\'s file; one reference used twice is refused and nothing is kept', async () => {
  const a = await upload(api, { name: 'a.png', type: 'image/png', bytes: PNG });
  const twice = await api.post(`/projects/${project}/posts`, [{ id: 'bulk-f1', title: 'A', cover: a.ref }, { id: 'bulk-f2', title: 'B', cover: a.ref }]);
  assert.is(twice.status, 422, twice.text);
  assert.is(twice.body.index, 1);
  assert.is((await api.get('/posts/bulk-f1')).status, 404);
  const b = await upload(api, { name: 'b.png', type: 'image/png', bytes: PNG });
  const created = await api.post(`/projects/${project}/posts`, [{ id: 'bulk-f1', title: 'A', cover: a.ref }, { id: 'bulk-f2', title: 'B', cover: b.ref }]);
  assert.is(created.status, 201, created.text);
  assert.equal(created.body.data.map((p: any) => p.cover.name), ['a.png', 'b.png']);
  assert.is((await download(created.body.data[1].cover.url)).status, 200);
});

test.run();
