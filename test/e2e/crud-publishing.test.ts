// Every record action of the publishing model over HTTP (spec 4.3, design.md 5): create (201,
// Location, ETag), read, list, replace, patch, delete (204), soft delete, restore, permanent delete.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let project = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = dataOf(await api.post('/projects', { name: 'Main' }), 201).id;
});
test.after(async () => api?.close());

test('create: 201, Location of the new record, ETag, data with server-filled properties', async () => {
  const token = await api.token({ sub: 'u-7', roles: ['editor'] });
  const reply = await api.post('/projects', { name: 'Docs' }, { token });
  expectStatus(reply, 201);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/json/);
  const data = reply.body.data;
  assert.type(data.id, 'string');
  assert.is(data.name, 'Docs');
  assert.is(data.owner_id, 'u-7', 'Owner comes from the token sub');
  assert.is(reply.headers.get('location'), `${api.basePath}/projects/${data.id}`);
  assert.match(reply.headers.get('etag') ?? '', /^"[^"]+"$/);
  // Projects are read by their stakeholders ("Stakeholders work on their projects"): the creator here.
  const again = await api.get(`/projects/${data.id}`, { token });
  assert.equal(dataOf(again), data);
});

test('read: 200 with data, a strong ETag and Last-Modified; unknown id 404', async () => {
  const created = await api.post('/posts', { project_id: project, title: 'Hello' });
  const id = dataOf(created, 201).id;
  const reply = await api.get(`/posts/${id}`);
  const data = dataOf(reply);
  assert.is(data.title, 'Hello');
  assert.is(reply.headers.get('etag'), '"1"', 'the Version property is the ETag');
  assert.ok(!Number.isNaN(Date.parse(reply.headers.get('last-modified') ?? '')), 'Last-Modified is an HTTP date');
  assert.not.ok('_rev' in data || '_modified_at' in data || 'deleted_at' in data, 'no system columns');
  assertProblem(await api.get('/posts/no-such-post'), 404, api.docsUrl);
  assertProblem(await api.get('/comments/123456'), 404, api.docsUrl);
  assertProblem(await api.get('/comments/not-a-number'), 404, api.docsUrl);
});

test('create fills defaults, Version 1 whatever was supplied, timestamps and the owner', async () => {
  const reply = await api.post('/posts', { project_id: project, title: 'Defaults', version: 42 });
  const data = dataOf(reply, 201);
  assert.is(reply.headers.get('etag'), '"1"');
  assert.is(data.version, 1);
  assert.is(data.status, 'draft');
  assert.is(data.featured, false);
  assert.is(data.author_id, 'u-admin');
  assert.type(data.id, 'string');
  assert.ok(data.id.length > 0, 'an immutable key left out is generated');
  assert.ok(Date.parse(data.created_at) > 0 && data.created_at === data.updated_at);
  assert.is(reply.headers.get('location'), `${api.basePath}/posts/${encodeURIComponent(data.id)}`);
});

test('every property type round-trips through create and read', async () => {
  const body = {
    id: 'all-types', project_id: project, title: 'Types', body: 'x'.repeat(1000), status: 'in_review', rating: 3.5,
    word_count: 12, published_on: '2024-02-29', reading_slot: '07:15:30', featured: true, tags_cache: ['a', 'b'],
    meta: { address: { city: 'Oslo', zip: '0150' }, priority: 3, labels: [], extra: { deep: [1, { two: 2 }] } },
    legacyCode: 'old', internal_note: 'hidden in specs, still returned',
  };
  dataOf(await api.post('/posts', body), 201);
  const data = dataOf(await api.get('/posts/all-types'));
  for (const [k, v] of Object.entries(body)) {
    if (k === 'reading_slot') assert.is(data[k], '07:15:30');
    else assert.equal(data[k], v, k);
  }
});

