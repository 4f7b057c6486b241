// Spec 2.5 JSON properties in PostgreSQL: any document is stored as jsonb, Tier A (whole-document GIN)
// serves containment and key existence at depth, Tier B path indexes cast, sort and never block a save.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { jsonPathExpr } from '../../compiler/sql/json-path.ts';
import type { JsonCast } from '../../compiler/model/types.ts';
import { asRole, freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const model = {
  api: testApi('json'),
  entities: {
    Doc: {
      collection: 'docs',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        set: { type: 'String' },
        body: { type: 'JSON', index: { whole: true } },
        data: {
          type: 'JSON',
          schema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string' } } } },
          index: {
            paths: [
              { path: 'label', cast: 'Text' },
              { path: 'count', cast: 'Integer' },
              { path: 'price.amount', cast: 'Decimal' },
              { path: 'active', cast: 'Boolean' },
              { path: 'tags' },
            ],
          },
        },
        plain: { type: 'JSON' },
      },
    },
  },
};

let db: TestDatabase;
const claims = { sub: 'user-1' };
const asUser = <T>(fn: (tx: postgres.TransactionSql) => Promise<T>) => asRole(db.sql, 'authenticated', claims, fn);

/** The expression the compiler indexes for data.<path> with `cast`, as queries must write it. */
const expr = (path: string, cast: JsonCast | 'json') => jsonPathExpr('"data"', path, cast);

async function insertDocs(set: string, docs: Array<Record<string, unknown>>, column = 'data'): Promise<void> {
  await asUser(async (tx) => {
    for (const doc of docs) {
      await tx.unsafe(`insert into app.docs (set, ${column}) values ($1, $2::text::jsonb)`, [set, JSON.stringify(doc)]);
    }
  });
}

/**
 * EXPLAIN of `query` as the table owner, with sequential scans (and sorts) made a last resort. As a
 * request role, row-level security makes PostgreSQL evaluate operators that are not leakproof (jsonb's
 * among them) after the policies, which keeps them out of index conditions; the index and expression
 * match tested here is the owner's view (README, Known limits).
 */
async function plan(query: string, params: postgres.ParameterOrJSON<never>[] = [], noSort = false): Promise<string> {
  return db.sql.begin(async (tx) => {
    await tx.unsafe('set local enable_seqscan = off');
    if (noSort) await tx.unsafe('set local enable_sort = off');
    const rows = await tx.unsafe(`explain ${query}`, params);
    return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
  });
}

async function index(name: string): Promise<{ method: string; def: string; comment: string | null } | undefined> {
  const [row] = await db.sql<{ method: string; def: string; comment: string | null }[]>`
    select am.amname as method, pg_get_indexdef(c.oid) as def, obj_description(c.oid, 'pg_class') as comment
    from pg_class c join pg_am am on am.oid = c.relam join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'app' and c.relname = ${name} and c.relkind = 'i'`;
  return row;
}

async function ids(where: string, set: string, params: unknown[] = []): Promise<string[]> {
  const rows = await asUser((tx) => tx.unsafe(
    `select data ->> 'name' as name from app.docs where set = $1 and (${where}) order by 1`, [set, ...params] as never[]));
  return rows.map((r) => r.name as string);
}

test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
  await insertDocs('tierA', [
    { name: 'deep', top: 1, a: { b: { c: 1, d: 'x' } }, list: [{ k: 'v', n: 1 }, { k: 'w' }] },
    { name: 'shallow', top: 2, a: { b: { c: 2 } }, list: [{ k: 'z' }] },
    { name: 'other', elsewhere: { a: { b: { c: 1 } } } },
  ], 'body');
});

test.after(async () => {
  await db?.close();
});

test('a JSON property is a jsonb column that stores any document', async () => {
  const [col] = await db.sql`select format_type(atttypid, atttypmod) as type from pg_attribute
    where attrelid = 'app.docs'::regclass and attname = 'plain'`;
  assert.is(col!.type, 'jsonb');
  const documents: unknown[] = [
    { a: 1, nested: { deep: { deeper: [1, 'two', { three: null }] } }, 'key with "quotes"': true },
    [1, 2, { x: 'y' }],
    'just a string',
    42.5,
    false,
    null,
    {},
    [],
    { unicode: 'zażółć ✓', big: 12345678901234567890 },
  ];
  for (const doc of documents) {
    const [row] = await asUser((tx) => tx.unsafe(
      `insert into app.docs (plain) values ($1::text::jsonb) returning plain, plain is null as sql_null`, [JSON.stringify(doc)]));
    assert.equal(row!.plain, doc, JSON.stringify(doc));
    assert.is(row!.sql_null, false, 'a JSON null is a document, not SQL NULL');
  }
  const [none] = await db.sql`select count(*)::int as n from pg_index where indrelid = 'app.docs'::regclass
    and pg_get_indexdef(indexrelid) like '%plain%'`;
  assert.is(none!.n, 0, 'a JSON property without index options gets no index');
});

