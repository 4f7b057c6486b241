// The billing example's responses against its served document: a nested invoice with JSON lines, a
// double amount and a Version named `revision`, through list, search, read, patch, delete and restore.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Reply } from '../e2e/support/http.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import { DocumentValidator, checkReply } from './support.ts';

let api: RunningApi;
let v: DocumentValidator;
test.before(async () => {
  api = await startApi('examples/billing.model.json');
  v = new DocumentValidator((await api.get('/openapi.json')).body);
});
test.after(async () => api?.close());

const check = (reply: Reply, method: string, path: string) => checkReply(v, reply, method, path);

test('every action of the billing API answers as its document declares', async () => {
  const customer = check(await api.post('/customers', { name: 'ACME', email: 'Billing@ACME.example', address: { city: 'Oslo', geo: { lat: 59.9 } } }), 'POST', '/customers').data.id;
  const invoice = { number: 'INV-0001', amount: 120.5, currency: 'EUR', due_on: '2025-01-31', lines: [{ sku: 'A', qty: 2 }], issued_at: '2025-01-01T10:00:00Z' };
  check(await api.post(`/customers/${customer}/invoices`, invoice), 'POST', '/customers/{customer_id}/invoices');
  check(await api.post('/invoices', { ...invoice, number: 'INV-0002', customer_id: customer }), 'POST', '/invoices');
  check(await api.get('/invoices?amount[gt]=100&sort=-amount'), 'GET', '/invoices');
  check(await api.get(`/customers/${customer}/invoices?currency[in]=EUR,USD`), 'GET', '/customers/{customer_id}/invoices');
  check(await api.get('/customers?address.geo.lat[gt]=50'), 'GET', '/customers');
  check(await api.post('/invoices/search', { where: { and: [{ status: 'draft' }, { lines: { contains: [{ sku: 'A' }] } }] } }), 'POST', '/invoices/search');
  const read = await api.get('/invoices/INV-0001');
  check(read, 'GET', '/invoices/{id}');
  assert.is(read.headers.get('etag'), '"1"');
  check(await api.patch('/invoices/INV-0001', { revision: 1, lines: [{ sku: 'B', qty: 1 }] }), 'PATCH', '/invoices/{id}');
  check(await api.put('/invoices/INV-0001', { amount: 99, status: 'draft' }, { headers: { 'If-Match': '"2"' } }), 'PUT', '/invoices/{id}');
  check(await api.del('/invoices/INV-0002'), 'DELETE', '/invoices/{id}');
  check(await api.post('/invoices/INV-0002/restore'), 'POST', '/invoices/{id}/restore');
  check(await api.del('/invoices/INV-0002?permanent=true'), 'DELETE', '/invoices/{id}');
  check(await api.post('/invoices', { ...invoice, number: 'bad', amount: 0 }), 'POST', '/invoices');
  check(await api.patch('/invoices/INV-0001', { revision: 1 }), 'PATCH', '/invoices/{id}');
  assert.equal(api.serverErrors, []);
});

test.run();
