// Relations over HTTP: nested collection paths (the parent must exist), the 1:1 profile sub-resource,
// and link / unlink / list linked records for posts/tags and projects/members with Membership edges.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { assertFieldError, assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let p1 = '';
let p2 = '';
let ann = '';
let bob = '';
/** Profiles are written by their users only ("Users manage themselves": the token's sub is the user). */
const self = (id: string) => api.token({ sub: id });
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  p1 = dataOf(await api.post('/projects', { name: 'One' }), 201).id;
  p2 = dataOf(await api.post('/projects', { name: 'Two' }), 201).id;
  ann = dataOf(await api.post('/users', { email: 'ann@example.com', password: 'pw-ann', display_name: 'Ann' }), 201).id;
  bob = dataOf(await api.post('/users', { email: 'bob@example.com', password: 'pw-bob', display_name: 'Bob' }), 201).id;
  for (const [id, project] of [['a1', p1], ['a2', p1], ['b1', p2]]) {
    dataOf(await api.post('/posts', { id, project_id: project, title: `Post ${id}` }), 201);
  }
  for (const slug of ['news', 'tips', 'misc']) dataOf(await api.post('/tags', { slug, label: slug.toUpperCase() }), 201);
});
test.after(async () => api?.close());

const ids = (rows: Array<{ id: string }>) => rows.map((r) => r.id);

test('nested list /projects/{id}/posts holds only that project\'s posts', async () => {
  const reply = await api.get(`/projects/${p1}/posts?sort=id`);
  assert.equal(ids(dataOf(reply)), ['a1', 'a2']);
  assert.equal(reply.body.meta, { total: 2, count: 'exact', page: 1, per_page: 25 });
  assert.equal(ids(dataOf(await api.get(`/projects/${p2}/posts`))), ['b1']);
});

test('nested paths with a missing parent are 404', async () => {
  for (const path of ['/projects/missing/posts', '/projects/missing/posts/a1', '/posts/missing/comments']) {
    assertProblem(await api.get(path), 404, api.docsUrl);
  }
  assertProblem(await api.post('/projects/missing/posts', { title: 'x' }), 404, api.docsUrl);
});

test('nested read/update/delete of a record under another parent is 404', async () => {
  assert.is(dataOf(await api.get(`/projects/${p1}/posts/a1`)).id, 'a1');
  assertProblem(await api.get(`/projects/${p2}/posts/a1`), 404, api.docsUrl);
  assertProblem(await api.put(`/projects/${p2}/posts/a1`, { title: 'moved?' }), 404, api.docsUrl);
  assertProblem(await api.del(`/projects/${p2}/posts/a1`), 404, api.docsUrl);
  assert.is(dataOf(await api.get('/posts/a1')).title, 'Post a1');
});

test('nested create takes the parent from the path; comments nest under posts', async () => {
  const post = dataOf(await api.post(`/projects/${p2}/posts`, { id: 'b2', title: 'Nested' }), 201);
  assert.is(post.project_id, p2);
  const comment = dataOf(await api.post('/posts/b2/comments', { body: 'first!' }), 201);
  assert.is(comment.post_id, 'b2');
  assert.equal(dataOf(await api.get('/posts/b2/comments')).map((c: { body: string }) => c.body), ['first!']);
  assert.equal(dataOf(await api.get('/posts/a1/comments')), []);
  assert.is(dataOf(await api.get(`/posts/b2/comments/${comment.id}`)).body, 'first!');
  assertProblem(await api.get(`/posts/a1/comments/${comment.id}`), 404, api.docsUrl);
});

test('a soft-deleted parent hides its nested collection (404)', async () => {
  dataOf(await api.post(`/projects/${p2}/posts`, { id: 'gone', title: 'Gone' }), 201);
  dataOf(await api.post('/posts/gone/comments', { body: 'c' }), 201);
  assert.is((await api.del('/posts/gone')).status, 204);
  assertProblem(await api.get('/posts/gone/comments'), 404, api.docsUrl);
});

test('1:1 sub-resource: GET before any write gives every property null', async () => {
  const reply = await api.get(`/users/${ann}/profile`);
  const data = dataOf(reply);
  assert.is(data.bio, null);
  assert.is(data.avatar, null);
});

test('1:1 sub-resource: PUT creates then replaces; GET returns it', async () => {
  const put = await api.put(`/users/${ann}/profile`, { bio: 'Writes about databases.' }, { token: await self(ann) });
  assert.is(dataOf(put).bio, 'Writes about databases.');
  assert.is(dataOf(await api.get(`/users/${ann}/profile`)).bio, 'Writes about databases.');
  const again = await api.put(`/users/${ann}/profile`, {}, { token: await self(ann) });
  assert.is(dataOf(again).bio, null, 'PUT replaces: an omitted property is reset');
  assert.is(dataOf(await api.get(`/users/${bob}/profile`)).bio, null, 'profiles are per user');
});

