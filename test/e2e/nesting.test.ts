// Nested paths to any depth (design 5): /regions/{id}/sites/{id}/devices with every action of the deepest
// level (CRUD, search, restore, links, linked lists, the sub-resource), 404 along a broken chain, the
// parent pre-flight at every level, and the generated specifications listing the deep paths.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
const deep = '/regions/r1/sites/s1/devices';
test.before(async () => {
  api = await startApi('test/e2e/support/depth.model.json');
  for (const id of ['r1', 'r2']) dataOf(await api.post('/regions', { id, name: id }), 201);
  dataOf(await api.post('/regions/r1/sites', { id: 's1' }), 201);
  dataOf(await api.post('/regions/r1/sites', { id: 's2', visibility: 'closed' }), 201);
  dataOf(await api.post('/regions/r2/sites', { id: 's3' }), 201);
  dataOf(await api.post('/regions/r2/sites/s3/devices', { id: 'elsewhere', name: 'Other site' }), 201);
  dataOf(await api.post('/labels', { slug: 'hot', name: 'Hot' }), 201);
});
test.after(async () => api?.close());

test('every action three levels deep', async () => {
  const created = await api.post(deep, { id: 'd1', name: 'Pump' });
  assert.is(dataOf(created, 201).site_id, 's1', 'the parent key comes from the path');
  assert.is(created.headers.get('location'), `${api.basePath}/devices/d1`);
  assert.equal(dataOf(await api.get(deep)).map((d: { id: string }) => d.id), ['d1']);
  assert.equal(dataOf(await api.post(`${deep}/search`, { where: { name: { eq: 'Pump' } } })).map((d: { id: string }) => d.id), ['d1']);
  assert.is(dataOf(await api.get(`${deep}/d1`)).name, 'Pump');
  assert.is(dataOf(await api.put(`${deep}/d1`, { name: 'Pump 2' }, { headers: { 'If-Match': '"1"' } })).rev, 2);
  assert.is(dataOf(await api.patch(`${deep}/d1`, { name: 'Pump 3' })).name, 'Pump 3');
  expectStatus(await api.put(`${deep}/d1/labels/hot`, {}), 201);
  assert.equal(dataOf(await api.get(`${deep}/d1/labels`)).map((l: { slug: string }) => l.slug), ['hot']);
  expectStatus(await api.del(`${deep}/d1/labels/hot`), 204);
  assert.equal(dataOf(await api.get(`${deep}/d1/labels`)), []);
  assert.is(dataOf(await api.put(`${deep}/d1/spec`, { watts: 40 })).watts, 40);
  assert.is(dataOf(await api.get(`${deep}/d1/spec`)).watts, 40);
  expectStatus(await api.del(`${deep}/d1`), 204);
  expectStatus(await api.get(`${deep}/d1`), 404);
  assert.is(dataOf(await api.post(`${deep}/d1/restore`)).name, 'Pump 3');
  assert.is(dataOf(await api.get(`/devices/d1`)).site_id, 's1');
});

test('each parent must exist and contain the next, else 404, for records and relations alike', async () => {
  const broken = [
    '/regions/r2/sites/s1/devices', // s1 is not in r2
    '/regions/nope/sites/s1/devices',
    '/regions/r1/sites/nope/devices',
    '/regions/r2/sites/s1/devices/d1',
    '/regions/r1/sites/s1/devices/elsewhere', // a device of another site
    '/regions/r2/sites/s1/devices/d1/labels',
    '/regions/r2/sites/s1/devices/d1/spec',
  ];
  for (const path of broken) expectStatus(await api.get(path), 404, path);
  expectStatus(await api.post('/regions/r2/sites/s1/devices', { id: 'd9', name: 'Nowhere' }), 404);
  expectStatus(await api.patch('/regions/r2/sites/s1/devices/d1', { name: 'x' }), 404);
  expectStatus(await api.put('/regions/r2/sites/s1/devices/d1/labels/hot', {}), 404);
  expectStatus(await api.put('/regions/r2/sites/s1/devices/d1/spec', { watts: 1 }), 404);
  expectStatus(await api.post('/regions/r2/sites/s1/devices/d1/restore'), 404);
  expectStatus(await api.del('/regions/r2/sites/s1/devices/d1'), 404);
  expectStatus(await api.get('/regions/r2/sites/s3/devices/elsewhere'), 200);
  assert.is((await api.db.sql`select count(*)::int as n from app.devices where id = 'd9'`)[0]!.n, 0);
});

test('the parent pre-flight holds at every level: a hidden site hides what is below it', async () => {
  dataOf(await api.post('/regions/r1/sites/s2/devices', { id: 'd2', name: 'Hidden' }), 201);
  const reader = await api.token({ sub: 'reader', roles: [] });
  const oneLevel = await api.get('/sites/s2/devices', { token: reader });
  assert.ok([403, 404].includes(oneLevel.status), oneLevel.text);
  for (const path of ['/regions/r1/sites/s2/devices', '/regions/r1/sites/s2/devices/d2', '/regions/r1/sites/s2/devices/d2/spec']) {
    const reply = await api.get(path, { token: reader });
    assert.is(reply.status, oneLevel.status, `${path}: as one level deep`);
  }
  assert.is((await api.get('/regions/r1/sites/s1/devices', { token: reader })).status, 200, 'an open site');
});

test('identity before any row: a caller no scenario lets read a level gets 401 whether its records exist or not', async () => {
  // Regions need a signed-in caller; sites are open to anyone. A 404 for a missing region and a 401 for an existing
  // one told an anonymous caller which regions exist.
  for (const path of ['/regions/r1/sites', '/regions/nope/sites', '/regions/r1/sites/s1', '/regions/nope/sites/s1', '/regions/nope/sites/s1/devices']) {
    const reply = await api.get(path, { token: null });
    assert.is(reply.status, 401, `${path}: ${reply.text}`);
  }
  for (const region of ['r1', 'nope']) {
    const created = await api.post('/sites', { id: `anon-${region}`, region_id: region }, { token: null });
    assert.is(created.status, 401, `a flat create under ${region}: ${created.text}`);
  }
  // An open site's records are the next level's to judge: devices need a signed-in caller.
  expectStatus(await api.get('/sites/s1/devices', { token: null }), 401);
  expectStatus(await api.get('/sites/nope/devices', { token: null }), 401);
});

test('OpenAPI and RAML list the deep paths', async () => {
  const doc = (await api.get('/openapi.json')).body;
  for (const path of ['/regions/{region_id}/sites/{site_id}/devices', '/regions/{region_id}/sites/{site_id}/devices/{id}/restore',
    '/regions/{region_id}/sites/{site_id}/devices/{id}/labels/{target_id}', '/regions/{region_id}/sites/{site_id}/devices/{id}/spec',
    '/sites/{site_id}/devices/{id}']) {
    assert.ok(doc.paths[path], path);
  }
  const op = doc.paths['/regions/{region_id}/sites/{site_id}/devices/{id}'].get;
  const resolve = (p: { $ref?: string }) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!] : p);
  assert.equal(op.parameters.map(resolve).filter((p: { in?: string }) => p.in === 'path').map((p: { name: string }) => p.name), ['region_id', 'site_id', 'id']);
  const raml = (await api.get('/api.raml')).text;
  assert.match(raml, /\/\{region_id\}:[\s\S]*\/sites:[\s\S]*\/\{site_id\}:[\s\S]*\/devices:/);
});

test.run();