test('Tier A: index.whole is a GIN index <table>_<prop>_gin over the whole column', async () => {
  const idx = await index('docs_body_gin');
  assert.ok(idx, 'docs_body_gin exists');
  assert.is(idx.method, 'gin');
  assert.is(idx.def, 'CREATE INDEX docs_body_gin ON app.docs USING gin (body)');
  const info = JSON.parse(idx.comment ?? 'null') as Record<string, unknown>;
  assert.is(info.property, 'body');
  assert.is(info.rule, 'index.whole');
});

test('Tier A: containment (@>) at depth finds the document and uses the GIN index', async () => {
  const found = async (where: string) => (await asUser((tx) => tx.unsafe(
    `select body ->> 'name' as name from app.docs where set = 'tierA' and ${where} order by 1`))).map((r) => r.name);
  assert.equal(await found(`body @> '{"a":{"b":{"c":1}}}'`), ['deep']);
  assert.equal(await found(`body @> '{"list":[{"k":"w"}]}'`), ['deep']);
  assert.equal(await found(`body @> '{"a":{"b":{}}}'`), ['deep', 'shallow']);
  assert.match(await plan(`select id from app.docs where body @> '{"a":{"b":{"c":1}}}'`), 'docs_body_gin');
});

test('Tier A: key existence at the top (?) and nested (@? / jsonb_path_exists) uses the GIN index', async () => {
  const found = async (where: string) => (await asUser((tx) => tx.unsafe(
    `select body ->> 'name' as name from app.docs where set = 'tierA' and ${where} order by 1`))).map((r) => r.name);
  assert.equal(await found(`body ? 'top'`), ['deep', 'shallow']);
  assert.equal(await found(`body ? 'c'`), [], '? looks at the top level only');
  assert.equal(await found(`body @? '$.a.b.d'`), ['deep']);
  assert.equal(await found(`jsonb_path_exists(body, '$.a.b.d')`), ['deep']);
  assert.equal(await found(`body @? '$.elsewhere.a.b.c'`), ['other']);
  assert.match(await plan(`select id from app.docs where body ? 'top'`), 'docs_body_gin');
  assert.match(await plan(`select id from app.docs where body @? '$.a.b.d'`), 'docs_body_gin');
});

const tierB: Array<{ path: string; cast: JsonCast; fn: string }> = [
  { path: 'label', cast: 'Text', fn: '#>>' },
  { path: 'count', cast: 'Integer', fn: 'lib.jsonb_integer' },
  { path: 'price.amount', cast: 'Decimal', fn: 'lib.jsonb_numeric' },
  { path: 'active', cast: 'Boolean', fn: 'lib.jsonb_boolean' },
];

for (const { path, cast, fn } of tierB) {
  const name = `docs_data_${path.replace(/\./g, '_')}_idx`;
  test(`Tier B: ${path} cast ${cast} is a btree expression index ${name} that its filter uses`, async () => {
    const idx = await index(name);
    assert.ok(idx, `${name} exists`);
    assert.is(idx.method, 'btree');
    assert.ok(idx.def.includes(fn), `${idx.def} uses ${fn}`);
    assert.ok(idx.def.includes(`'{${path.split('.').join(',')}}'`), `${idx.def} follows the path ${path}`);
    const info = JSON.parse(idx.comment ?? 'null') as Record<string, unknown>;
    assert.is(info.property, 'data');
    const value = { Text: `'x'`, Integer: '3', Decimal: '2.5', Boolean: 'true' }[cast];
    assert.match(await plan(`select id from app.docs where ${expr(path, cast)} = ${value}`), name);
  });
}

test('Tier B: Integer and Decimal sort numerically, Text lexically, each served by its index', async () => {
  await insertDocs('order', [
    { name: 'ten', label: '10', count: 10, price: { amount: 10.25 } },
    { name: 'two', label: '2', count: 2, price: { amount: 2.5 } },
    { name: 'one', label: '1', count: 1, price: { amount: 1 } },
    { name: 'nine', label: '9', count: 9, price: { amount: 9.75 } },
  ]);
  const order = async (e: string) => (await asUser((tx) => tx.unsafe(
    `select data ->> 'name' as name from app.docs where set = 'order' order by ${e}, id`))).map((r) => r.name);
  assert.equal(await order(expr('count', 'Integer')), ['one', 'two', 'nine', 'ten']);
  assert.equal(await order(expr('price.amount', 'Decimal')), ['one', 'two', 'nine', 'ten']);
  assert.equal(await order(expr('label', 'Text')), ['one', 'ten', 'two', 'nine']);
  assert.equal(await ids(`${expr('count', 'Integer')} > $2`, 'order', [3]), ['nine', 'ten']);
  assert.equal(await ids(`${expr('price.amount', 'Decimal')} between $2 and $3`, 'order', [2, 10]), ['nine', 'two']);
  assert.match(await plan(`select id from app.docs order by ${expr('count', 'Integer')} limit 3`, [], true), 'docs_data_count_idx');
  assert.match(await plan(`select id from app.docs order by ${expr('price.amount', 'Decimal')} limit 3`, [], true), 'docs_data_price_amount_idx');
});

