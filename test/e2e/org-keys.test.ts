// Under OrganizationRBAC keys, unique values and references are each organization's own: two organizations
// both hold customer ACME, invoice INV-0001 and a customer with one email (before, the second got a 409 that
// told it the first existed), and their links, sub-resources and project memberships never cross.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { PDF, upload } from '../files/support.ts';

const member = { label: 'Members of the organization', predicate: { style: 'and', children: [{ type: 'matchOrganizationRole', roles: ['any'] }] } };
const MODEL = {
  api: { slug: 'tenants', version: 'v1', title: 'Tenants', docsUrl: 'https://tenants.example.com/docs', strategy: 'OrganizationRBAC',
    projects: { entity: 'Customer', members: 'members' }, scenarios: [member] },
  entities: {
    Customer: {
      collection: 'customers',
      properties: {
        code: { type: 'String', primary: true, immutable: true },
        name: { type: 'String' },
        email: { type: 'String', unique: true, modules: { Email: {} } },
        owner_id: { type: 'String', readOnly: true, modules: { Owner: {} } },
      },
      relations: { members: { kind: 'manyToMany', entity: 'Person' } },
    },
    Person: { collection: 'people', properties: { id: { type: 'String', primary: true, immutable: true } } },
    Invoice: {
      collection: 'invoices', parent: { entity: 'Customer', property: 'customer_code' },
      properties: {
        number: { type: 'String', primary: true, immutable: true },
        customer_code: { type: 'String', required: true, references: 'Customer' },
        note: { type: 'String' },
        rev: { type: 'Number', modules: { Version: {} } },
      },
      relations: { tags: { kind: 'manyToMany', entity: 'Tag' }, details: { kind: 'oneToOne', properties: {
        memo: { type: 'String' }, scan: { type: 'Binary', modules: { FileURL: {} } } } } },
      scenarios: [{ label: 'Stakeholders of the customer', predicate: { style: 'and', children: [
        { type: 'matchOrganizationRole', roles: ['any'] }, { type: 'matchProjectStakeholder' }] } }],
    },
    Tag: { collection: 'tags', properties: { slug: { type: 'String', primary: true, immutable: true } } },
  },
};

let api: RunningApi;
const org: Record<string, { token: string }> = {};
test.before(async () => {
  api = await startApi(MODEL);
  for (const o of ['o1', 'o2']) org[o] = { token: await api.token({ sub: 'same-user', org: o, org_roles: ['member'] }) };
});
test.after(async () => api?.close());

test('two organizations hold the same keys and unique values, each seeing its own', async () => {
  for (const o of ['o1', 'o2']) {
    dataOf(await api.post('/customers', { code: 'ACME', name: `Acme of ${o}`, email: 'billing@acme.example' }, org[o]), 201);
    dataOf(await api.post('/customers/ACME/invoices', { number: 'INV-0001', note: o }, org[o]), 201);
    dataOf(await api.post('/tags', { slug: 'hot' }, org[o]), 201);
  }
  for (const o of ['o1', 'o2']) {
    assert.is(dataOf(await api.get('/customers/ACME', org[o])).name, `Acme of ${o}`);
    assert.is(dataOf(await api.get('/invoices/INV-0001', org[o])).note, o);
    assert.equal(dataOf(await api.get('/customers?email=billing@acme.example', org[o])).map((c: { name: string }) => c.name), [`Acme of ${o}`]);
  }
  // Within one organization a key and a unique value are still unique.
  expectStatus(await api.post('/customers', { code: 'ACME' }, org.o1), 409);
  expectStatus(await api.post('/customers', { code: 'OTHER', email: 'BILLING@acme.example' }, org.o1), 409);
  // A reference stays inside its organization: o2 has no customer ONLY1.
  dataOf(await api.post('/customers', { code: 'ONLY1' }, org.o1), 201);
  expectStatus(await api.post('/invoices', { number: 'INV-0002', customer_code: 'ONLY1' }, org.o2), 422);
});