test('1:1 sub-resource: a PUT advances the parent record\'s ETag', async () => {
  const before = (await api.get(`/users/${bob}`)).headers.get('etag');
  expectStatus(await api.put(`/users/${bob}/profile`, { bio: 'Bob' }, { token: await self(bob) }), 200);
  const after = (await api.get(`/users/${bob}`)).headers.get('etag');
  assert.ok(before && after, 'users have an ETag');
  assert.is.not(after, before, 'design.md 5: "a PUT advances the parent\'s ETag"');
});

test('1:1 sub-resource: missing owner 404; bad bodies refused', async () => {
  assertProblem(await api.get('/users/missing/profile'), 404, api.docsUrl);
  assertProblem(await api.put('/users/missing/profile', { bio: 'x' }), 404, api.docsUrl);
  assertProblem(await api.put(`/users/${ann}/profile`, { nope: 1 }), 400, api.docsUrl, { names: ['nope'] });
  const wrongType = await api.put(`/users/${ann}/profile`, { bio: 42 });
  assertProblem(wrongType, 422, api.docsUrl);
  assertFieldError(wrongType, 'bio');
  assertProblem(await api.call('POST', `/users/${ann}/profile`, { body: {} }), 405, api.docsUrl, { code: 'E_METHOD_NOT_ALLOWED' });
});

test('link posts/tags: PUT creates the link, GET lists linked tags, DELETE unlinks', async () => {
  const first = await api.put('/posts/a1/tags/news');
  expectStatus(first, [200, 201]);
  assert.is(first.status, 201, 'a new link is created');
  const again = await api.put('/posts/a1/tags/news');
  assert.is(again.status, 200, 'linking again is idempotent');
  expectStatus(await api.put('/posts/a1/tags/tips'), 201);
  const linked = await api.get('/posts/a1/tags');
  const rows = dataOf(linked);
  assert.equal(rows.map((t: { slug: string }) => t.slug), ['news', 'tips']);
  assert.is(rows[0].label, 'NEWS');
  assert.equal(linked.body.meta, { total: 2, count: 'exact', page: 1, per_page: 25 });
  assert.equal(dataOf(await api.get('/posts/a2/tags')), []);
  const paged = await api.get('/posts/a1/tags?per_page=1&page=2');
  assert.equal(dataOf(paged).map((t: { slug: string }) => t.slug), ['tips']);
  assert.is(paged.body.meta.total, 2);

  const unlink = await api.del('/posts/a1/tags/news');
  assert.is(unlink.status, 204);
  assert.is(unlink.text, '');
  assert.equal(dataOf(await api.get('/posts/a1/tags')).map((t: { slug: string }) => t.slug), ['tips']);
  assertProblem(await api.del('/posts/a1/tags/news'), 404, api.docsUrl);
});

test('If-Match on link and unlink: a link has no ETag, so only * on an existing link matches (else 412)', async () => {
  const match = (v: string) => ({ headers: { 'If-Match': v } });
  assertProblem(await api.put('/posts/a2/tags/misc', undefined, match('*')), 412, api.docsUrl, { code: 'E_PRECONDITION_FAILED' });
  assert.equal(dataOf(await api.get('/posts/a2/tags')), [], 'nothing linked');
  expectStatus(await api.put('/posts/a2/tags/misc'), 201);
  assertProblem(await api.put('/posts/a2/tags/misc', undefined, match('"nope"')), 412, api.docsUrl);
  assert.is((await api.put('/posts/a2/tags/misc', undefined, match('*'))).status, 200);
  assertProblem(await api.put(`/projects/${p2}/members/${ann}`, { role: 'viewer' }, match('"1"')), 412, api.docsUrl);
  const unlinking = assertProblem(await api.del('/posts/a2/tags/misc', match('"nope"')), 412, api.docsUrl);
  // Spec 7: a 412's hint advises fetching the latest resource, for a link as for a record.
  for (const body of [unlinking, assertProblem(await api.put('/posts/a2/tags/misc', undefined, match('"nope"')), 412, api.docsUrl)]) {
    assert.match(body.hint ?? '', /^Fetch the linked records again/, JSON.stringify(body));
  }
  assert.equal(dataOf(await api.get('/posts/a2/tags')).map((t: { slug: string }) => t.slug), ['misc'], 'still linked');
  // If-Unmodified-Since has no modification time to compare on a link: it does not stop the unlink.
  assert.is((await api.del('/posts/a2/tags/misc', { headers: { 'If-Unmodified-Since': 'Mon, 01 Jan 2001 00:00:00 GMT' } })).status, 204);
  assertProblem(await api.del('/posts/a2/tags/misc', match('"nope"')), 404, api.docsUrl, { code: 'E_NOT_FOUND' });
  expectStatus(await api.put('/posts/a2/tags/misc'), 201);
  assert.is((await api.del('/posts/a2/tags/misc', match('*'))).status, 204);
});

test('link with a missing record on either side is 404', async () => {
  assertProblem(await api.put('/posts/a1/tags/no-such-tag'), 404, api.docsUrl);
  assertProblem(await api.put('/posts/no-such-post/tags/news'), 404, api.docsUrl);
  assertProblem(await api.get('/posts/no-such-post/tags'), 404, api.docsUrl);
  assertProblem(await api.del('/posts/no-such-post/tags/news'), 404, api.docsUrl);
  assertProblem(await api.put('/posts/a1/tags/news', { role: 'editor' }), 400, api.docsUrl, { names: ['role'] });
});

