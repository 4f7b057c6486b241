// Models the validator accepts whose module and lifecycle settings combine: each installs, and the API
// creates, replaces and patches its records (a readOnly Version was refused on every create: its column
// default of 1 was taken for a value the client supplied).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    },
  },
};

let api: RunningApi;
let folder: string;
test.before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'managed-'));
  const file = join(folder, 'managed.model.json');
  writeFileSync(file, JSON.stringify(MODEL));
  api = await startApi(file);
});
test.after(async () => {
  await api?.close();
  rmSync(folder, { recursive: true, force: true });
});

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

test.run();
