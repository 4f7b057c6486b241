// Every action of the billing model over HTTP (version v2, OrganizationRBAC): customers, invoices
// nested under them, the `revision` Version, validation settings, soft delete and restore.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { assertFieldError, assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let acme = '';
let globex = '';
test.before(async () => {
  api = await startApi('examples/billing.model.json');
  acme = dataOf(await api.post('/customers', { name: 'Acme', email: 'Billing@ACME.example', address: { city: 'Lyon' } }), 201).id;
  globex = dataOf(await api.post('/customers', { name: 'Globex', vip: true }), 201).id;
});
test.after(async () => api?.close());

test('the API lives under /api/billing/v2', () => {
  assert.is(api.basePath, '/api/billing/v2');
});

test('customers: create fills the key and defaults, normalizes the email; read, list, search', async () => {
  const data = dataOf(await api.get(`/customers/${acme}`));
  assert.equal(data, { id: acme, name: 'Acme', email: 'billing@acme.example', address: { city: 'Lyon' }, vip: false });
  const vips = await api.get('/customers?vip=true');
  assert.equal(dataOf(vips).map((c: { name: string }) => c.name), ['Globex']);
  const found = await api.post('/customers/search', { where: { or: [{ name: { search: 'acme' } }, { vip: { eq: true } }] }, sort: 'name' });
  assert.equal(dataOf(found).map((c: { name: string }) => c.name), ['Acme', 'Globex']);
  assert.is(found.body.meta.total, 2);
});

test('invoices: 201 with Location, revision 1 as the ETag, defaults filled', async () => {
  const reply = await api.post('/invoices', { number: 'INV-0001', customer_id: acme, amount: 120.5, due_on: '2030-01-31' });
  const data = dataOf(reply, 201);
  assert.is(reply.headers.get('location'), '/api/billing/v2/invoices/INV-0001');
  assert.is(reply.headers.get('etag'), '"1"');
  assert.is(data.revision, 1);
  assert.is(data.status, 'draft');
  assert.is(data.currency, 'EUR');
  assert.is(data.amount, 120.5);
  assert.is(data.due_on, '2030-01-31');
  assert.ok(Date.parse(data.updated_at) > 0);
});

test('nested create under a customer fills customer_id from the path', async () => {
  const reply = await api.post(`/customers/${globex}/invoices`, { number: 'INV-0100', amount: 10, lines: [{ sku: 'A-1', qty: 2 }] });
  const data = dataOf(reply, 201);
  assert.is(data.customer_id, globex);
  assert.equal(data.lines, [{ sku: 'A-1', qty: 2 }]);
  const other = await api.post(`/customers/${globex}/invoices`, { number: 'INV-0101', amount: 10, customer_id: acme });
  assertProblem(other, 400, api.docsUrl, { names: ['customer_id'] });
  assertProblem(await api.post('/customers/missing/invoices', { number: 'INV-0102', amount: 1 }), 404, api.docsUrl);
});

test('nested list, read, update and delete stay inside the parent', async () => {
  dataOf(await api.post(`/customers/${acme}/invoices`, { number: 'INV-0200', amount: 5 }), 201);
  const list = await api.get(`/customers/${acme}/invoices?sort=number`);
  assert.ok(dataOf(list).every((i: { customer_id: string }) => i.customer_id === acme));
  assert.ok(dataOf(list).some((i: { number: string }) => i.number === 'INV-0200'));
  assert.is(dataOf(await api.get(`/customers/${acme}/invoices/INV-0200`)).amount, 5);
  assertProblem(await api.get(`/customers/${globex}/invoices/INV-0200`), 404, api.docsUrl);
  assertProblem(await api.patch(`/customers/${globex}/invoices/INV-0200`, { amount: 6 }), 404, api.docsUrl);
  assertProblem(await api.del(`/customers/${globex}/invoices/INV-0200`), 404, api.docsUrl);
  assert.is(dataOf(await api.patch(`/customers/${acme}/invoices/INV-0200`, { amount: 6 })).amount, 6);
  assertProblem(await api.get('/customers/missing/invoices'), 404, api.docsUrl);
});