test('replace (PUT): 200, omitted writable properties reset to default or null, Version + 1', async () => {
  const id = dataOf(await api.post('/posts', { project_id: project, title: 'Before', rating: 2, featured: true, body: 'b' }), 201).id;
  const reply = await api.put(`/posts/${id}`, { title: 'After', word_count: 5 });
  const data = dataOf(reply);
  assert.is(data.title, 'After');
  assert.is(data.word_count, 5);
  assert.is(data.rating, null);
  assert.is(data.body, null);
  assert.is(data.featured, false, 'back to its defaultValue');
  assert.is(data.project_id, project, 'immutable properties are kept');
  assert.is(data.version, 2);
  assert.is(reply.headers.get('etag'), '"2"');
  assert.equal(dataOf(await api.get(`/posts/${id}`)), data);
});

test('partial update (PATCH): only the given properties change, Version + 1', async () => {
  const id = dataOf(await api.post('/posts', { project_id: project, title: 'Patch me', rating: 2, body: 'keep' }), 201).id;
  const first = await api.patch(`/posts/${id}`, { rating: 4 });
  assert.is(dataOf(first).rating, 4);
  assert.is(dataOf(first).body, 'keep');
  assert.is(first.headers.get('etag'), '"2"');
  const second = await api.patch(`/posts/${id}`, { status: 'published', body: null });
  const data = dataOf(second);
  assert.is(data.status, 'published', 'later status moves are not limited by initialStatuses');
  assert.is(data.body, null);
  assert.is(data.title, 'Patch me');
  assert.is(data.version, 3);
  const empty = await api.patch(`/posts/${id}`, {});
  assert.is(dataOf(empty).version, 4, 'an empty PATCH is still a write');
  assert.ok(Date.parse(data.updated_at) >= Date.parse(data.created_at));
});

test('updates of missing records are 404', async () => {
  assertProblem(await api.put('/posts/missing', { title: 'x' }), 404, api.docsUrl);
  assertProblem(await api.patch('/posts/missing', { title: 'x' }), 404, api.docsUrl);
  assertProblem(await api.del('/posts/missing'), 404, api.docsUrl);
  assertProblem(await api.del('/projects/missing'), 404, api.docsUrl);
});

test('delete: 204 without a body; the record is gone', async () => {
  const id = dataOf(await api.post('/projects', { name: 'Temp' }), 201).id;
  const reply = await api.del(`/projects/${id}`);
  assert.is(reply.status, 204);
  assert.is(reply.text, '');
  assertProblem(await api.get(`/projects/${id}`), 404, api.docsUrl);
  assertProblem(await api.del(`/projects/${id}`), 404, api.docsUrl);
});

test('soft delete hides the post; restore brings it back; permanent delete removes the row', async () => {
  const id = dataOf(await api.post('/posts', { id: 'soft', project_id: project, title: 'Soft' }), 201).id;
  assert.is((await api.del(`/posts/${id}`)).status, 204);
  assertProblem(await api.get(`/posts/${id}`), 404, api.docsUrl);
  assert.is(dataOf(await api.get('/posts?id=soft')).length, 0, 'lists hide soft-deleted records');
  const [row] = await api.db.sql`select deleted_at from app.posts where id = ${id}`;
  assert.ok(row?.deleted_at, 'the row is kept with deleted_at set');

  const restored = await api.post(`/posts/${id}/restore`);
  assert.is(dataOf(restored).title, 'Soft');
  assert.not.ok('deleted_at' in restored.body.data);
  assert.is(dataOf(await api.get(`/posts/${id}`)).id, id);

  assert.is((await api.del(`/posts/${id}?permanent=true`)).status, 204);
  assert.is((await api.db.sql`select 1 from app.posts where id = ${id}`).length, 0);
  assertProblem(await api.post(`/posts/${id}/restore`), 404, api.docsUrl);
});

