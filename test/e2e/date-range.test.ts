// Dates and instants PostgreSQL cannot give back as RFC 3339 (past 9999 or before year 1 once in UTC, year 0 of a
// Date) are refused where they come in: 422 in every body, 400 as a filter value; the edges round-trip.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { assertFieldError, assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let acme = '';
let serial = 0;
const number = () => `INV-${String(++serial).padStart(4, '0')}`;
test.before(async () => {
  api = await startApi('examples/billing.model.json');
  acme = dataOf(await api.post('/customers', { name: 'Acme' }), 201).id;
});
test.after(async () => api?.close());

/** Each is 10000-… or … BC once PostgreSQL has it in UTC, rounded to microseconds (or an offset it refuses). */
const OUTSIDE = [
  '9999-12-31T23:59:59-01:00',
  '9999-12-31T23:59:59.9999999Z',
  '9999-12-31T23:59:59.9999995Z',
  '9999-12-31T23:59:60Z',
  '0001-01-01T00:00:00+01:00',
  '0001-01-01T00:59:59.999999+01:00',
  '0000-06-01T00:00:00Z',
  '2024-01-01T00:00:00+16:00',
];
/** The edges, as PostgreSQL prints them back. */
const EDGES: Array<[string, string]> = [
  ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00+00:00'],
  ['0001-01-01T01:00:00+01:00', '0001-01-01T00:00:00+00:00'],
  ['9999-12-31T23:59:59.999999Z', '9999-12-31T23:59:59.999999+00:00'],
  ['9999-12-31T23:59:59.9999994Z', '9999-12-31T23:59:59.999999+00:00'],
  ['9999-12-31T22:59:59.999999-01:00', '9999-12-31T23:59:59.999999+00:00'],
  ['2024-01-01T00:00:00+15:59', '2023-12-31T08:01:00+00:00'],
];

test('a DateTime outside 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999999Z in UTC: 422 naming it on create, bulk and batch; nothing kept', async () => {
  for (const at of OUTSIDE) {
    const created = await api.post('/invoices', { number: number(), customer_id: acme, amount: 1, issued_at: at });
    assertProblem(created, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
    assertFieldError(created, 'issued_at', 'format');
    const bulk = await api.post('/invoices', [{ number: number(), customer_id: acme, amount: 1 }, { number: number(), customer_id: acme, amount: 1, issued_at: at }]);
    assertProblem(bulk, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
    assertFieldError(bulk, 'issued_at', 'format');
    const batch = await api.post('/batch', { operations: [{ method: 'POST', path: '/invoices', body: { number: number(), customer_id: acme, amount: 1, issued_at: at } }] });
    assert.equal([batch.status, batch.body.code, batch.body.operation], [422, 'E_VALIDATION_ERROR', 1], batch.text);
    assertFieldError(batch, 'issued_at', 'format');
  }
  assert.is((await api.get('/invoices?count=exact')).body.meta.total, 0);
});

test('the same on PUT and PATCH: 422 naming it, the record unchanged', async () => {
  const id = number();
  dataOf(await api.post('/invoices', { number: id, customer_id: acme, amount: 1 }), 201);
  const before = dataOf(await api.get(`/invoices/${id}`));
  for (const at of OUTSIDE) {
    const put = await api.put(`/invoices/${id}`, { customer_id: acme, amount: 1, issued_at: at });
    assertProblem(put, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
    assertFieldError(put, 'issued_at', 'format');
    const patch = await api.patch(`/invoices/${id}`, { issued_at: at });
    assertProblem(patch, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
    assertFieldError(patch, 'issued_at', 'format');
  }
  assert.equal(dataOf(await api.get(`/invoices/${id}`)), before);
  expectStatus(await api.del(`/invoices/${id}?permanent=true`), 204);
});

test('a Date of year 0 is 422 naming it (PostgreSQL has no year 0), not a 400', async () => {
  const reply = await api.post('/invoices', { number: number(), customer_id: acme, amount: 1, due_on: '0000-01-01' });
  assertProblem(reply, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
  assertFieldError(reply, 'due_on', 'format');
});

test('a filter value outside the range is 400, as any value the property cannot hold', async () => {
  for (const at of [...OUTSIDE.filter((v) => /\.\d{0,6}[Z+-]|:\d\d[Z+-]/.test(v) && !v.includes(':60')), '9999-12-31T23:59:59.999999-00:01']) {
    for (const query of [`issued_at[eq]=${encodeURIComponent(at)}`, `issued_at[in]=${encodeURIComponent(`2024-01-01T00:00:00Z,${at}`)}`]) {
      const reply = await api.get(`/invoices?${query}`);
      assertProblem(reply, 400, api.docsUrl, { code: 'E_BAD_REQUEST' });
      assert.match(reply.body.detail, /issued_at/);
    }
  }
  const search = await api.post('/invoices/search', { where: { due_on: { lt: '0000-12-31' } } });
  assertProblem(search, 400, api.docsUrl, { code: 'E_BAD_REQUEST' });
});

test('the edges are kept and round-trip: GET then PUT, a filter on the value read, keyset paging by it', async () => {
  const ids: string[] = [];
  for (const [at, stored] of EDGES) {
    const id = number();
    ids.push(id);
    const created = dataOf(await api.post('/invoices', { number: id, customer_id: acme, amount: 1, issued_at: at }), 201);
    assert.is(created.issued_at, stored, at);
    const { updated_at: _, revision: __, ...body } = dataOf(await api.get(`/invoices/${id}`));
    expectStatus(await api.put(`/invoices/${id}`, body), 200, `PUT back ${stored}`);
    const found = await api.get(`/invoices?issued_at[eq]=${encodeURIComponent(stored)}&number=${id}`);
    assert.equal(dataOf(found).map((r: { number: string }) => r.number), [id], stored);
  }
  const seen: string[] = [];
  let page = await api.get('/invoices?sort=-issued_at&per_page=2&issued_at[null]=false');
  for (;;) {
    seen.push(...dataOf(page).map((r: { number: string }) => r.number));
    const next = page.body.meta.next as string | undefined;
    if (!next) break;
    page = await api.get(`/invoices?sort=-issued_at&per_page=2&issued_at[null]=false&after=${next}`);
  }
  assert.equal([...seen].sort(), [...ids].sort());
});

test.run();
