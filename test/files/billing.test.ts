// Files under OrganizationRBAC (the billing example): an invoice's pdf attached by an org owner, replaced
// by an accountant with an `org` claim, read by members, hidden from other organizations, type-checked.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertProblem } from '../e2e/support/problem.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import { dataOf, download, PDF, storedBlock, upload } from './support.ts';

let api: RunningApi;
let owner = '';
let accountant = '';
let member = '';
let stranger = '';
let customer = '';
test.before(async () => {
  api = await startApi('examples/billing.model.json');
  owner = await api.token({ sub: 'o-owner', org: 'o1', org_roles: ['owner'] });
  accountant = await api.token({ sub: 'o-acc', org: 'o1', org_roles: ['accountant'] });
  member = await api.token({ sub: 'o-viewer', org: 'o1', org_roles: ['viewer'] });
  stranger = await api.token({ sub: 'x-owner', org: 'o2', org_roles: ['owner'] });
  customer = dataOf(await api.post('/customers', { name: 'ACME' }, { token: owner }), 201).id;
});
test.after(async () => api?.close());

test('an org owner creates an invoice with its pdf; members read it with a working link', async () => {
  const pdf = await upload(api, { name: 'INV-0001.pdf', type: 'application/pdf', bytes: PDF, token: owner });
  const created = dataOf(await api.post(`/customers/${customer}/invoices`, { number: 'INV-0001', amount: 10, pdf: pdf.ref }, { token: owner }), 201);
  assert.equal([created.pdf.name, created.pdf.mime], ['INV-0001.pdf', 'application/pdf']);
  const read = dataOf(await api.get('/invoices/INV-0001', { token: member }));
  const got = await download(read.pdf.url);
  assert.equal([got.status, got.type, got.bytes], [200, 'application/pdf', PDF]);
  const hidden = await api.get('/invoices/INV-0001', { token: stranger });
  assert.ok([403, 404].includes(hidden.status) && !hidden.text.includes('uploads/'), 'another organization sees no file');
});

test('an accountant replaces the pdf of an unpaid invoice; the ETag moves on; the old file goes', async () => {
  const before = await storedBlock(api, 'invoices', 'number', 'INV-0001', 'pdf');
  const next = await upload(api, { name: 'INV-0001-v2.pdf', type: 'application/pdf', bytes: PDF, token: accountant });
  const reply = await api.patch('/invoices/INV-0001', { pdf: next.ref }, { token: accountant, headers: { 'If-Match': '"1"' } });
  assert.is(dataOf(reply).pdf.name, 'INV-0001-v2.pdf');
  assert.is(reply.headers.get('etag'), '"2"');
  await api.files.drain();
  assert.is(await api.files.storage.head(before.location), undefined);
});

test('the pdf property takes application/pdf only; a member cannot attach (403) and the copy is undone', async () => {
  const png = await upload(api, { token: accountant });
  assertProblem(await api.patch('/invoices/INV-0001', { pdf: png.ref }, { token: accountant }), 422, api.docsUrl, { code: 'E_FILE_TYPE_NOT_ALLOWED', names: ['application/pdf'] });
  const mine = await upload(api, { name: 'x.pdf', type: 'application/pdf', bytes: PDF, token: member });
  assertProblem(await api.patch('/invoices/INV-0001', { pdf: mine.ref }, { token: member }), 403, api.docsUrl);
  const [reserved] = await api.db.sql`select location from lib.file_outbox where token = ${mine.ref}`;
  assert.is(await api.files.storage.head(reserved!.location), undefined);
});

test('a body whose numbers need every digit (sent as JSON text) still gets its file attached', async () => {
  const pdf = await upload(api, { name: 'INV-0002.pdf', type: 'application/pdf', bytes: PDF, token: owner });
  const raw = `{"number":"INV-0002","amount":12345678901234567890.125,"pdf":${JSON.stringify(pdf.ref)}}`;
  const created = dataOf(await api.call('POST', `/customers/${customer}/invoices`, { raw, type: 'application/json', token: owner }), 201);
  assert.is(created.pdf.name, 'INV-0002.pdf');
  assert.match((await api.get('/invoices/INV-0002', { token: owner })).text, '12345678901234567890.125');
});

test('no request caused a server error', () => {
  assert.equal(api.serverErrors, []);
});

test.run();