test('members: link with Membership edge properties; listing shows users with their edge', async () => {
  const linked = await api.put(`/projects/${p1}/members/${ann}`, { role: 'editor', status: 'invited' });
  expectStatus(linked, 201);
  assert.is(linked.body.data.role, 'editor');
  assert.is(linked.body.data.status, 'invited');
  expectStatus(await api.put(`/projects/${p1}/members/${bob}`, { role: 'viewer' }), 201);
  const list = await api.get(`/projects/${p1}/members`);
  const rows = dataOf(list);
  const byEmail = Object.fromEntries(rows.map((r: { email: string }) => [r.email, r]));
  assert.equal(byEmail['ann@example.com'].edge, { role: 'editor', status: 'invited' });
  assert.equal(byEmail['bob@example.com'].edge, { role: 'viewer', status: null });
  for (const r of rows) assert.not.ok('password' in r, 'no password in linked users');
  assert.is(list.body.meta.total, 2);
});

test('members: listing pages and projects user properties and edge paths', async () => {
  const reply = await api.get(`/projects/${p1}/members?include=email,edge.role&per_page=1`);
  const rows = dataOf(reply);
  assert.is(rows.length, 1);
  assert.equal(Object.keys(rows[0]).sort(), ['edge', 'email']);
  assert.equal(Object.keys(rows[0].edge), ['role']);
  assert.is(reply.body.meta.total, 2);
  assertProblem(await api.get(`/projects/${p1}/members?include=password`), 400, api.docsUrl, { names: ['password'] });
  // Edge paths name the relation's edge properties, as other paths name properties.
  assertProblem(await api.get(`/projects/${p1}/members?include=edge.rank`), 400, api.docsUrl, { names: ['edge.rank'] });
  assertProblem(await api.get(`/projects/${p1}/members?exclude=edge.role.x`), 400, api.docsUrl, { names: ['edge.role.x'] });
  assertProblem(await api.get('/posts/a1/tags?include=edge.x'), 400, api.docsUrl, { names: ['edge.x'] });
  expectStatus(await api.get(`/projects/${p1}/members?exclude=edge.status`), 200);
  assertProblem(await api.get(`/projects/${p1}/members?per_page=101`), 400, api.docsUrl, { names: ['per_page'] });
});

test('members: PUT again replaces the edge properties', async () => {
  const reply = await api.put(`/projects/${p1}/members/${ann}`, { role: 'viewer', status: 'active' });
  assert.is(reply.status, 200);
  const rows = dataOf(await api.get(`/projects/${p1}/members`));
  const annRow = rows.find((r: { id: string }) => r.id === ann);
  assert.equal(annRow.edge, { role: 'viewer', status: 'active' });
});

test('members: edge enums are validated (422 naming role or status); nothing is linked', async () => {
  const owner = await api.put(`/projects/${p2}/members/${ann}`, { role: 'owner' });
  assertProblem(owner, 422, api.docsUrl);
  assertFieldError(owner, 'role');
  const status = await api.put(`/projects/${p2}/members/${ann}`, { role: 'editor', status: 'banned' });
  assertProblem(status, 422, api.docsUrl);
  assertFieldError(status, 'status');
  assertProblem(await api.put(`/projects/${p2}/members/${ann}`, { role: 7 }), 422, api.docsUrl);
  assertProblem(await api.put(`/projects/${p2}/members/${ann}`, { level: 'x' }), 400, api.docsUrl, { names: ['level'] });
  assert.equal(dataOf(await api.get(`/projects/${p2}/members`)), []);
  const changed = await api.put(`/projects/${p1}/members/${bob}`, { role: 'admin' });
  assertProblem(changed, 422, api.docsUrl);
  const bobRow = dataOf(await api.get(`/projects/${p1}/members`)).find((r: { id: string }) => r.id === bob);
  assert.is(bobRow.edge.role, 'viewer', 'a refused edge change leaves the link as it was');
});

test('members: unlink, and unknown relations are 404 routes', async () => {
  assert.is((await api.del(`/projects/${p1}/members/${bob}`)).status, 204);
  assert.equal(dataOf(await api.get(`/projects/${p1}/members`)).map((r: { id: string }) => r.id), [ann]);
  assertProblem(await api.get(`/projects/${p1}/owners`), 404, api.docsUrl);
  assertProblem(await api.put(`/projects/${p1}/members/${bob}/extra`), 404, api.docsUrl);
  assertProblem(await api.call('POST', `/projects/${p1}/members`, { body: {} }), 405, api.docsUrl, { code: 'E_METHOD_NOT_ALLOWED' });
});

test('deleting a record removes its links (join rows cascade)', async () => {
  dataOf(await api.post('/tags', { slug: 'temp', label: 'Temp' }), 201);
  expectStatus(await api.put('/posts/a2/tags/temp'), 201);
  assert.is((await api.del('/tags/temp')).status, 204);
  assert.equal(dataOf(await api.get('/posts/a2/tags')), []);
});

test.run();
