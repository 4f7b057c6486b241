// Every action once through app.request() against the publishing example in PostgreSQL: statuses,
// the data wrapper, Location / ETag / Last-Modified, 304, projections, nested paths, relations, and
// the database's own refusals mapped to problems (409 unique and referenced, 422 references).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BASE, call, startApi, token, type Api } from './setup.ts';

let api: Api;
let admin: string;
/** Tag create overrides the API's admin scenario: only editors create tags. */
let editor: string;
let project: string;
const get = (path: string) => call(api.app, 'GET', path, { bearer: admin });

test.before(async () => {
  api = await startApi();
  admin = await token({ sub: 'u1', roles: ['admin'], email: 'a@example.com' });
  editor = await token({ sub: 'u2', roles: ['editor'], email: 'e@example.com' });
});
test.after(async () => api?.close());

test('create: 201, Location, ETag, data; the Owner is the token subject', async () => {
  const p = await call(api.app, 'POST', '/projects', { body: { name: 'Launch' }, bearer: admin });
  assert.is(p.status, 201, p.text);
  project = p.json.data.id;
  assert.is(p.headers.get('location'), `${BASE}/projects/${project}`);
  assert.match(p.headers.get('etag') ?? '', /^"[^"]+"$/);
  assert.equal(p.json.data, { id: project, name: 'Launch', owner_id: 'u1' });
  const post = await call(api.app, 'POST', `/projects/${project}/posts`, {
    body: { id: 'p1', title: 'Hello', meta: { address: { city: 'Paris', zip: '75001' }, priority: 2, labels: ['a'] }, rating: 4.5 }, bearer: admin,
  });
  assert.is(post.status, 201, post.text);
  assert.is(post.headers.get('etag'), '"1"', 'the Version property is the ETag');
  assert.is(post.headers.get('location'), `${BASE}/posts/p1`);
  assert.equal([post.json.data.project_id, post.json.data.author_id, post.json.data.status], [project, 'u1', 'draft']);
  const second = await call(api.app, 'POST', '/posts', { body: { id: 'p2', project_id: project, title: 'World', rating: 1 }, bearer: admin });
  assert.is(second.status, 201, second.text);
});

test('read: ETag and Last-Modified; If-None-Match gives 304; projections prune', async () => {
  const r = await get('/posts/p1');
  assert.is(r.status, 200);
  assert.is(r.headers.get('content-type'), 'application/json');
  assert.is(r.headers.get('etag'), '"1"');
  assert.ok(!Number.isNaN(Date.parse(r.headers.get('last-modified') ?? '')), 'Last-Modified is an HTTP date');
  assert.is(r.json.data.title, 'Hello');
  const cached = await call(api.app, 'GET', '/posts/p1', { bearer: admin, headers: { 'If-None-Match': '"1"' } });
  assert.equal([cached.status, cached.text, cached.headers.get('etag')], [304, '', '"1"']);
  const inc = await get('/posts/p1?include=id,meta.address.city');
  assert.equal(inc.json.data, { id: 'p1', meta: { address: { city: 'Paris' } } });
  const exc = await get('/posts/p1?exclude=meta.address,body,cover');
  assert.equal(exc.json.data.meta, { priority: 2, labels: ['a'] });
  assert.not.ok('body' in exc.json.data);
  assert.is((await get('/posts/nope')).status, 404);
  assert.is((await get(`/projects/${project}/posts/p1`)).status, 200);
  assert.is((await get('/projects/00000000-0000-0000-0000-000000000000/posts/p1')).status, 404, 'the parent must match');
});

test('list and search: data + meta, filters, sort, paging, projection', async () => {
  const all = await get('/posts?sort=-title&include=id');
  assert.equal(all.json, { data: [{ id: 'p2' }, { id: 'p1' }], meta: { total: 2, count: 'exact', page: 1, per_page: 25 } });
  assert.equal((await get('/posts?meta.address.city=Paris&include=id')).json.data, [{ id: 'p1' }]);
  assert.equal((await get('/posts?rating[gte]=2&include=id')).json.data, [{ id: 'p1' }]);
  assert.equal((await get('/posts?title[ilike]=w*&include=id')).json.data, [{ id: 'p2' }]);
  const second = (await get(`/projects/${project}/posts?per_page=1&page=2&sort=id&include=id`)).json;
  assert.equal(second, { data: [{ id: 'p2' }], meta: { total: 2, count: 'exact', page: 2, per_page: 1, prev: second.meta.prev } });
  const s = await call(api.app, 'POST', '/posts/search', {
    body: { where: { or: [{ 'meta.priority': { gt: 1 } }, { title: { eq: 'nothing' } }] }, include: ['id', 'title'] }, bearer: admin,
  });
  assert.equal([s.status, s.json.data], [200, [{ id: 'p1', title: 'Hello' }]]);
  assert.is(s.json.meta.total, 1);
  assert.equal((await call(api.app, 'POST', '/posts/search', { bearer: admin })).json.meta.total, 2, 'no body: everything');
});