test('links, sub-resources and project memberships of one organization never reach the other\'s same keys', async () => {
  expectStatus(await api.put('/invoices/INV-0001/tags/hot', {}, org.o1), 201);
  assert.equal(dataOf(await api.get('/invoices/INV-0001/tags', org.o2)), []);
  assert.equal(dataOf(await api.get('/invoices/INV-0001/tags', org.o1)).map((t: { slug: string }) => t.slug), ['hot']);

  const before = (await api.get('/invoices/INV-0001', org.o2)).headers.get('etag');
  dataOf(await api.put('/invoices/INV-0001/details', { memo: 'first org' }, org.o1));
  assert.is(dataOf(await api.get('/invoices/INV-0001/details', org.o2)).memo, null);
  assert.is((await api.get('/invoices/INV-0001', org.o2)).headers.get('etag'), before, 'the other organization\'s invoice kept its ETag');
  dataOf(await api.put('/invoices/INV-0001/details', { memo: 'second org' }, org.o2));
  assert.is(dataOf(await api.get('/invoices/INV-0001/details', org.o1)).memo, 'first org');

  // A kept file is looked up in the caller's organization's row: o2 cannot keep (and then read, or delete) o1's.
  const scan = await upload(api, { name: 'o1-secret.pdf', type: 'application/pdf', bytes: PDF, token: org.o1!.token });
  const kept = dataOf(await api.put('/invoices/INV-0001/details', { memo: 'with a scan', scan: scan.ref }, org.o1)).scan.id;
  expectStatus(await api.put('/invoices/INV-0001/details', { memo: 'taken', scan: kept }, org.o2), 422);
  assert.is(dataOf(await api.put('/invoices/INV-0001/details', { memo: 'kept', scan: kept }, org.o1)).scan.id, kept, 'o1 keeps its own (was a 500: two rows)');

  // The caller is a member of o1's ACME only: o2's ACME (same key) does not make her a stakeholder there.
  const someone = { token: await api.token({ sub: 'p1', org: 'o1', org_roles: ['member'] }) };
  const elsewhere = { token: await api.token({ sub: 'p1', org: 'o2', org_roles: ['member'] }) };
  for (const o of ['o1', 'o2']) dataOf(await api.post('/people', { id: 'p1' }, org[o]), 201);
  expectStatus(await api.put('/customers/ACME/members/p1', {}, org.o1), 201);
  assert.is(dataOf(await api.get('/invoices/INV-0001', someone)).note, 'o1');
  expectStatus(await api.get('/invoices/INV-0001', elsewhere), 403);
});

test('the sign-in entity\'s people stay one across organizations: an email signs in one person, whichever organization holds it', async () => {
  const people = await startApi({
    api: { slug: 'people', version: 'v1', title: 'People', docsUrl: 'https://people.example.com/docs', strategy: 'OrganizationRBAC',
      identity: { entity: 'Member', org: 'org', orgRoles: 'org_roles' }, scenarios: [member] },
    entities: { Member: { collection: 'members', properties: {
      id: { type: 'String', primary: true, readOnly: true },
      email: { type: 'String', required: true, unique: true, modules: { Email: {} } },
      password: { type: 'String', writeOnly: true, modules: { Password: {} } },
      org: { type: 'String' }, org_roles: { type: 'String', multiple: true },
      badge: { type: 'String', unique: true },
    } },
    // A reference to the global login email installs (its foreign key leads with organization_id, as all do).
    Note: { collection: 'notes', properties: { id: { type: 'String', primary: true, readOnly: true }, author_email: { type: 'String', references: 'Member.email' } } } },
  });
  try {
    const admin = async (o: string) => ({ token: await people.token({ sub: 'admin', org: o, org_roles: ['admin'] }) });
    dataOf(await people.post('/members', { email: 'ada@example.com', password: 'correct horse', org: 'o1', org_roles: ['member'], badge: 'B-7' }, await admin('o1')), 201);
    expectStatus(await people.post('/members', { email: 'ADA@example.com', password: 'another one', org: 'o2', org_roles: ['member'] }, await admin('o2')), 409);
    // Its other unique values are each organization's own.
    dataOf(await people.post('/members', { email: 'bob@example.com', password: 'correct horse', badge: 'B-7' }, await admin('o2')), 201);
    dataOf(await people.post('/notes', { author_email: 'ada@example.com' }, await admin('o1')), 201);
    expectStatus(await people.post('/notes', { author_email: 'ada@example.com' }, await admin('o2')), 422);
    const signedIn = await people.post('/auth/token', { email: 'ada@example.com', password: 'correct horse' }, { token: null });
    expectStatus(signedIn, 200);
    const claimsOf = (reply: { body: { access_token?: unknown } }) => JSON.parse(Buffer.from(String(reply.body.access_token).split('.')[1]!, 'base64url').toString());
    assert.is(claimsOf(signedIn).org, 'o1');
    // o2's administrator writes "o1" into a person's org property: the token still names the record's organization.
    dataOf(await people.post('/members', { email: 'mallory@example.com', password: 'correct horse', org: 'o1', org_roles: ['admin'] }, await admin('o2')), 201);
    const mallory = await people.post('/auth/token', { email: 'mallory@example.com', password: 'correct horse' }, { token: null });
    assert.equal({ org: claimsOf(mallory).org, org_roles: claimsOf(mallory).org_roles }, { org: 'o2', org_roles: ['admin'] });
  } finally {
    await people.close();
  }
});

test('record history: each organization sees its own record\'s versions under a shared key', async () => {
  dataOf(await api.patch('/invoices/INV-0001', { note: 'o1 again' }, org.o1!));
  for (const o of ['o1', 'o2']) {
    const versions = dataOf(await api.get('/customers/ACME/invoices/INV-0001/history', org[o]));
    assert.equal(versions.at(-1).action, 'created');
    assert.ok(versions.every((v: { data: { note: string } }) => v.data.note.startsWith(o)), `${o}: only its own record's versions`);
  }
  assert.is(dataOf(await api.get('/invoices/INV-0001/history?per_page=1', org.o1!))[0].data.note, 'o1 again');
  const o2 = dataOf(await api.get('/invoices/INV-0001/history', org.o2!));
  expectStatus(await api.get(`/invoices/INV-0001/history/${o2[0].version + 1}`, org.o2!), 404);
});

test.run();
