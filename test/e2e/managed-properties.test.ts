// Models the validator accepts whose module, lifecycle and validation settings combine: each installs, and the
// API creates, replaces and patches its records (a readOnly Version was refused on every create: its column
// default of 1 was taken for a value the client supplied; a price of 19.99 broke multipleOf 0.01 in the gateway;
// a sub-resource holding a Password was 403 on every PUT, and reset an omitted one).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

const MODEL = {
  api: {
    slug: 'managed', version: 'v1', title: 'Managed properties', docsUrl: 'https://managed.example.com/docs', strategy: 'RBAC',
    scenarios: [{ label: 'Admins do anything', predicate: { style: 'and', children: [{ type: 'matchUserRole', roles: ['admin'] }] } }],
  },
  entities: {
    Note: {
      collection: 'notes',
      properties: {
        id: { type: 'String', primary: true },
        text: { type: 'String' },
        revision: { type: 'Number', readOnly: true, modules: { Version: {} } },
      },
      relations: { vault: { kind: 'oneToOne', properties: {
        pin: { type: 'String', modules: { Password: {} } }, hint: { type: 'String' }, serial: { type: 'String', immutable: true },
      } } },
    },
    Hook: {
      collection: 'hooks',
      properties: {
        id: { type: 'String', primary: true },
        url: { type: 'String' },
        secret: { type: 'String', writeOnly: true, required: true },
      },
      relations: { signing: { kind: 'oneToOne', properties: { key: { type: 'String', writeOnly: true }, note: { type: 'String' } } } },
    },
    Memo: {
      collection: 'memos',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        text: { type: 'String' },
        owner: { type: 'String', modules: { Owner: {} } },
      },
      scenarios: [{ label: 'Anyone writes memos', predicate: { style: 'and', children: [{ type: 'allowPublic' }] } }],
    },
    Price: {
      collection: 'prices',
      properties: {
        id: { type: 'String', primary: true },
        exact: { type: 'Number', multipleOf: 0.01, minimum: 0 },
        float: { type: 'Number', web: { format: 'float' }, multipleOf: 0.01 },
        tenth: { type: 'Number', web: { format: 'double' }, multipleOf: 0.1, defaultValue: 0.3 },
      },
    },
  },
};

let api: RunningApi;
test.before(async () => {
  api = await startApi(MODEL);
});
test.after(async () => api?.close());

test('a readOnly Version starts at 1 and grows by one per write; a client still cannot supply it', async () => {
  assert.is(dataOf(await api.post('/notes', { id: 'n1', text: 'a' }), 201).revision, 1);
  const put = await api.put('/notes/n1', { text: 'b' }, { headers: { 'If-Match': '"1"' } });
  assert.is(dataOf(put).revision, 2);
  assert.is(dataOf(await api.patch('/notes/n1', { text: 'c' })).revision, 3);
  expectStatus(await api.patch('/notes/n1', { text: 'd' }, { headers: { 'If-Match': '"2"' } }), 412);
  expectStatus(await api.post('/notes', { id: 'n2', revision: 5 }), 400);
  expectStatus(await api.patch('/notes/n1', { revision: 9 }), 400);
  assert.equal(api.serverErrors, []);
});

test('multipleOf is decimal, as in the model and the database: 19.99 is a multiple of 0.01, 0.015 is not', async () => {
  for (const v of [19.99, 0.07, 1234.56, 0.3]) {
    const row = dataOf(await api.post('/prices', { id: `p${v}`, exact: v, float: v }), 201);
    assert.equal([row.exact, row.float, row.tenth], [v, v, 0.3]);
    assert.is(dataOf(await api.patch(`/prices/p${v}`, { tenth: 1.1 })).tenth, 1.1);
  }
  for (const body of [{ id: 'x1', exact: 0.015 }, { id: 'x2', float: 0.015 }, { id: 'x3', exact: 1e-12 }]) {
    expectStatus(await api.post('/prices', body), 422, JSON.stringify(body));
  }
  assert.equal(api.serverErrors, []);
});

