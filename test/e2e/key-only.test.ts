// An entity whose every property the server fills (a readOnly key alone, here an identity column; a container
// of relations and children): its create had an empty INSERT column list, a syntax error that failed the whole
// install, and a PUT set the identity key to itself, which PostgreSQL refuses (400).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

const MODEL = {
  api: {
    slug: 'key-only', version: 'v1', title: 'Key only', docsUrl: 'https://key-only.example.com/docs', strategy: 'RBAC',
    scenarios: [{ label: 'Admins do anything', predicate: { style: 'and', children: [{ type: 'matchUserRole', roles: ['admin'] }] } }],
  },
  entities: {
    Box: {
      collection: 'boxes', softDelete: true,
      properties: { id: { type: 'Number', primary: true, readOnly: true } },
      relations: { tags: { kind: 'manyToMany', entity: 'Tag' } },
    },
    Tag: { collection: 'tags', properties: { id: { type: 'String', primary: true, readOnly: true } } },
    Item: {
      collection: 'items', parent: { entity: 'Box', property: 'box_id' },
      properties: { id: { type: 'String', primary: true }, box_id: { type: 'Number', references: 'Box', required: true } },
    },
  },
};

let api: RunningApi;
test.before(async () => {
  api = await startApi(MODEL);
});
test.after(async () => api?.close());

test('records with nothing to write are created, replaced, patched, linked and nest children', async () => {
  const box = dataOf(await api.post('/boxes', {}), 201);
  assert.is(typeof box.id, 'number');
  const tag = dataOf(await api.post('/tags', {}), 201);
  const read = await api.get(`/boxes/${box.id}`);
  expectStatus(read, 200);
  const put = await api.put(`/boxes/${box.id}`, {});
  assert.equal(dataOf(put), { id: box.id });
  assert.is.not(put.headers.get('etag'), read.headers.get('etag'), 'a replace is a write: a new revision');
  expectStatus(await api.patch(`/boxes/${box.id}`, {}), 200);
  expectStatus(await api.put(`/boxes/${box.id}/tags/${tag.id}`), 201);
  expectStatus(await api.post(`/boxes/${box.id}/items`, { id: 'i1' }), 201);
  assert.equal(dataOf(await api.get(`/boxes/${box.id}/items`)).map((r: { id: string }) => r.id), ['i1']);
  expectStatus(await api.del(`/boxes/${box.id}`), 204);
  expectStatus(await api.post(`/boxes/${box.id}/restore`), 200);
  assert.equal(api.serverErrors, []);
});

test.run();
