// web.name on the wire (spec 2.3, design 5): the publishing example's `legacy_code` is `legacyCode` in
// bodies, responses, filters, sort, projections, search bodies and problems; the column keeps its name,
// and the column's name on the wire is an unknown property (400).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf } from './support/http.ts';
import { assertFieldError, assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { intent } from '../files/support.ts';

let api: RunningApi;
let project = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = dataOf(await api.post('/projects', { name: 'Names' }), 201).id;
});
test.after(async () => api?.close());

const ids = (reply: { body: { data: Array<{ id: string }> } }) => reply.body.data.map((p) => p.id);

test('bodies and responses speak the web name; the column keeps the model\'s', async () => {
  const created = dataOf(await api.post('/posts', { id: 'w1', project_id: project, title: 'One', legacyCode: 'A-1' }), 201);
  assert.is(created.legacyCode, 'A-1');
  assert.not.ok('legacy_code' in created);
  const [row] = await api.db.sql`select legacy_code from app.posts where id = 'w1'`;
  assert.is(row?.legacy_code, 'A-1');
  assert.is(dataOf(await api.patch('/posts/w1', { legacyCode: 'A-2' })).legacyCode, 'A-2');
  assert.is(dataOf(await api.put('/posts/w1', { project_id: project, title: 'One', legacyCode: 'A-3' })).legacyCode, 'A-3');
  assert.is(dataOf(await api.get('/posts/w1')).legacyCode, 'A-3');
  const bulk = dataOf(await api.post('/posts', [{ id: 'w2', project_id: project, title: 'Two', legacyCode: 'B-1' }]), 201);
  assert.is(bulk[0].legacyCode, 'B-1');
});

test('filters, sort, projections and search bodies name it by the web name', async () => {
  assert.equal(ids(await api.get('/posts?legacyCode=A-3')), ['w1']);
  assert.equal(ids(await api.get('/posts?legacyCode[like]=*-1&sort=-legacyCode')), ['w2']);
  assert.equal(ids(await api.get('/posts?id[in]=w1,w2&sort=-legacyCode')), ['w2', 'w1']);
  assert.equal(dataOf(await api.get('/posts/w1?include=id,legacyCode')), { id: 'w1', legacyCode: 'A-3' });
  assert.not.ok('legacyCode' in dataOf(await api.get('/posts/w1?exclude=legacyCode')));
  const found = await api.post('/posts/search', { where: { legacyCode: { eq: 'B-1' } }, sort: 'legacyCode', include: ['id', 'legacyCode'] });
  assert.equal(found.body.data, [{ id: 'w2', legacyCode: 'B-1' }]);
  const page = await api.get('/posts?id[in]=w1,w2&sort=legacyCode&per_page=1');
  assert.equal(ids(await api.get(`/posts?id[in]=w1,w2&sort=legacyCode&per_page=1&after=${page.body.meta.next}`)), ['w2'], 'cursors over a renamed sort key');
});

test('the model\'s name on the wire is an unknown property; errors name the web name', async () => {
  for (const reply of [
    await api.post('/posts', { id: 'w3', project_id: project, title: 'Three', legacy_code: 'x' }),
    await api.patch('/posts/w1', { legacy_code: 'x' }),
    await api.get('/posts?legacy_code=A-3'),
    await api.get('/posts?sort=legacy_code'),
    await api.get('/posts/w1?include=legacy_code'),
    await api.post('/posts/search', { where: { legacy_code: { eq: 'x' } } }),
  ]) {
    assertProblem(reply, 400, api.docsUrl);
    assert.match(reply.body.detail, 'legacy_code');
  }
  const tooLong = await api.patch('/posts/w1', { legacyCode: 'x'.repeat(300) });
  assert.is(tooLong.status, 422, tooLong.text);
  assertFieldError(tooLong, 'legacyCode');
});

test('messages SQL writes name the web name too (write-rule refusals)', async () => {
  const depth = await startApi('test/e2e/support/depth.model.json');
  try {
    dataOf(await depth.post('/regions', { id: 'north', name: 'North', zoneCode: 'N1' }), 201);
    const moved = await depth.patch('/regions/north', { zoneCode: 'N2' });
    assertProblem(moved, 400, depth.docsUrl);
    assert.match(moved.body.detail, 'immutable property "zoneCode" cannot be changed');
    assert.not.match(moved.body.detail, 'zone_code');
    const live = await depth.post('/regions', { id: 'south', name: 'South', stage: 'live' });
    assert.is(live.status, 422, live.text);
    assertFieldError(live, 'stage');
    assert.not.match(live.text, 'phase');
    // A renamed file property: the gateway's upload check (an intent whose bytes never came), SQL's trigger
    // (a reference that is no intent, nor the file the record holds) and SQL called directly all name it
    // as clients do.
    const never = dataOf(await intent(depth, 'never.png', 'image/png'), 201).file_reference;
    for (const cover of [await depth.patch('/regions/north', { badge: never }), await depth.patch('/regions/north', { badge: 'not-a-token' })]) {
      assertProblem(cover, 422, depth.docsUrl, { code: 'E_FILE_NOT_UPLOADED', names: ['"badge"'] });
      assertFieldError(cover, 'badge', 'file');
      assert.not.match(cover.text, 'badge_image');
    }
    const refused = await depth.db.sql`select api.dispatch('authenticated', '{"sub": "u1"}', '', 'regions_patch',
      '{"id": "north", "body": {"badge_image": {"id": "other"}}}')`.catch((e) => e);
    assert.is(refused.code, 'PT422');
    assert.is(JSON.parse(refused.detail).property, 'badge');
    assert.match(refused.message, '"badge"');
  } finally {
    await depth.close();
  }
});

test.run();