test('a soft-deleted post cannot be read, replaced, patched or deleted again (404)', async () => {
  dataOf(await api.post('/posts', { id: 'hidden', project_id: project, title: 'Hidden' }), 201);
  assert.is((await api.del('/posts/hidden')).status, 204);
  assertProblem(await api.put('/posts/hidden', { title: 'x' }), 404, api.docsUrl);
  assertProblem(await api.patch('/posts/hidden', { title: 'x' }), 404, api.docsUrl);
  assertProblem(await api.del('/posts/hidden'), 404, api.docsUrl);
  assertProblem(await api.get('/posts/hidden/tags'), 404, api.docsUrl);
  const [row] = await api.db.sql`select title from app.posts where id = 'hidden'`;
  assert.is(row?.title, 'Hidden');
});

test('a soft delete leaves the Version alone; a restore is a write: Version +1 and a new ETag (issue 14)', async () => {
  const created = await api.post('/posts', { id: 'versioned', project_id: project, title: 'V' });
  assert.is(created.headers.get('etag'), '"1"');
  assert.is((await api.del('/posts/versioned')).status, 204);
  const [row] = await api.db.sql`select version from app.posts where id = 'versioned'`;
  assert.is(row?.version, 1, 'after the soft delete');
  const restored = await api.post('/posts/versioned/restore');
  assert.is(dataOf(restored).version, 2, 'after the restore');
  assert.is(restored.headers.get('etag'), '"2"');
  assert.is((await api.get('/posts/versioned')).headers.get('etag'), '"2"');
  const stale = await api.patch('/posts/versioned', { title: 'stale' }, { headers: { 'If-Match': '"1"' } });
  assert.is(stale.status, 412, 'the ETag from before the delete no longer matches');
  assert.is((await api.post('/posts/versioned/restore')).headers.get('etag'), '"2"', 'restoring a live record changes nothing');
});

test('keys with reserved URL characters: Location is encoded and leads back to the record', async () => {
  for (const id of ['a b', 'slash/inside', 'percent%20', 'q?x=1#f', 'ünïcødé-💡', "quote'\"dq"]) {
    const reply = await api.post('/posts', { id, project_id: project, title: 'Odd key' });
    const data = dataOf(reply, 201);
    assert.is(data.id, id);
    const location = reply.headers.get('location') ?? '';
    assert.is(location, `${api.basePath}/posts/${encodeURIComponent(id)}`);
    const read = await api.callAbsolute('GET', location);
    assert.is(dataOf(read).id, id, location);
    assert.is(dataOf(await api.patch(`/posts/${encodeURIComponent(id)}`, { body: 'patched' })).body, 'patched');
  }
});

test('parallel requests: each runs with its own caller, none leaks claims to another', async () => {
  // Signed-in callers are administrators (each its own sub); an anonymous caller may not create posts,
  // so a leaked claim would show as a 201 where the anonymous request must get 401.
  const work = Array.from({ length: 40 }, async (_, i) => {
    const sub = i % 3 === 0 ? null : `par-${i}`;
    const token = sub === null ? null : await api.token({ sub, roles: ['admin'] });
    // A post goes only into a project its caller may read: each administrator starts its own.
    const into = sub === null ? project : dataOf(await api.post('/projects', { name: `P${i}` }, { token }), 201).id;
    const reply = await api.post('/posts', { id: `par-${i}`, project_id: into, title: `P${i}` }, { token });
    return { sub, reply };
  });
  let created = 0;
  for (const { sub, reply } of await Promise.all(work)) {
    if (sub === null) {
      assert.is(reply.status, 401, reply.text);
      continue;
    }
    assert.is(dataOf(reply, 201).author_id, sub, reply.text);
    created++;
  }
  const listed = await api.get('/posts?id[like]=par-*&per_page=100');
  assert.is(listed.body.meta.total, created);
  assert.is(created, 26);
});

test('projections apply to single records too', async () => {
  dataOf(await api.post('/posts', { id: 'proj', project_id: project, title: 'Projected', meta: { address: { city: 'Bern', zip: '3000' }, priority: 1 } }), 201);
  assert.equal(dataOf(await api.get('/posts/proj?include=id,meta.address.city')), { id: 'proj', meta: { address: { city: 'Bern' } } });
  const patched = dataOf(await api.patch('/posts/proj?exclude=meta,body', { body: 'b' }));
  assert.not.ok('meta' in patched || 'body' in patched);
  assert.is(patched.title, 'Projected');
});

