// Access answers on single records, with a small model: a stale If-Match on a record whose or-scenario one
// branch admits is 412, not 403 naming a rule of the branch it did not need; a restore of a live record
// answers it only when the restore scenario's rules hold for it; a child is created or moved only under a
// parent the caller may read, by its flat path as by its nested one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

const and = (...children: object[]) => ({ style: 'and', children });
const or = (...children: object[]) => ({ style: 'or', children });
const signedIn = { type: 'allowAuthenticated' };

const MODEL = {
  api: { slug: 'answers', version: 'v1', title: 'Access answers', docsUrl: 'https://answers.example.com/docs', strategy: 'RBAC' },
  entities: {
    Note: {
      collection: 'notes',
      properties: {
        id: { type: 'String', primary: true },
        owner_id: { type: 'String', readOnly: true, modules: { Owner: {} } },
        version: { type: 'Number', modules: { Version: {} } },
        body: { type: 'String' },
        kind: { type: 'String', enum: ['public', 'private'], defaultValue: 'private' },
      },
      scenarios: [{
        label: 'Owners, or anyone on public notes',
        predicate: or(and(signedIn, { type: 'matchResourceOwner' }), and(signedIn, { type: 'matchResourceAttribute', attribute: 'kind', values: ['public'] })),
      }],
    },
    Reply: {
      collection: 'replies', parent: { entity: 'Note', property: 'note_id' },
      properties: { id: { type: 'String', primary: true }, note_id: { type: 'String', references: 'Note', required: true }, text: { type: 'String' } },
      scenarios: [{ label: 'Anyone signed in', predicate: and(signedIn) }],
    },
    Memo: {
      collection: 'memos', softDelete: true,
      properties: {
        id: { type: 'String', primary: true },
        owner_id: { type: 'String', readOnly: true, modules: { Owner: {} } },
        body: { type: 'String' },
        status: { type: 'String', enum: ['open', 'archived'], defaultValue: 'open', modules: { Status: { initialStatuses: ['open', 'archived'] } } },
        kind: { type: 'String', enum: ['public', 'private'], defaultValue: 'private' },
      },
      scenarios: [{ label: 'Owners', predicate: and(signedIn, { type: 'matchResourceOwner' }) }],
      actions: {
        restore: { scenarios: [{ label: 'Anyone restores archived memos', predicate: and(signedIn, { type: 'lifecycleStatus', allowedStatuses: ['archived'] }) }] },
      },
    },
    Task: {
      collection: 'tasks',
      properties: { id: { type: 'String', primary: true }, title: { type: 'String' }, assignee: { type: 'String' } },
      scenarios: [{ label: 'Assignees handle their tasks', predicate: and(signedIn, { type: 'matchResourceOwner', property: 'assignee' }) }],
    },
    Tail: {
      collection: 'tails', parent: { entity: 'Memo', property: 'memo_id' },
      properties: { id: { type: 'String', primary: true }, memo_id: { type: 'String', references: 'Memo', required: true } },
      scenarios: [{ label: 'Anyone signed in', predicate: and(signedIn) }],
    },
  },
};

let api: RunningApi;
const as = async (sub: string) => ({ token: await api.token({ sub }) });
test.before(async () => {
  api = await startApi(MODEL);
});
test.after(async () => api?.close());

test('a stale If-Match is 412 when one or-branch admits the record, though a rule of another fails', async () => {
  const alice = await as('alice');
  dataOf(await api.post('/notes', { id: 'private-1', body: 'mine' }, alice), 201);
  const stale = { ...alice, headers: { 'If-Match': '"7"' } };
  for (const [method, body] of [['PATCH', { body: 'x' }], ['PUT', { body: 'x' }], ['DELETE', undefined]] as const) {
    const r = await api.call(method, '/notes/private-1', { ...stale, ...(body ? { body } : {}) });
    expectStatus(r, 412);
  }
  // Someone the record's rules reject is still refused (403), naming what fails.
  const bob = await as('bob');
  const r = await api.call('PATCH', '/notes/private-1', { token: bob.token, body: { body: 'x' }, headers: { 'If-Match': '"1"' } });
  expectStatus(r, 403);
  assert.match(r.body.detail, /matchResourceOwner, matchResourceAttribute \(kind in public\) does not hold/);
  assert.equal(api.serverErrors, []);
});

