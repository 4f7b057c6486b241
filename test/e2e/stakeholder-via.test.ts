// matchProjectStakeholder with `via`: an entity outside the project's parent chain (a Tag) follows one of its
// references to the project; the caller must own or be a member of that project, for reads, lists and writes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

const model = JSON.parse(readFileSync('examples/publishing.model.json', 'utf8'));
model.entities.Tag = {
  collection: 'tags',
  properties: {
    slug: { type: 'String', primary: true, immutable: true },
    label: { type: 'String', required: true },
    project_id: { type: 'String', required: true, references: 'Project' },
  },
  scenarios: [{ label: 'Stakeholders of its project', predicate: { style: 'and', children: [
    { type: 'allowAuthenticated' }, { type: 'matchProjectStakeholder', via: 'project_id' }] } }],
};

let api: RunningApi;
test.before(async () => {
  api = await startApi(model);
});
test.after(async () => api?.close());

test('a Tag is its project\'s stakeholders\' to read, list and write; a member added later sees it', async () => {
  const signUp = async (email: string) => dataOf(await api.post('/users', { email, password: 'correct horse' }, { token: null }), 201).id as string;
  const alice = await api.token({ sub: await signUp('alice@example.com'), roles: [] });
  const bobId = await signUp('bob@example.com');
  const bob = await api.token({ sub: bobId, roles: [] });
  const project = dataOf(await api.post('/projects', { name: 'Alice\'s' }, { token: alice }), 201).id;
  dataOf(await api.post('/tags', { slug: 'mine', label: 'Mine', project_id: project }, { token: alice }), 201);
  expectStatus(await api.post('/tags', { slug: 'bobs', label: 'Not his', project_id: project }, { token: bob }), 403);
  expectStatus(await api.get('/tags/mine', { token: bob }), 403);
  assert.equal(dataOf(await api.get('/tags', { token: bob })), []);
  expectStatus(await api.patch('/tags/mine', { label: 'Taken' }, { token: bob }), 403);
  expectStatus(await api.put(`/projects/${project}/members/${bobId}`, { role: 'editor', status: 'active' }, { token: alice }), 201);
  assert.is(dataOf(await api.get('/tags/mine', { token: bob })).label, 'Mine');
  assert.equal(dataOf(await api.get('/tags', { token: bob })).map((t: { slug: string }) => t.slug), ['mine']);
  assert.is(dataOf(await api.patch('/tags/mine', { label: 'Shared' }, { token: bob })).label, 'Shared');
  // Judged on the existing record: Alice moves the tag to Bob's project, of which she is no member (was a 403 naming nothing).
  const bobs = dataOf(await api.post('/projects', { name: 'Bob\'s' }, { token: bob }), 201).id;
  assert.is(dataOf(await api.patch('/tags/mine', { project_id: bobs }, { token: alice })).project_id, bobs);
  expectStatus(await api.get('/tags/mine', { token: alice }), 403);
  assert.is(dataOf(await api.get('/tags/mine', { token: bob })).project_id, bobs);
});

test.run();
