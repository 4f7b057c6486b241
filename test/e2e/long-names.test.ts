// A model whose names are as long as the model format allows: every name the compiler derives (join and
// sub-resource tables, their key columns, functions, constraints) fits PostgreSQL's 63 bytes and stays unique,
// so the model installs and serves (PostgreSQL cuts longer names: two relations whose `<table>_<relation>`
// shared 63 bytes broke the install, and a join table's list and link functions became one).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { compileModel } from '../../compiler/index.ts';
import { MAX_IDENTIFIER_BYTES } from '../../compiler/sql/ident.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

const A = 'Ab'.repeat(25); // snake_case: ab_ab_…, 74 characters
const B = `${'Ab'.repeat(24)}Ac`; // the same but for its last letter
const KEY = 'k'.repeat(50);
const [COLL_A, COLL_B] = ['a'.repeat(40), 'b'.repeat(40)];
const [REL_1, REL_2, SELF, SUB] = ['r'.repeat(50), `${'r'.repeat(49)}s`, 's'.repeat(50), 't'.repeat(50)];
/** A join table of 60 characters: api.<table>_list and api.<table>_link, cut at 63, would be one function. */
const REL_60 = 'l'.repeat(60 - COLL_A.length - 1);

const MODEL = {
  api: {
    slug: 'long-names', version: 'v1', title: 'Long names', docsUrl: 'https://long.example.com/docs', strategy: 'RBAC',
    scenarios: [{ label: 'Admins do anything', predicate: { style: 'and', children: [{ type: 'matchUserRole', roles: ['admin'] }] } }],
  },
  entities: {
    [A]: {
      collection: COLL_A, softDelete: true,
      properties: { [KEY]: { type: 'String', primary: true }, ['n'.repeat(50)]: { type: 'String', indexed: true, unique: true } },
      relations: {
        [REL_1]: { kind: 'manyToMany', entity: B, modules: { Membership: { edge: { role: { enum: ['x', 'y'] } } } } },
        [REL_2]: { kind: 'manyToMany', entity: B },
        [SELF]: { kind: 'manyToMany', entity: A },
        [SUB]: { kind: 'oneToOne', properties: { bio: { type: 'String' } } },
        [REL_60]: { kind: 'manyToMany', entity: B },
      },
    },
    [B]: { collection: COLL_B, properties: { [KEY]: { type: 'String', primary: true }, name: { type: 'String' } } },
  },
};

let api: RunningApi;
test.before(async () => {
  api = await startApi(MODEL);
});
test.after(async () => api?.close());

test('no identifier of the compiled script is longer than PostgreSQL keeps', () => {
  const { sql } = compileModel(MODEL);
  const code = sql.replace(/'(?:[^']|'')*'/g, "''"); // string literals (comments, JSON) hold no identifiers
  const long = [...code.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!).filter((n) => Buffer.byteLength(n) > MAX_IDENTIFIER_BYTES);
  assert.equal([...new Set(long)], []);
});

test('it installs and serves: two relations to one entity, a self relation and a sub-resource, all with the longest names', async () => {
  expectStatus(await api.post(`/${COLL_A}`, { [KEY]: 'a1' }), 201);
  expectStatus(await api.post(`/${COLL_A}`, { [KEY]: 'a2' }), 201);
  expectStatus(await api.post(`/${COLL_B}`, { [KEY]: 'b1', name: 'B one' }), 201);
  const one = dataOf(await api.put(`/${COLL_A}/a1/${REL_1}/b1`, { role: 'x' }), 201);
  const keys = Object.keys(one).filter((k) => k !== 'role');
  assert.is(keys.length, 2, `owner and target columns are distinct: ${keys}`);
  assert.ok(keys.every((k) => Buffer.byteLength(k) <= MAX_IDENTIFIER_BYTES), keys.join(', '));
  expectStatus(await api.put(`/${COLL_A}/a1/${REL_2}/b1`), 201);
  expectStatus(await api.put(`/${COLL_A}/a1/${SELF}/a2`), 201);
  expectStatus(await api.put(`/${COLL_A}/a1/${REL_60}/b1`), 201);
  assert.equal(dataOf(await api.get(`/${COLL_A}/a1/${REL_60}`)).map((r: Record<string, unknown>) => r[KEY]), ['b1']);
  expectStatus(await api.del(`/${COLL_A}/a1/${REL_60}/b1`), 204);
  assert.equal(dataOf(await api.get(`/${COLL_A}/a1/${REL_1}`)).map((r: Record<string, unknown>) => [r[KEY], r.edge]), [['b1', { role: 'x' }]]);
  assert.equal(dataOf(await api.get(`/${COLL_A}/a1/${REL_2}`)).map((r: Record<string, unknown>) => r[KEY]), ['b1']);
  assert.equal(dataOf(await api.get(`/${COLL_A}/a1/${SELF}`)).map((r: Record<string, unknown>) => r[KEY]), ['a2']);
  const embedded = dataOf(await api.get(`/${COLL_A}/a1?include=${REL_1},${REL_2},${SUB}`));
  assert.equal([embedded[REL_1].length, embedded[REL_2].length, embedded[SUB].bio], [1, 1, null]);
  assert.is(dataOf(await api.put(`/${COLL_A}/a1/${SUB}`, { bio: 'Long' })).bio, 'Long');
  expectStatus(await api.del(`/${COLL_A}/a1/${REL_2}/b1`), 204);
  assert.equal(dataOf(await api.get(`/${COLL_A}/a1/${REL_1}`)).length, 1, 'unlinking one relation leaves the other');
  expectStatus(await api.del(`/${COLL_B}/b1`), 204);
  assert.equal(dataOf(await api.get(`/${COLL_A}/a1/${REL_1}`)), [], 'the link went with its target');
  assert.equal(api.serverErrors, []);
});

test.run();