test('PUT and PATCH advance the revision; the ETag follows', async () => {
  dataOf(await api.post('/invoices', { number: 'INV-0300', customer_id: acme, amount: 1, currency: 'USD' }), 201);
  // An organization owner who is not an accountant: "Organization owners do anything" wins, so the
  // move to paid is not judged by the accountants' lifecycle rule (test/access covers that rule).
  const token = await api.token({ sub: 'u-owner', org: 'o1', org_roles: ['owner'] });
  const put = await api.put('/invoices/INV-0300', { amount: 2 }, { token });
  assert.is(dataOf(put).revision, 2);
  assert.is(dataOf(put).currency, 'EUR', 'PUT resets an omitted property to its default');
  assert.is(put.headers.get('etag'), '"2"');
  const patch = await api.patch('/invoices/INV-0300', { status: 'paid' }, { token });
  assert.is(dataOf(patch).revision, 3);
  assert.is(dataOf(patch).status, 'paid');
  assert.is(patch.headers.get('etag'), '"3"');
  assert.is((await api.get('/invoices/INV-0300')).headers.get('etag'), '"3"');
});

test('immutable DateTime issued_at: set on create, refused when changed, the same instant in another offset is no change', async () => {
  const data = dataOf(await api.post('/invoices', { number: 'INV-0600', customer_id: acme, amount: 1, issued_at: '2024-05-01T10:00:00+02:00' }), 201);
  assert.is(Date.parse(data.issued_at), Date.parse('2024-05-01T08:00:00Z'));
  assertProblem(await api.patch('/invoices/INV-0600', { issued_at: '2024-05-02T10:00:00Z' }), 400, api.docsUrl, { names: ['issued_at'] });
  assertProblem(await api.put('/invoices/INV-0600', { amount: 1, issued_at: '2024-05-02T10:00:00Z' }), 400, api.docsUrl, { names: ['issued_at'] });
  assert.is(dataOf(await api.patch('/invoices/INV-0600', { issued_at: '2024-05-01T08:00:00.000Z' })).revision, 2);
  assert.is(dataOf(await api.put('/invoices/INV-0600', { amount: 2 })).issued_at, data.issued_at, 'PUT keeps an omitted immutable');
  const none = dataOf(await api.post('/invoices', { number: 'INV-0601', customer_id: acme, amount: 1 }), 201);
  assert.is(none.issued_at, null, 'no generator: omitted stays null');
  assertProblem(await api.patch('/invoices/INV-0601', { number: 'INV-0602' }), 400, api.docsUrl, { names: ['number'] });
  assertProblem(await api.put('/invoices/INV-0601', { amount: 1, customer_id: globex }), 400, api.docsUrl, { names: ['customer_id'] });
  assertProblem(await api.post('/customers', { id: 'c-1', name: 'x' }), 400, api.docsUrl, { names: ['id'] });
  assertProblem(await api.patch('/invoices/INV-0601', { updated_at: '2024-01-01T00:00:00Z' }), 400, api.docsUrl, { names: ['updated_at'] });
});

test('validation settings are 422 naming the property and rule', async () => {
  const base = { customer_id: acme, amount: 10 };
  const cases: Array<[Record<string, unknown>, string, string?]> = [
    [{ ...base, number: 'INV-1' }, 'number', 'pattern'],
    [{ ...base, number: 'INV-0400', amount: 0 }, 'amount', 'exclusiveMinimum'],
    [{ ...base, number: 'INV-0401', amount: -3 }, 'amount', 'exclusiveMinimum'],
    [{ ...base, number: 'INV-0402', currency: 'GBP' }, 'currency', 'enum'],
    [{ ...base, number: 'INV-0403', due_on: '1999-12-31' }, 'due_on'],
    [{ ...base, number: 'INV-0404', status: 'paid' }, 'status', 'initialStatuses'],
    [{ ...base, number: 'INV-0405', lines: [{ sku: 'A', qty: 0 }] }, 'lines'],
    [{ ...base, number: 'INV-0406', lines: [{ qty: 1 }] }, 'lines'],
    [{ ...base, number: 'INV-0407', lines: { sku: 'A', qty: 1 } }, 'lines'],
    [{ ...base, number: 'INV-0408', amount: 'ten' }, 'amount', 'type'],
    [{ ...base, number: 'INV-0409', issued_at: 'last week' }, 'issued_at'],
    [{ number: 'INV-0410', amount: 1 }, 'customer_id', 'required'],
    [{ customer_id: acme, number: 'INV-0411' }, 'amount', 'required'],
    [{ ...base, number: 'INV-0412', customer_id: 'no-such-customer' }, 'customer_id'],
  ];
  for (const [body, property, rule] of cases) {
    const reply = await api.post('/invoices', body);
    assert.is(reply.status, 422, `${JSON.stringify(body)}: ${reply.text.slice(0, 300)}`);
    assertProblem(reply, 422, api.docsUrl);
    assertFieldError(reply, property, rule);
  }
  const [row] = await api.db.sql`select count(*)::int as n from app.invoices where number like 'INV-04%'`;
  assert.is(row!.n, 0);
});

