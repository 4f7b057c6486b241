// Spec table 2.2 over HTTP, each row for POST, PUT and PATCH: mutable, immutable, readOnly, and the
// two primary-key kinds; Required on create (422 listing the property); writeOnly never returned.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { assertFieldError, assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let project = '';
let other = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = dataOf(await api.post('/projects', { name: 'Main' }), 201).id;
  other = dataOf(await api.post('/projects', { name: 'Other' }), 201).id;
});
test.after(async () => api?.close());

const newPost = async (extra: Record<string, unknown> = {}) =>
  dataOf(await api.post('/posts', { project_id: project, title: 'T', ...extra }), 201) as Record<string, any>;

test('mutable (title): allowed on POST, PUT and PATCH', async () => {
  const post = await newPost({ title: 'created' });
  assert.is(post.title, 'created');
  assert.is(dataOf(await api.put(`/posts/${post.id}`, { title: 'replaced' })).title, 'replaced');
  assert.is(dataOf(await api.patch(`/posts/${post.id}`, { title: 'patched' })).title, 'patched');
});

test('immutable (project_id): accepted on POST; changing it on PUT or PATCH is 400 naming it', async () => {
  const post = await newPost();
  assert.is(post.project_id, project);
  assertProblem(await api.put(`/posts/${post.id}`, { title: 'T', project_id: other }), 400, api.docsUrl, { names: ['project_id'] });
  assertProblem(await api.patch(`/posts/${post.id}`, { project_id: other }), 400, api.docsUrl, { names: ['project_id'] });
  assert.is(dataOf(await api.get(`/posts/${post.id}`)).project_id, project);
  assert.is(dataOf(await api.get(`/posts/${post.id}`)).version, 1, 'refused updates do not write');
});

test('immutable: the same value again, or leaving it out, is no change', async () => {
  const post = await newPost();
  assert.is(dataOf(await api.put(`/posts/${post.id}`, { title: 'T2', project_id: project })).project_id, project);
  assert.is(dataOf(await api.patch(`/posts/${post.id}`, { project_id: project })).project_id, project);
  assert.is(dataOf(await api.put(`/posts/${post.id}`, { title: 'T3' })).project_id, project, 'PUT keeps an omitted immutable');
});

test('immutable on comments (post_id): 400 when changed', async () => {
  const a = await newPost();
  const b = await newPost();
  const c = dataOf(await api.post('/comments', { post_id: a.id, body: 'x' }), 201);
  assertProblem(await api.patch(`/comments/${c.id}`, { post_id: b.id }), 400, api.docsUrl, { names: ['post_id'] });
  assertProblem(await api.put(`/comments/${c.id}`, { post_id: b.id, body: 'y' }), 400, api.docsUrl, { names: ['post_id'] });
});

test('readOnly (author_id, created_at, updated_at, owner_id): 400 on POST, PUT and PATCH', async () => {
  const post = await newPost();
  const values: Record<string, unknown> = { author_id: 'someone', created_at: '2020-01-01T00:00:00Z', updated_at: '2020-01-01T00:00:00Z' };
  for (const [prop, value] of Object.entries(values)) {
    for (const v of [value, null]) {
      assertProblem(await api.post('/posts', { project_id: project, title: 'x', [prop]: v }), 400, api.docsUrl, { names: [prop] });
      assertProblem(await api.put(`/posts/${post.id}`, { title: 'x', [prop]: v }), 400, api.docsUrl, { names: [prop] });
      assertProblem(await api.patch(`/posts/${post.id}`, { [prop]: v }), 400, api.docsUrl, { names: [prop] });
    }
  }
  const proj = dataOf(await api.get(`/projects/${project}`));
  assertProblem(await api.post('/projects', { name: 'x', owner_id: 'me' }), 400, api.docsUrl, { names: ['owner_id'] });
  assertProblem(await api.patch(`/projects/${project}`, { owner_id: proj.owner_id }), 400, api.docsUrl, { names: ['owner_id'] });
  assertProblem(await api.put(`/projects/${project}`, { name: 'x', owner_id: proj.owner_id }), 400, api.docsUrl, { names: ['owner_id'] });
  const after = dataOf(await api.get(`/posts/${post.id}`));
  assert.is(after.author_id, post.author_id);
  assert.is(after.created_at, post.created_at);
  assert.is(after.version, 1);
});

test('primary + readOnly (server-generated id): 400 on POST, PUT and PATCH, even with the same value', async () => {
  assertProblem(await api.post('/projects', { id: 'mine', name: 'x' }), 400, api.docsUrl, { names: ['id'] });
  assertProblem(await api.put(`/projects/${project}`, { id: project, name: 'x' }), 400, api.docsUrl, { names: ['id'] });
  assertProblem(await api.patch(`/projects/${project}`, { id: project }), 400, api.docsUrl, { names: ['id'] });
  assertProblem(await api.post('/users', { id: 'u-1', email: 'id@example.com' }), 400, api.docsUrl, { names: ['id'] });
  const post = await newPost();
  assertProblem(await api.post('/comments', { id: 5, post_id: post.id, body: 'x' }), 400, api.docsUrl, { names: ['id'] });
  const c = dataOf(await api.post('/comments', { post_id: post.id, body: 'x' }), 201);
  assertProblem(await api.patch(`/comments/${c.id}`, { id: c.id }), 400, api.docsUrl, { names: ['id'] });
  assert.is(dataOf(await api.get(`/projects/${project}`)).name, 'Main');
});