test('Tier B: Boolean cast matches JSON booleans only', async () => {
  await insertDocs('bool', [
    { name: 'yes', active: true },
    { name: 'no', active: false },
    { name: 'string', active: 'true' },
    { name: 'number', active: 1 },
  ]);
  assert.equal(await ids(`${expr('active', 'Boolean')}`, 'bool'), ['yes']);
  assert.equal(await ids(`not ${expr('active', 'Boolean')}`, 'bool'), ['no']);
  assert.equal(await ids(`${expr('active', 'Boolean')} is null`, 'bool'), ['number', 'string']);
});

test('Tier B: a value of the wrong JSON type at an indexed path still saves; its expression is NULL', async () => {
  const odd = [
    { name: 'string count', count: 'abc', price: { amount: 'cheap' }, active: 'yes', label: 5 },
    { name: 'fraction count', count: 2.5, price: 'no object here', active: null, label: { nested: true } },
    { name: 'huge count', count: 1e30, price: { amount: [1, 2] }, label: ['a'] },
    { name: 'object count', count: { n: 1 }, price: [{ amount: 1 }] },
  ];
  for (const doc of odd) {
    const err = await asUser((tx) => tx.unsafe(`insert into app.docs (set, data) values ('odd', $1::text::jsonb)`, [JSON.stringify(doc)]))
      .then(() => undefined, (e: Error) => e);
    assert.is(err, undefined, `${JSON.stringify(doc)} saved (${err?.message})`);
  }
  const rows = await asUser((tx) => tx.unsafe(
    `select data ->> 'name' as name, ${expr('count', 'Integer')} as count, ${expr('price.amount', 'Decimal')} as amount,
            ${expr('active', 'Boolean')} as active, ${expr('label', 'Text')} as label
     from app.docs where set = 'odd' order by 1`));
  assert.equal(rows.map((r) => ({ ...r })), [
    { name: 'fraction count', count: null, amount: null, active: null, label: '{"nested": true}' },
    { name: 'huge count', count: null, amount: null, active: null, label: '["a"]' },
    { name: 'object count', count: null, amount: null, active: null, label: null },
    { name: 'string count', count: null, amount: null, active: null, label: '5' },
  ]);
  // An update into a wrong type saves as well.
  await insertDocs('odd update', [{ name: 'was a number', count: 7, price: { amount: 7.5 }, active: true }]);
  await asUser((tx) => tx.unsafe(`update app.docs set data = data || '{"count": "xyz", "price": {"amount": "n/a"}, "active": 0}'
    where set = 'odd update'`));
  assert.equal(await ids(`${expr('count', 'Integer')} is null and ${expr('price.amount', 'Decimal')} is null
    and ${expr('active', 'Boolean')} is null`, 'odd update'), ['was a number']);
});

test('an array property itself is indexed with GIN on that sub-document (no cast)', async () => {
  const idx = await index('docs_data_tags_idx');
  assert.ok(idx, 'docs_data_tags_idx exists');
  assert.is(idx.method, 'gin', `array path index: ${idx.def}`);
  await insertDocs('tags', [
    { name: 'red and blue', tags: ['red', 'blue'] },
    { name: 'green', tags: ['green'] },
  ]);
  const contains = `${expr('tags', 'json')} @> $2::text::jsonb`;
  assert.equal(await ids(contains, 'tags', ['["red"]']), ['red and blue']);
  assert.equal(await ids(`${expr('tags', 'json')} ? $2`, 'tags', ['green']), ['green']);
  assert.match(await plan(`select id from app.docs where ${expr('tags', 'json')} @> '["red"]'`), 'docs_data_tags_idx');
});

test('an indexed array property still saves when the array is large', async () => {
  const tags = Array.from({ length: 400 }, () => randomBytes(16).toString('hex'));
  const err = await asUser((tx) => tx.unsafe(`insert into app.docs (set, data) values ('big', $1::text::jsonb)`,
    [JSON.stringify({ name: 'big', tags })])).then(() => undefined, (e: postgres.PostgresError) => e);
  assert.is(err, undefined, `a document with ${tags.length} tags was refused: ${err?.code} ${err?.message}`);
});

test.run();
