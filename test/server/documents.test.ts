// PATCH of a JSON property that has a JSON Schema: the SQL merges (RFC 7396) and the gateway checks
// the merged document before commit, so a patch cannot leave a document its schema rejects.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, startApi, token, type Api } from './setup.ts';
import { testApi } from '../harness/fixtures.ts';

let api: Api;
let project: string;
// The publishing model's access scenarios let an administrator create and edit every post.
let bearer: string;
test.before(async () => {
  api = await startApi();
  bearer = await token({ sub: 'u1', roles: ['admin'] });
  project = (await call(api.app, 'POST', '/projects', { body: { name: 'Docs' }, bearer })).json.data.id;
});
test.after(async () => api?.close());

const post = async (id: string, meta: unknown) =>
  call(api.app, 'POST', '/posts', { body: { id, title: id, project_id: project, meta }, bearer });

test('a merge patch whose result matches the schema is applied', async () => {
  await post('m1', { priority: 1, address: { city: 'Oslo' } });
  const res = await call(api.app, 'PATCH', '/posts/m1', { body: { meta: { address: { zip: '0150' }, priority: null } }, bearer });
  assert.is(res.status, 200, res.text);
  assert.equal(res.json.data.meta, { address: { city: 'Oslo', zip: '0150' } });
});

test('a merge patch whose result breaks the schema is 422 and rolled back', async () => {
  const strict = await startApi({
    api: testApi('docs'),
    entities: {
      Card: {
        collection: 'cards',
        properties: {
          id: { type: 'String', primary: true },
          spec: { type: 'JSON', schema: { type: 'object', required: ['kind'], properties: { kind: { type: 'string' }, size: { type: 'integer' } } } },
          rev: { type: 'Number', modules: { Version: {} } },
        },
      },
    },
  });
  try {
    assert.is((await call(strict.app, 'POST', '/api/docs/v1/cards', { body: { id: 'c1', spec: { kind: 'a', size: 1 } } })).status, 201);
    // A valid patch on its own (it only removes a member), but the merged document lacks `kind`.
    const res = await call(strict.app, 'PATCH', '/api/docs/v1/cards/c1', { body: { spec: { kind: null } } });
    assert.is(res.status, 422, res.text);
    assert.is(res.json.code, 'E_VALIDATION_ERROR');
    assert.ok(res.json.errors.some((e: any) => e.property === 'spec' && e.rule === 'required' && /merge patch/.test(e.message)), res.text);
    const [row] = await strict.db.sql`select spec, rev from app.cards where id = 'c1'`;
    assert.equal({ ...row }, { spec: { kind: 'a', size: 1 }, rev: 1 }, 'rolled back: document and version unchanged');
    const ok = await call(strict.app, 'PATCH', '/api/docs/v1/cards/c1', { body: { spec: { size: null } } });
    assert.is(ok.status, 200, ok.text);
    assert.equal(ok.json.data.spec, { kind: 'a' });
  } finally {
    await strict.close();
  }
});

test('If-Match: strong list compared in SQL; weak tags never match; malformed is 400', async () => {
  const created = await post('m3', {});
  assert.is(created.headers.get('etag'), '"1"');
  const ok = await call(api.app, 'PATCH', '/posts/m3', { body: { title: 'x' }, bearer, headers: { 'If-Match': '"9", "1"' } });
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.headers.get('etag'), '"2"');
  const weak = await call(api.app, 'PATCH', '/posts/m3', { body: { title: 'y' }, bearer, headers: { 'If-Match': 'W/"2"' } });
  assert.is(weak.status, 412, weak.text);
  assert.is(weak.json.title, 'Precondition Failed');
  assert.ok(weak.json.hint, 'the 412 carries the recovery hint');
  const bad = await call(api.app, 'PATCH', '/posts/m3', { body: { title: 'y' }, bearer, headers: { 'If-Match': '2' } });
  assert.is(bad.status, 400, bad.text);
});

test.run();
