// JSON properties whose schema uses local references (`definitions` and `$ref`, `$id`): the gateway starts
// and checks bodies by them, and the API documents carry them inlined. Embedded in a body schema, `#` meant
// the body, so the gateway refused to start ("can't resolve reference #/definitions/…"), as it did for two
// properties sharing one `$id` ("resolves to more than one schema").
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileModel } from '../../compiler/index.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

const ADDRESS = {
  $id: 'https://schemas.example.com/address',
  definitions: { code: { type: 'string', pattern: '^[0-9]{5}$' } },
  type: 'object',
  required: ['zip'],
  properties: { zip: { $ref: '#/definitions/code' }, alt: { type: 'array', items: { $ref: 'https://schemas.example.com/address#/definitions/code' } } },
};

const MODEL = {
  api: {
    slug: 'refs', version: 'v1', title: 'Schema references', docsUrl: 'https://refs.example.com/docs', strategy: 'RBAC',
    scenarios: [{ label: 'Admins do anything', predicate: { style: 'and', children: [{ type: 'matchUserRole', roles: ['admin'] }] } }],
  },
  entities: {
    Site: {
      collection: 'sites',
      properties: {
        id: { type: 'String', primary: true },
        home: { type: 'JSON', schema: ADDRESS, index: { paths: [{ path: 'zip', cast: 'Text' }] } },
        work: { type: 'JSON', schema: ADDRESS },
        tags: { type: 'JSON', schema: { $defs: { tag: { type: 'string', maxLength: 5 } }, type: 'array', items: { $ref: '#/$defs/tag' } } },
        root: { type: 'JSON', schema: { definitions: { box: { type: 'object', properties: { n: { type: 'integer' } } } }, $ref: '#/definitions/box' } },
      },
    },
  },
};

let api: RunningApi;
test.before(async () => {
  api = await startApi(MODEL);
});
test.after(async () => api?.close());

test('bodies are checked by the referenced definitions', async () => {
  const ok = { id: 's1', home: { zip: '12345', alt: ['54321'] }, work: { zip: '11111' }, tags: ['a', 'bb'], root: { n: 1 } };
  assert.equal(dataOf(await api.post('/sites', ok), 201).home, ok.home);
  const bad = await api.post('/sites', { id: 's2', home: { zip: 'x' }, work: { alt: ['1'] }, tags: ['toolong'], root: { n: 'x' } });
  expectStatus(bad, 422);
  const props = (bad.body.errors as Array<{ property: string }>).map((e) => e.property);
  for (const p of ['home', 'work', 'tags', 'root']) assert.ok(props.includes(p), `${p} in ${JSON.stringify(bad.body.errors)}`);
  expectStatus(await api.patch('/sites/s1', { home: { zip: 'nope' } }), 422);
  assert.equal(dataOf(await api.patch('/sites/s1', { home: { alt: null } })).home, { zip: '12345' });
  assert.equal(dataOf(await api.get('/sites?home.zip=12345')).map((r: { id: string }) => r.id), ['s1']);
  assert.equal(api.serverErrors, []);
});

test('the API documents hold no reference into a property schema', async () => {
  const doc = (await api.get('/openapi.json')).text;
  assert.not.match(doc, /#\/(definitions|\$defs)\//);
  assert.not.match(doc, /schemas\.example\.com/);
  assert.not.ok(compileModel(MODEL).sql.includes('#/definitions/'), 'the manifest in SQL holds the inlined schemas');
});

test.run();