test('permanent delete also removes a record already soft-deleted', async () => {
  dataOf(await api.post('/posts', { id: 'twice', project_id: project, title: 'Twice' }), 201);
  assert.is((await api.del('/posts/twice')).status, 204);
  assert.is((await api.del('/posts/twice?permanent=true')).status, 204);
  assert.is((await api.db.sql`select 1 from app.posts where id = 'twice'`).length, 0);
});

test('restore exists only for softDelete entities', async () => {
  assertProblem(await api.post(`/projects/${project}/restore`), 404, api.docsUrl);
});

test('comments: a readOnly Number key is generated; lists page through them', async () => {
  const post = dataOf(await api.post('/posts', { project_id: project, title: 'Commented' }), 201).id;
  const ids: number[] = [];
  for (const text of ['one', 'two', 'three']) {
    const reply = await api.post('/comments', { post_id: post, body: text });
    const data = dataOf(reply, 201);
    assert.type(data.id, 'number');
    assert.is(reply.headers.get('location'), `${api.basePath}/comments/${data.id}`);
    ids.push(data.id);
  }
  assert.is(dataOf(await api.get(`/comments/${ids[1]}`)).body, 'two');
  const page = await api.get(`/comments?post_id=${post}&sort=-id&per_page=2`);
  assert.equal(dataOf(page).map((c: { id: number }) => c.id), [ids[2], ids[1]]);
  assert.equal(page.body.meta, { total: 3, count: 'exact', page: 1, per_page: 2, next: page.body.meta.next });
  assert.type(page.body.meta.next, 'string');
});

test('tags: a client-assigned key; Location uses it; GET, PUT, PATCH and DELETE by it', async () => {
  const reply = await api.post('/tags', { slug: 'how-to', label: 'How to' });
  assert.is(reply.headers.get('location'), `${api.basePath}/tags/how-to`);
  assert.is(dataOf(await api.put('/tags/how-to', { label: 'How-to' })).label, 'How-to');
  assert.is(dataOf(await api.patch('/tags/how-to', { label: 'Guides' })).label, 'Guides');
  assert.equal(dataOf(await api.get('/tags/how-to')), { slug: 'how-to', label: 'Guides' });
  assert.is((await api.del('/tags/how-to')).status, 204);
  assertProblem(await api.get('/tags/how-to'), 404, api.docsUrl);
});

test('users: sign-up without a token; list shows them without passwords', async () => {
  const reply = await api.post('/users', { email: 'New@Example.com', password: 's3cret!', display_name: 'New' }, { token: null });
  const data = dataOf(reply, 201);
  assert.is(data.email, 'new@example.com');
  assert.not.ok('password' in data);
  const listed = dataOf(await api.get('/users?email=new@example.com'));
  assert.is(listed.length, 1);
  assert.not.ok('password' in listed[0]);
});

test('deleting a project its posts still refer to is refused, not a 500', async () => {
  const p = dataOf(await api.post('/projects', { name: 'Referenced' }), 201).id;
  dataOf(await api.post('/posts', { project_id: p, title: 'Child' }), 201);
  const reply = await api.del(`/projects/${p}`);
  assert.is(reply.status, 409, reply.text);
  assertProblem(reply, 409, api.docsUrl);
  assert.is(dataOf(await api.get(`/projects/${p}`)).id, p);
});

test('a post for a project that does not exist is 422 naming project_id', async () => {
  // An administrator (no editor role): the winning scenario has no stakeholder rule to refuse it first.
  const token = await api.token({ sub: 'u-admin', roles: ['admin'] });
  const reply = await api.post('/posts', { project_id: 'no-such-project', title: 'Orphan' }, { token });
  const body = assertProblem(reply, 422, api.docsUrl);
  assert.ok(body.errors.some((e: { property: string }) => e.property === 'project_id'), reply.text);
});

test.run();
