// Embedded to-one records (issue 12 item 2, first part): include=project on posts embeds the project,
// read under the projects' own rules as the caller: a stakeholder sees it, an anonymous reader gets null.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let project = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = dataOf(await api.post('/projects', { name: 'Embedded' }), 201).id;
  dataOf(await api.post('/posts', { id: 'e1', project_id: project, title: 'Public', status: 'draft' }), 201);
  dataOf(await api.patch('/posts/e1', { status: 'published' }), 200);
});
test.after(async () => api?.close());

test('read: the project for a stakeholder, null for an anonymous reader', async () => {
  const mine = dataOf(await api.get('/posts/e1?include=project'));
  assert.is(mine.project?.name, 'Embedded');
  assert.is(mine.title, 'Public', 'every property stays when include names only embeds');
  const anon = dataOf(await api.get('/posts/e1?include=project', { token: null }));
  assert.is(anon.title, 'Public');
  assert.is(anon.project, null, 'the project is hidden from this caller');
  assert.not.ok('project' in dataOf(await api.get('/posts/e1')), 'no embed unless asked');
});

test('list and search embed per row; include with other names keeps them and the embed', async () => {
  const listed = await api.get('/posts?id=e1&include=id,project');
  assert.equal(listed.body.data, [{ id: 'e1', project: { id: project, name: 'Embedded', owner_id: 'u-admin' } }]);
  const anon = await api.get('/posts?id=e1&include=id,project', { token: null });
  assert.equal(anon.body.data, [{ id: 'e1', project: null }]);
  const found = await api.post('/posts/search', { where: { id: { eq: 'e1' } }, include: ['project'] });
  assert.is(found.body.data[0].project.name, 'Embedded');
});

test('an embed name elsewhere is an unknown property', async () => {
  assert.is((await api.get('/posts/e1?exclude=project')).status, 400);
  assert.is((await api.patch('/posts/e1?include=project', { title: 'x' })).status, 400);
});

test.run();