test('a sub-resource PUT keeps a Password it leaves out, sets one it names, and null clears it', async () => {
  expectStatus(await api.post('/notes', { id: 'vaulted', text: 'x' }), 201);
  const pin = async () => (await api.db.sql`select pin from app.notes_vault where note_id = 'vaulted'`)[0]?.pin as string | null;
  dataOf(await api.put('/notes/vaulted/vault', { pin: '1234', hint: 'year' }));
  const first = await pin();
  assert.ok(first && first !== '1234', 'stored hashed');
  assert.is(dataOf(await api.put('/notes/vaulted/vault', { hint: 'another year' })).hint, 'another year');
  assert.is(await pin(), first, 'left out: kept');
  dataOf(await api.put('/notes/vaulted/vault', { pin: '5678', hint: 'h' }));
  const second = await pin();
  assert.ok(second && second !== first, 'named: set');
  dataOf(await api.put('/notes/vaulted/vault', { pin: null }));
  assert.is(await pin(), null, 'null: cleared');
  assert.equal(api.serverErrors, []);
});


test('a sub-resource PUT sets an immutable property once and keeps it when left out (spec 2.2); changing it is 400', async () => {
  expectStatus(await api.post('/notes', { id: 'serialized', text: 'x' }), 201);
  assert.is(dataOf(await api.put('/notes/serialized/vault', { serial: 'S-1', hint: 'first' })).serial, 'S-1');
  const again = dataOf(await api.put('/notes/serialized/vault', { hint: 'second' }));
  assert.equal([again.serial, again.hint], ['S-1', 'second'], 'left out: kept (it was reset, and so 400 on every later PUT)');
  assert.is(dataOf(await api.put('/notes/serialized/vault', { serial: 'S-1', hint: 'third' })).hint, 'third', 'unchanged: tolerated');
  expectStatus(await api.put('/notes/serialized/vault', { serial: 'S-2' }), 400);
  expectStatus(await api.put('/notes/serialized/vault', { serial: null }), 400);
  // The document lets the first PUT set it: the PUT is the sub-resource's create too.
  const doc = (await api.get('/openapi.json')).body;
  const body = doc.components.schemas.NoteVaultReplace ?? doc.components.requestBodies.NoteVaultReplace?.content['application/json'].schema;
  assert.ok(body.properties.serial, JSON.stringify(body));
  assert.equal(api.serverErrors, []);
});

test('a PUT keeps a writeOnly property it leaves out, as it keeps a Password: no client can read it back to resend it', async () => {
  const secret = async () => (await api.db.sql`select secret from app.hooks where id = 'h1'`)[0]?.secret as string | null;
  expectStatus(await api.post('/hooks', { id: 'h1', url: 'https://a.example.com', secret: 's1' }), 201);
  const read = dataOf(await api.get('/hooks/h1'));
  assert.not.ok('secret' in read, 'never returned');
  // A GET -> PUT round trip (the read holds no secret) changes the url and keeps the secret; required or not,
  // a PUT need not repeat it.
  assert.is(dataOf(await api.put('/hooks/h1', { ...read, url: 'https://b.example.com' })).url, 'https://b.example.com');
  assert.is(await secret(), 's1', 'left out: kept (it was reset to null, and a required one was 422)');
  dataOf(await api.put('/hooks/h1', { url: 'https://c.example.com', secret: 's2' }));
  assert.is(await secret(), 's2', 'named: set');
  expectStatus(await api.put('/hooks/h1', { secret: null }), 422); // required: null is no value
  // The sub-resource's PUT likewise.
  const key = async () => (await api.db.sql`select key from app.hooks_signing where hook_id = 'h1'`)[0]?.key as string | null;
  dataOf(await api.put('/hooks/h1/signing', { key: 'k1', note: 'first' }));
  assert.is(dataOf(await api.put('/hooks/h1/signing', { note: 'second' })).note, 'second');
  assert.is(await key(), 'k1', 'left out: kept');
  dataOf(await api.put('/hooks/h1/signing', { key: null }));
  assert.is(await key(), null, 'null: cleared');
  assert.equal(api.serverErrors, []);
});

test('the Owner is the caller whatever the body says: an anonymous create owns nothing, it no longer names any user', async () => {
  const anonymous = dataOf(await api.post('/memos', { text: 'a', owner: 'victim' }, { token: null }), 201);
  assert.is(anonymous.owner, null, 'it was "victim": an anonymous caller planted records on any user');
  const signedIn = dataOf(await api.post('/memos', { text: 'b', owner: 'victim' }, { token: await api.token({ sub: 'u-9' }) }), 201);
  assert.is(signedIn.owner, 'u-9');
  assert.equal(api.serverErrors, []);
});

test.run();
