// web.name in the typed client (issue 14): openapi-typescript types from the served document name `legacyCode`, never
// the column `legacy_code`; a program writes, filters and reads it through openapi-fetch against the gateway.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientFolder, openapiTS } from './support/typed-client.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';

let api: RunningApi;
let folder: ClientFolder | undefined;

test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  folder = new ClientFolder('spec-web-name');
});
test.after(async () => {
  await api?.close();
  folder?.remove();
});


const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths, components } from './api.ts';

const client = createClient<paths>({ baseUrl: process.env.API_BASE!, headers: { Authorization: \`Bearer \${process.env.API_TOKEN}\` } });
const project = await client.POST('/projects', { body: { name: 'Web names' } });
if (!project.data || Array.isArray(project.data.data)) throw new Error('create project');
const created = await client.POST('/posts', { body: { id: 'wn-1', project_id: project.data.data.id!, title: 'Named', legacyCode: 'L-77' } });
if (created.error || Array.isArray(created.data.data)) throw new Error(\`create: \${created.error?.detail}\`);
const code: string | null | undefined = created.data.data.legacyCode;
const patched = await client.PATCH('/posts/{id}', { params: { path: { id: 'wn-1' } }, body: { legacyCode: 'L-78' } });
const list = await client.GET('/posts', { params: { query: { legacyCode: { eq: 'L-78' }, sort: '-legacyCode', include: 'id,legacyCode' } } });
const read: components['schemas']['Post'] | undefined = (await client.GET('/posts/{id}', { params: { path: { id: 'wn-1' } } })).data?.data;
console.log(JSON.stringify({ code, patched: patched.data?.data.legacyCode, listed: list.data?.data, read: read?.legacyCode, keys: Object.keys(read ?? {}).filter((k) => k.startsWith('legacy')) }));
`;


test('the generated types speak the web name; the program type-checks and runs against the gateway', async () => {
  const served = await api.get('/openapi.json');
  assert.is(served.status, 200);
  const types = await openapiTS(served.body);
  assert.match(types, /\blegacyCode\??:/);
  assert.not.match(types, 'legacy_code', 'the column\'s name is not in the types');
  const checked = folder!.check(types, PROGRAM);
  assert.is(checked.status, 0, `tsc: ${checked.stdout}${checked.stderr}`);

  // (Post has web.hidden properties, so its bodies allow other members and the column's name would still
  // type-check; the gateway refuses it with 400, see test/e2e/web-name.test.ts.)

  assert.equal(await folder!.run(api), {
    code: 'L-77', patched: 'L-78', listed: [{ id: 'wn-1', legacyCode: 'L-78' }], read: 'L-78', keys: ['legacyCode'],
  });
  const [row] = await api.db.sql`select legacy_code from app.posts where id = 'wn-1'`;
  assert.is(row?.legacy_code, 'L-78', 'the column keeps the model\'s name');
  assert.equal(api.serverErrors, []);
});

test.run();