test('a restore of a live record is judged by the restore scenario: lifecycle and attribute rules hold for it', async () => {
  const alice = await as('alice'), bob = await as('bob');
  dataOf(await api.post('/memos', { id: 'open-1', body: 'alice only' }, alice), 201);
  expectStatus(await api.get('/memos/open-1', bob), 403);
  // Bob's restore scenario admits archived memos only: this one is open, so it is not his to see.
  const r = await api.post('/memos/open-1/restore', undefined, bob);
  expectStatus(r, 403);
  assert.not.match(r.text, /alice only/);
  assert.match(r.body.detail, /lifecycleStatus \(allowed: archived\) does not hold/);
  // An archived one, live or deleted, is his to restore, as the scenario says.
  dataOf(await api.post('/memos', { id: 'archived-1', body: 'old', status: 'archived' }, alice), 201);
  assert.is(dataOf(await api.post('/memos/archived-1/restore', undefined, bob)).id, 'archived-1');
  expectStatus(await api.del('/memos/archived-1', alice), 204);
  assert.is(dataOf(await api.post('/memos/archived-1/restore', undefined, bob)).id, 'archived-1');
  assert.equal(api.serverErrors, []);
});

test('a child goes only under a parent the caller may read: flat create, bulk, batch and a move as the nested path', async () => {
  const alice = await as('alice'), bob = await as('bob');
  dataOf(await api.post('/notes', { id: 'alice-private', body: 'hidden' }, alice), 201);
  dataOf(await api.post('/notes', { id: 'bob-own', body: 'his' }, bob), 201);
  const hidden = /Scenario "Owners, or anyone on public notes" .* does not allow you to read this Note/;
  assert.match((await api.post('/notes/alice-private/replies', { id: 'r-nested', text: 'planted' }, bob)).body.detail, hidden);
  const flat = await api.post('/replies', { id: 'r-flat', note_id: 'alice-private', text: 'planted' }, bob);
  expectStatus(flat, 403);
  assert.match(flat.body.detail, hidden);
  assert.match(flat.body.detail, /matchResourceOwner, matchResourceAttribute \(kind in public\) does not hold/);
  expectStatus(await api.post('/replies', [{ id: 'r-bulk', note_id: 'bob-own' }, { id: 'r-bulk2', note_id: 'alice-private' }], bob), 403);
  const batch = await api.post('/batch', { operations: [{ method: 'POST', path: '/replies', body: { id: 'r-batch', note_id: 'alice-private' } }] }, bob);
  expectStatus(batch, 403);
  // A missing parent stays the foreign key's 422; his own note takes replies, and one cannot move into hers.
  expectStatus(await api.post('/replies', { id: 'r-none', note_id: 'nobody' }, bob), 422);
  dataOf(await api.post('/replies', { id: 'r-own', note_id: 'bob-own', text: 'fine' }, bob), 201);
  expectStatus(await api.patch('/replies/r-own', { note_id: 'alice-private' }, bob), 403);
  expectStatus(await api.patch('/replies/r-own', { text: 'still fine' }, bob), 200);
  const planted = await api.db.sql`SELECT id FROM app.replies WHERE note_id = 'alice-private'`;
  assert.equal(planted.length, 0);
  assert.equal(api.serverErrors, []);
});

test('a child goes under no soft-deleted parent by any path: 422 on the flat one, 404 on the nested one; restored, it takes children', async () => {
  const alice = await as('alice');
  dataOf(await api.post('/memos', { id: 'm-gone', body: 'soon deleted', status: 'archived' }, alice), 201);
  expectStatus(await api.del('/memos/m-gone', alice), 204);
  const flat = await api.post('/tails', { id: 't-flat', memo_id: 'm-gone' }, alice);
  expectStatus(flat, 422);
  assert.match(flat.body.errors?.[0]?.message ?? flat.body.detail, /refers to a deleted Memo/);
  expectStatus(await api.post('/memos/m-gone/tails', { id: 't-nested' }, alice), 404);
  dataOf(await api.post('/memos/m-gone/restore', undefined, alice));
  dataOf(await api.post('/tails', { id: 't-after', memo_id: 'm-gone' }, alice), 201);
  assert.equal(api.serverErrors, []);
});

test('an update is judged on the existing record: an assignee hands her task to someone else (200), and then it is theirs', async () => {
  const alice = await as('alice'), bob = await as('bob');
  dataOf(await api.post('/tasks', { id: 'handover', title: 'Write', assignee: 'alice' }, alice), 201);
  expectStatus(await api.patch('/tasks/handover', { title: 'Not mine' }, bob), 403);
  // The row the update made no longer passes her SELECT policy: PostgreSQL refused the RETURNING (42501, a 403 naming nothing).
  assert.is(dataOf(await api.patch('/tasks/handover', { assignee: 'bob' }, alice)).assignee, 'bob');
  expectStatus(await api.get('/tasks/handover', alice), 403);
  assert.is(dataOf(await api.put('/tasks/handover', { title: 'Back', assignee: 'alice' }, bob)).assignee, 'alice');
  assert.equal(dataOf(await api.get('/tasks', bob)), [], 'a list judges the rows as they are');
  assert.equal(dataOf(await api.get('/tasks', alice)).map((t: { id: string }) => t.id), ['handover']);
});

test.run();