test('replace and patch: 200 with the new ETag; JSON merges on patch', async () => {
  const patched = await call(api.app, 'PATCH', '/posts/p1', { body: { meta: { address: { zip: null }, priority: 3 } }, bearer: admin });
  assert.is(patched.status, 200, patched.text);
  assert.is(patched.headers.get('etag'), '"2"');
  assert.equal(patched.json.data.meta, { address: { city: 'Paris' }, priority: 3, labels: ['a'] });
  const replaced = await call(api.app, 'PUT', '/posts/p2', { body: { title: 'World 2' }, bearer: admin });
  assert.is(replaced.status, 200, replaced.text);
  assert.is(replaced.headers.get('etag'), '"2"');
  assert.equal([replaced.json.data.title, replaced.json.data.rating], ['World 2', null], 'omitted properties reset');
  const negative = await call(api.app, 'PATCH', '/posts/p1', { body: { meta: { priority: -1 } }, bearer: admin });
  assert.equal([negative.status, negative.json.errors?.[0]?.property], [422, 'meta'], 'a merge patch is still checked');
  assert.is((await call(api.app, 'PATCH', '/posts/p1', { body: { meta: 'text' }, bearer: admin })).status, 422);
  const changedKey = await call(api.app, 'PATCH', '/posts/p1', { body: { id: 'other' }, bearer: admin });
  assert.is(changedKey.status, 400, changedKey.text);
});

test('delete, restore and permanent delete', async () => {
  const del = await call(api.app, 'DELETE', '/posts/p2', { bearer: admin });
  assert.equal([del.status, del.text], [204, '']);
  assert.is((await get('/posts/p2')).status, 404);
  const restored = await call(api.app, 'POST', '/posts/p2/restore', { bearer: admin });
  assert.equal([restored.status, restored.json.data.id], [200, 'p2']);
  assert.ok(restored.headers.get('etag'));
  assert.is((await call(api.app, 'DELETE', `/projects/${project}/posts/p2?permanent=true`, { bearer: admin })).status, 204);
  assert.is((await call(api.app, 'POST', '/posts/p2/restore', { bearer: admin })).status, 404);
});

test('manyToMany: link 201 then 200, list with edges, unlink 204', async () => {
  assert.is((await call(api.app, 'POST', '/tags', { body: { slug: 'news', label: 'News' }, bearer: editor })).status, 201);
  const linked = await call(api.app, 'PUT', '/posts/p1/tags/news', { bearer: admin });
  assert.equal([linked.status, linked.json.data.tag_slug], [201, 'news']);
  assert.is((await call(api.app, 'PUT', '/posts/p1/tags/news', { bearer: admin })).status, 200);
  const listed = await get('/posts/p1/tags?include=slug,edge');
  assert.equal(listed.json, { data: [{ slug: 'news', edge: {} }], meta: { total: 1, count: 'exact', page: 1, per_page: 25 } });
  assert.is((await call(api.app, 'PUT', '/posts/p1/tags/none', { bearer: admin })).status, 404);
  assert.equal((await call(api.app, 'DELETE', '/posts/p1/tags/news', { bearer: admin })).status, 204);
  assert.is((await call(api.app, 'DELETE', '/posts/p1/tags/news', { bearer: admin })).status, 404);
  const user = await call(api.app, 'POST', '/users', { body: { email: 'M@Example.com', password: 'secret pw' } });
  assert.is(user.status, 201, user.text);
  assert.not.ok('password' in user.json.data, 'Password is never returned');
  const member = await call(api.app, 'PUT', `/projects/${project}/members/${user.json.data.id}`, { body: { role: 'editor', status: 'active' }, bearer: admin });
  assert.equal([member.status, member.json.data.role], [201, 'editor']);
  const members = await get(`/projects/${project}/members`);
  assert.equal(members.json.data[0].edge, { role: 'editor', status: 'active' });
});

test('oneToOne sub-resource: read and replace', async () => {
  const users = await get('/users?include=id');
  const id = users.json.data[0].id;
  const empty = await get(`/users/${id}/profile`);
  assert.equal([empty.status, empty.json.data.bio], [200, null]);
  // A profile is written as its user's update: "Users manage themselves" (the token's sub is the user).
  const self = await token({ sub: id, email: 'm@example.com' });
  const put = await call(api.app, 'PUT', `/users/${id}/profile`, { body: { bio: 'Writer' }, bearer: self });
  assert.equal([put.status, put.json.data.bio], [200, 'Writer']);
  assert.ok(put.headers.get('etag'));
  assert.is((await get(`/users/${id}/profile?include=bio`)).text, '{"data":{"bio":"Writer"}}');
  assert.is((await call(api.app, 'PUT', `/users/${id}/profile`, { body: { bio: 5 }, bearer: self })).status, 422);
});

test('database refusals: 409 unique, 422 references, 409 still referenced, 404 parent', async () => {
  const dup = await call(api.app, 'POST', '/tags', { body: { slug: 'news', label: 'Again' }, bearer: editor });
  assert.equal([dup.status, dup.json.code], [409, 'E_UNIQUE_VIOLATION']);
  assert.match(dup.json.detail, '"slug"');
  const email = await call(api.app, 'POST', '/users', { body: { email: 'm@example.com' } });
  assert.equal([email.status, email.json.code], [409, 'E_UNIQUE_VIOLATION']);
  assert.match(email.json.detail, '"email"');
  const orphan = await call(api.app, 'POST', '/posts', { body: { id: 'p9', project_id: 'missing', title: 'Orphan' }, bearer: admin });
  assert.equal([orphan.status, orphan.json.code, orphan.json.errors], [422, 'E_VALIDATION_ERROR',
    [{ property: 'project_id', rule: 'references', message: 'project_id refers to a record that does not exist' }]]);
  const held = await call(api.app, 'DELETE', `/projects/${project}`, { bearer: admin });
  assert.equal([held.status, held.json.code], [409, 'E_REFERENCED']);
  assert.not.match(held.text, 'violates');
  const noParent = await call(api.app, 'POST', '/projects/missing/posts', { body: { id: 'p8', title: 'x' }, bearer: admin });
  assert.equal([noParent.status, noParent.json.code], [404, 'E_NOT_FOUND']);
  const badComment = await get('/comments/abc');
  assert.is(badComment.status, 404);
  assert.equal(api.logged, []);
});

test.run();