test('primary + immutable (client-assignable key): accepted on POST, defaulted when omitted', async () => {
  const tag = dataOf(await api.post('/tags', { slug: 'given', label: 'Given' }), 201);
  assert.is(tag.slug, 'given');
  const generated = dataOf(await api.post('/tags', { label: 'No slug' }), 201);
  assert.type(generated.slug, 'string');
  assert.ok(generated.slug.length > 0);
  assert.is(dataOf(await api.get(`/tags/${generated.slug}`)).label, 'No slug');
  const post = await newPost({ id: 'client-key' });
  assert.is(post.id, 'client-key');
  const auto = await newPost();
  assert.ok(typeof auto.id === 'string' && auto.id.length > 0);
});

test('primary + immutable: changing the key on PUT or PATCH is 400; the same key is accepted', async () => {
  dataOf(await api.post('/tags', { slug: 'fixed', label: 'Fixed' }), 201);
  assertProblem(await api.put('/tags/fixed', { slug: 'moved', label: 'x' }), 400, api.docsUrl, { names: ['slug'] });
  assertProblem(await api.patch('/tags/fixed', { slug: 'moved' }), 400, api.docsUrl, { names: ['slug'] });
  assertProblem(await api.get('/tags/moved'), 404, api.docsUrl);
  assert.is(dataOf(await api.put('/tags/fixed', { slug: 'fixed', label: 'Same key' })).label, 'Same key');
  assert.is(dataOf(await api.patch('/tags/fixed', { slug: 'fixed', label: 'Again' })).label, 'Again');
  assertProblem(await api.patch('/posts/client-key', { id: 'other-key' }), 400, api.docsUrl, { names: ['id'] });
});

test('required on create: 422 listing every missing property', async () => {
  const empty = await api.post('/posts', {});
  assertProblem(empty, 422, api.docsUrl);
  assertFieldError(empty, 'title', 'required');
  assertFieldError(empty, 'project_id', 'required');
  const noTitle = await api.post('/posts', { project_id: project });
  assertFieldError(noTitle, 'title', 'required');
  assert.not.ok(noTitle.body.errors.some((e: { property: string }) => e.property === 'project_id'));
  const nested = await api.post(`/projects/${project}/posts`, {});
  assertProblem(nested, 422, api.docsUrl);
  assert.equal(nested.body.errors.map((e: { property: string }) => e.property), ['title'], 'the parent key comes from the path');
  assertFieldError(await api.post('/comments', {}), 'body', 'required');
  assertFieldError(await api.post('/users', { password: 'x' }), 'email', 'required');
  assertFieldError(await api.post('/tags', { slug: 'nolabel' }), 'label', 'required');
});

test('required on update: PUT without it, or null on PATCH, is 422', async () => {
  const post = await newPost();
  const put = await api.put(`/posts/${post.id}`, { body: 'no title' });
  assertProblem(put, 422, api.docsUrl);
  assertFieldError(put, 'title');
  const patch = await api.patch(`/posts/${post.id}`, { title: null });
  assertProblem(patch, 422, api.docsUrl);
  assertFieldError(patch, 'title');
  assert.is(dataOf(await api.get(`/posts/${post.id}`)).title, 'T');
});

test('writeOnly / Password: accepted, stored hashed, never in any response', async () => {
  const created = await api.post('/users', { email: 'pw@example.com', password: 'hunter2-long', display_name: 'PW' });
  const user = dataOf(created, 201);
  // Users update themselves only ("Users manage themselves"): the token's sub is the user.
  const token = await api.token({ sub: user.id });
  const replies = [
    created,
    await api.get(`/users/${user.id}`),
    await api.put(`/users/${user.id}`, { email: 'pw@example.com', password: 'new-one', display_name: 'PW' }, { token }),
    await api.patch(`/users/${user.id}`, { password: 'newer-one' }, { token }),
    await api.get('/users'),
    await api.get('/users?include=id,email'),
    await api.get('/users?exclude=email'),
    await api.post('/users/search', { where: { email: { eq: 'pw@example.com' } } }),
  ];
  expectStatus(await api.put(`/projects/${project}/members/${user.id}`, { role: 'viewer' }), [200, 201]);
  replies.push(await api.get(`/projects/${project}/members`));
  for (const reply of replies) {
    expectStatus(reply, [200, 201]);
    assert.not.ok(reply.text.includes('password'), `${reply.path}: ${reply.text.slice(0, 300)}`);
    assert.not.ok(/hunter2|new-one|newer-one|\$2[aby]\$/.test(reply.text), `${reply.path} leaks the password or its hash`);
  }
  const [row] = await api.db.sql`select password from app.users where id = ${user.id}`;
  assert.match(String(row?.password), /^\$2[aby]\$10\$/, 'stored as a bcrypt hash');
});

test('writeOnly / Password cannot be filtered, sorted or projected (400)', async () => {
  for (const path of ['/users?password=x', '/users?password[null]=false', '/users?sort=password', '/users?include=password', '/users?exclude=password']) {
    assertProblem(await api.get(path), 400, api.docsUrl, { names: ['password'] });
  }
  assertProblem(await api.post('/users/search', { where: { password: { like: '$2%' } } }), 400, api.docsUrl, { names: ['password'] });
});

test.run();
