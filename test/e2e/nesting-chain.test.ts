// Nested routes three levels deep (issue 14): every action under /regions/{id}/sites/{id}/devices answers 404 naming
// the missing record when any link of the chain is broken, changes nothing then, and succeeds on the intact chain.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus, type Reply } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
const GOOD = '/regions/r1/sites/s1';
/** Broken chains above the devices: an unknown region, a site of another region, an unknown site. */
const BROKEN = ['/regions/nope/sites/s1', '/regions/r2/sites/s1', '/regions/r1/sites/nope'];

test.before(async () => {
  api = await startApi('test/e2e/support/depth.model.json');
  for (const id of ['r1', 'r2']) dataOf(await api.post('/regions', { id, name: id }), 201);
  dataOf(await api.post('/regions/r1/sites', { id: 's1' }), 201);
  dataOf(await api.post('/regions/r2/sites', { id: 's3' }), 201);
  dataOf(await api.post('/labels', { slug: 'hot', name: 'Hot' }), 201);
  dataOf(await api.post(`${GOOD}/devices`, { id: 'dk', name: 'Kept' }), 201);
  expectStatus(await api.put(`${GOOD}/devices/dk/labels/hot`, {}), 201);
  dataOf(await api.put(`${GOOD}/devices/dk/spec`, { watts: 7 }));
  dataOf(await api.post(`${GOOD}/devices`, { id: 'dz', name: 'Deleted' }), 201);
  expectStatus(await api.del(`${GOOD}/devices/dz`), 204);
  dataOf(await api.post('/regions/r2/sites/s3/devices', { id: 'far', name: 'Elsewhere' }), 201);
});
test.after(async () => api?.close());

/** Every action on the devices below `prefix` (a record action on `id`). */
function actions(prefix: string, id = 'dk'): Array<[string, () => Promise<Reply>]> {
  const d = `${prefix}/devices`;
  return [
    ['list', () => api.get(d)],
    ['search', () => api.post(`${d}/search`, { where: { name: { eq: 'Kept' } } })],
    ['create', () => api.post(d, { id: 'new-one', name: 'New' })],
    ['bulk create', () => api.post(d, [{ id: 'new-two', name: 'New' }])],
    ['read', () => api.get(`${d}/${id}`)],
    ['replace', () => api.put(`${d}/${id}`, { name: 'Replaced' })],
    ['patch', () => api.patch(`${d}/${id}`, { name: 'Patched' })],
    ['linked list', () => api.get(`${d}/${id}/labels`)],
    ['link', () => api.put(`${d}/${id}/labels/hot`, {})],
    ['unlink', () => api.del(`${d}/${id}/labels/hot`)],
    ['sub-resource read', () => api.get(`${d}/${id}/spec`)],
    ['sub-resource replace', () => api.put(`${d}/${id}/spec`, { watts: 99 })],
    ['restore', () => api.post(`${d}/dz/restore`)],
    ['delete', () => api.del(`${d}/${id}`)],
    ['permanent delete', () => api.del(`${d}/${id}?permanent=true`)],
  ];
}

async function state() {
  const devices = await api.db.sql`select id, site_id, name, rev, deleted_at is not null as deleted from app.devices order by id`;
  const labels = await api.db.sql`select count(*)::int as n from app.devices_labels`;
  const spec = await api.db.sql`select watts from app.devices_spec`;
  return JSON.stringify({ devices, labels, spec });
}

test('a broken chain is 404 naming the missing record, for every action, and changes nothing', async () => {
  const before = await state();
  for (const prefix of BROKEN) {
    for (const [name, run] of actions(prefix)) {
      const reply = await run();
      assert.is(reply.status, 404, `${name} under ${prefix}: ${reply.text}`);
      assert.is(reply.body.code, 'E_NOT_FOUND', `${name} under ${prefix}`);
      assert.match(reply.body.detail, /^no (Region|Site) /, `${name} under ${prefix}: the parent is named, not a missing route`);
    }
  }
  // An intact chain, but the device belongs to another site.
  for (const [name, run] of actions(GOOD, 'far').filter(([n]) => !['list', 'search', 'create', 'bulk create', 'restore'].includes(n))) {
    const reply = await run();
    assert.is(reply.status, 404, `${name} of a device of another site: ${reply.text}`);
    assert.match(reply.body.detail, /^no Device /, name);
  }
  assert.is(await state(), before, 'no write went through');
  assert.equal(api.serverErrors, []);
});

test('the same actions succeed on the intact chain (the routes exist)', async () => {
  const expected: Record<string, number> = {
    list: 200, search: 200, create: 201, 'bulk create': 201, read: 200, replace: 200, patch: 200, 'linked list': 200,
    link: 200, unlink: 204, 'sub-resource read': 200, 'sub-resource replace': 200, restore: 200, delete: 204, 'permanent delete': 204,
  };
  for (const [name, run] of actions(GOOD)) {
    const reply = await run();
    assert.is(reply.status, expected[name], `${name}: ${reply.text}`);
  }
  const rows = await api.db.sql`select id from app.devices where site_id = 's1' order by id`;
  assert.equal(rows.map((r) => r.id), ['dz', 'new-one', 'new-two'], 'dk permanently deleted, dz restored, two created');
});

test.run();
