// RFC 7396 Appendix A through PATCH: each example's target is stored in billing Customer.address
// (JSON without a schema), `{"address": <patch>}` is PATCHed, and GET must return the RFC's result.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { APPENDIX_A } from '../harness/rfc7396.ts';

let api: RunningApi;
test.before(async () => {
  api = await startApi('examples/billing.model.json');
});
test.after(async () => api?.close());


APPENDIX_A.forEach(([original, patch, result], i) => {
  test(`RFC 7396 A.${i + 1}: ${JSON.stringify(original)} + ${JSON.stringify(patch)} = ${JSON.stringify(result)}`, async () => {
    const created = dataOf(await api.post('/customers', { name: `rfc-${i + 1}`, address: original }), 201);
    assert.equal(created.address, original, 'the target is stored as given');
    const patched = dataOf(await api.patch(`/customers/${created.id}`, { address: patch }));
    assert.equal(patched.address, result, 'PATCH response');
    const read = dataOf(await api.get(`/customers/${created.id}`));
    assert.equal(read.address, result, 'GET after PATCH');
    assert.is(read.name, `rfc-${i + 1}`, 'other properties are untouched');
  });
});

test('the same examples with the target set by PUT instead of POST', async () => {
  const id = dataOf(await api.post('/customers', { name: 'via-put' }), 201).id;
  for (const [original, patch, result] of APPENDIX_A) {
    assert.equal(dataOf(await api.put(`/customers/${id}`, { name: 'via-put', address: original })).address, original);
    dataOf(await api.patch(`/customers/${id}`, { address: patch }));
    assert.equal(dataOf(await api.get(`/customers/${id}`)).address, result, `${JSON.stringify(original)} + ${JSON.stringify(patch)}`);
  }
});

test('a PATCH without the JSON property leaves it alone; an object patch on null starts from {}', async () => {
  const c = dataOf(await api.post('/customers', { name: 'keep', address: { city: 'Nice', geo: { lat: 43.7, lng: 7.26 } } }), 201);
  assert.equal(dataOf(await api.patch(`/customers/${c.id}`, { vip: true })).address, { city: 'Nice', geo: { lat: 43.7, lng: 7.26 } });
  const deep = dataOf(await api.patch(`/customers/${c.id}`, { address: { geo: { lng: null, alt: 12 } } }));
  assert.equal(deep.address, { city: 'Nice', geo: { lat: 43.7, alt: 12 } });
  const empty = dataOf(await api.post('/customers', { name: 'empty' }), 201);
  assert.is(empty.address, null);
  assert.equal(dataOf(await api.patch(`/customers/${empty.id}`, { address: { city: 'Metz', x: null } })).address, { city: 'Metz' });
});

test('merged paths stay queryable through the Tier B casts', async () => {
  const c = dataOf(await api.post('/customers', { name: 'geo', address: { city: 'Quito', geo: { lat: -0.18 } } }), 201);
  dataOf(await api.patch(`/customers/${c.id}`, { address: { geo: { lat: -33.9 } } }));
  const south = dataOf(await api.get('/customers?address.geo.lat[lt]=-30'));
  assert.equal(south.map((r: { id: string }) => r.id), [c.id]);
  assert.equal(south[0].address, { city: 'Quito', geo: { lat: -33.9 } });
});

test.run();