test('a number JSON cannot represent (1e400) is refused as a bad amount, not reported missing', async () => {
  const reply = await api.call('POST', '/invoices', { raw: `{"number":"INV-0700","customer_id":"${acme}","amount":1e400}`, type: 'application/json' });
  assert.ok([400, 422].includes(reply.status), reply.text);
  assertProblem(reply, reply.status, api.docsUrl);
  assert.not.match(reply.body.detail, /required/, `the amount was supplied: ${reply.text}`);
  if (reply.status === 422) assert.not.ok(reply.body.errors.some((e: { rule: string }) => e.rule === 'required'), reply.text);
});

test('a JSON property holding a number JSON cannot represent (1e400) is refused, never stored as null', async () => {
  const reply = await api.call('POST', '/customers', { raw: '{"name":"Infinite","address":{"geo":{"lat":1e400}}}', type: 'application/json' });
  if (reply.status === 201) await api.del(`/customers/${reply.body.data.id}`); // keep the other tests' data as it was
  assert.ok([400, 422].includes(reply.status), `expected 400 or 422, got ${reply.status}: ${reply.text}`);
  assertProblem(reply, reply.status, api.docsUrl);
});

test('high-precision decimals (Number, format double: numeric) keep every digit through the API', async () => {
  const reply = await api.call('POST', '/invoices', { raw: `{"number":"INV-0800","customer_id":"${acme}","amount":1234567890.123456789}`, type: 'application/json' });
  expectStatus(reply, 201);
  const [row] = await api.db.sql`select amount::text as amount from app.invoices where number = 'INV-0800'`;
  assert.is(row?.amount, '1234567890.123456789', 'spec 2.3: double is for high-precision decimals; the column is exact numeric');
  assert.match((await api.get('/invoices/INV-0800')).text, /"amount"\s*:\s*1234567890\.123456789\b/);
});

test('customers email: invalid addresses are 422', async () => {
  const reply = await api.post('/customers', { name: 'Bad', email: 'not an email' });
  assertProblem(reply, 422, api.docsUrl);
  assertFieldError(reply, 'email');
});

test('soft delete, restore and permanent delete of invoices', async () => {
  dataOf(await api.post('/invoices', { number: 'INV-0500', customer_id: globex, amount: 3 }), 201);
  assert.is((await api.del('/invoices/INV-0500')).status, 204);
  assertProblem(await api.get('/invoices/INV-0500'), 404, api.docsUrl);
  assert.is(dataOf(await api.get(`/customers/${globex}/invoices?number=INV-0500`)).length, 0);
  const restored = await api.post(`/customers/${globex}/invoices/INV-0500/restore`);
  assert.is(dataOf(restored).number, 'INV-0500');
  assert.is(dataOf(await api.get('/invoices/INV-0500')).amount, 3);
  const dup = await api.post('/invoices', { number: 'INV-0500', customer_id: globex, amount: 3 });
  assertProblem(dup, 409, api.docsUrl, { code: 'E_UNIQUE_VIOLATION' });
  assert.is((await api.del('/invoices/INV-0500?permanent=true')).status, 204);
  assertProblem(await api.post('/invoices/INV-0500/restore'), 404, api.docsUrl);
});

test('a customer with invoices cannot be deleted (409); without them it can (204)', async () => {
  const reply = await api.del(`/customers/${acme}`);
  assert.is(reply.status, 409, reply.text);
  assertProblem(reply, 409, api.docsUrl);
  const lone = dataOf(await api.post('/customers', { name: 'Lone' }), 201).id;
  assert.is((await api.del(`/customers/${lone}`)).status, 204);
  assertProblem(await api.get(`/customers/${lone}`), 404, api.docsUrl);
});

test('list totals with filters over invoices (amount, status, Decimal-cast JSON path on customers)', async () => {
  await api.patch(`/customers/${globex}`, { address: { city: 'Oslo', geo: { lat: 59.9 } } });
  await api.patch(`/customers/${acme}`, { address: { city: 'Lyon', geo: { lat: 45.76 } } });
  const north = await api.get('/customers?address.geo.lat[gt]=50');
  assert.equal(dataOf(north).map((c: { name: string }) => c.name), ['Globex']);
  const sorted = await api.get('/customers?sort=-address.geo.lat&address.geo.lat[null]=false');
  assert.equal(dataOf(sorted).map((c: { name: string }) => c.name), ['Globex', 'Acme']);
  const cheap = await api.get('/invoices?amount[lte]=10&sort=number&per_page=1');
  expectStatus(cheap, 200);
  assert.ok(cheap.body.meta.total >= 2);
  assert.is(cheap.body.data.length, 1);
});

test.run();
