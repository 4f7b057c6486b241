// A changed model migrates a database that already holds rows without losing them; a change that
// cannot be applied safely is refused with a clear message and leaves the database as it was.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';

const api = { slug: 'mig', version: 'v1', title: 'Migrations', docsUrl: 'https://docs.example.com', strategy: 'RBAC' };
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

const v1 = {
  api,
  entities: {
    Item: {
      collection: 'items',
      properties: {
        id: { type: 'String', primary: true, immutable: true },
        name: { type: 'String', required: true },
        color: { type: 'String' },
        status: { type: 'String', enum: ['new', 'used'] },
        note: { type: 'String', long: true },
      },
    },
    Scrap: { collection: 'scraps', properties: { id: { type: 'String', primary: true } } },
  },
};

/** v2: a property added (and a required one with a default), an index added, an enum widened,
 *  an optional property made required with a default, an empty entity removed. */
function v2() {
  const m: any = clone(v1);
  const p = m.entities.Item.properties;
  p.size = { type: 'Number', web: { format: 'int32' } };
  p.score = { type: 'Number', required: true, defaultValue: 0 };
  p.name.indexed = true;
  p.status.enum = ['new', 'used', 'broken'];
  p.color.required = true;
  p.color.defaultValue = 'blue';
  delete m.entities.Scrap;
  return m;
}

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, v1);
  await db.sql`insert into app.items (id, name, color, status, note) values
    ('a', 'Anvil', 'black', 'new', 'heavy'), ('b', 'Bell', null, 'used', null), ('c', 'Cup', null, null, 'tiny')`;
});
test.after(async () => db?.close());

const rows = () => db.sql`select * from app.items order by id`;
const columns = async (table: string) =>
  (await db.sql`select column_name from information_schema.columns where table_schema = 'app' and table_name = ${table} order by ordinal_position`).map((r) => r.column_name);

async function refused(model: unknown, ...fragments: string[]): Promise<void> {
  const before = { rows: await rows(), cols: await columns('items') };
  try {
    await installModel(db, model);
    assert.unreachable('the migration should have been refused');
  } catch (err: any) {
    const text = `${err.message}\n${err.hint ?? ''}\n${err.detail ?? ''}`;
    for (const f of fragments) assert.ok(text.includes(f), `expected "${f}" in:\n${text}`);
  }
  assert.equal(await rows(), before.rows, 'a refused migration changes no row');
  assert.equal(await columns('items'), before.cols, 'a refused migration changes no column');
}

test('re-running the same model is a no-op: managed constraints are not rebuilt', async () => {
  const oid = async () => (await db.sql`select oid from pg_constraint where conname = 'items_status_enum'`)[0]!.oid;
  const before = await oid();
  const changed = clone(v1) as any;
  changed.api.title = 'Migrations again'; // a different script, so graphile-migrate runs it
  await installModel(db, changed);
  assert.is(await oid(), before);
  assert.is((await rows()).length, 3);
});

test('unsafe: making a property required without a default while rows lack it', async () => {
  const m: any = clone(v1);
  m.entities.Item.properties.color.required = true;
  await refused(m, 'Refused: cannot make items.color required: 2 rows have no value');
});

test('unsafe: narrowing an enum below the values rows hold', async () => {
  const m: any = clone(v1);
  m.entities.Item.properties.status.enum = ['new'];
  await refused(m, 'Refused: the rule items_status_enum', 'existing rows break it');
});

test('unsafe: a type change that could alter stored data', async () => {
  const m: any = clone(v1);
  m.entities.Item.properties.name = { type: 'Number', required: true };
  await refused(m, 'Refused: items.name would change type from character varying(255) to numeric', 'ALTER TABLE');
});

test('unsafe: shortening a long String that holds longer text', async () => {
  await db.sql`update app.items set note = ${'x'.repeat(300)} where id = 'c'`;
  const m: any = clone(v1);
  delete m.entities.Item.properties.note.long;
  await refused(m, 'cannot become a short String (255 characters): 1 rows hold longer text');
  await db.sql`update app.items set note = 'tiny' where id = 'c'`;
});

test('unsafe: removing a property or an entity that holds data', async () => {
  const m: any = clone(v1);
  delete m.entities.Item.properties.note;
  await refused(m, 'Refused: app.items.note is no longer in the model but 2 rows hold a value', 'DROP COLUMN', '"renamedFrom": "note"');
  const e: any = clone(v1);
  delete e.entities.Item;
  await refused(e, 'Refused: table app.items is no longer in the model but holds 3 rows', '"renamedFrom": {"entity"');
  // A rename without renamedFrom: the property under its new name looks added, the old one removed.
  const r: any = clone(v1);
  r.entities.Item.properties.remark = r.entities.Item.properties.note;
  delete r.entities.Item.properties.note;
  await refused(r, 'no longer in the model', '"renamedFrom": "note"');
  const required: any = clone(v1);
  required.entities.Item.properties.title = required.entities.Item.properties.name;
  delete required.entities.Item.properties.name;
  await refused(required, 'cannot add required property items.title without a defaultValue', '"renamedFrom": "<its earlier name>"');
});

test('unsafe: a new required property without a default on a table with rows', async () => {
  const m: any = clone(v1);
  m.entities.Item.properties.weight = { type: 'Number', required: true };
  await refused(m, 'Refused: cannot add required property items.weight without a defaultValue');
});

test('v1 -> v2: rows intact, new columns, backfilled default, widened enum, new index, empty entity dropped', async () => {
  const before = await rows();
  await installModel(db, v2());
  const after = await rows();
  assert.is(after.length, 3);
  for (const [i, row] of after.entries()) {
    const old = before[i]!;
    for (const k of ['id', 'name', 'status', 'note', '_rev']) {
      if (k === '_rev' && old.color === null) continue; // backfilled rows get a new revision token
      assert.equal(row[k], old[k], `${row.id}.${k}`);
    }
    assert.is(row.color, old.color ?? 'blue');
    assert.is(Number(row.score), 0);
    assert.is(row.size, null);
  }
  await db.sql`insert into app.items (id, name, status) values ('d', 'Drum', 'broken')`;
  const [idx] = await db.sql`select indexdef from pg_indexes where schemaname = 'app' and indexname = 'items_name_idx'`;
  assert.match(idx!.indexdef, /btree \(name\)/);
  const [nn] = await db.sql`select is_nullable from information_schema.columns where table_schema = 'app' and table_name = 'items' and column_name = 'color'`;
  assert.is(nn!.is_nullable, 'NO');
  const [scraps] = await db.sql`select to_regclass('app.scraps') as t`;
  assert.is(scraps!.t, null);
});

test('a property removed while empty is dropped; a removed rule is dropped too', async () => {
  const m: any = v2();
  delete m.entities.Item.properties.size;
  delete m.entities.Item.properties.name.indexed;
  m.entities.Item.properties.status.enum = undefined;
  delete m.entities.Item.properties.status.enum;
  await installModel(db, m);
  assert.not.ok((await columns('items')).includes('size'));
  const [idx] = await db.sql`select count(*)::int as n from pg_indexes where indexname = 'items_name_idx'`;
  assert.is(idx!.n, 0);
  const [chk] = await db.sql`select count(*)::int as n from pg_constraint where conname = 'items_status_enum'`;
  assert.is(chk!.n, 0);
  assert.is((await rows()).length, 4);
});

test('functions that returned jsonb in an earlier version (list, dispatch) are replaced by their json versions', async () => {
  const m: any = v2();
  // What an earlier version left: the same signatures, returning jsonb.
  await db.sql.unsafe(`
    DROP FUNCTION api.items_list(jsonb);
    CREATE FUNCTION api.items_list(args jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb $$;
    DROP FUNCTION api.dispatch(text, jsonb, text, text, jsonb);
    CREATE FUNCTION api.dispatch(req_role text, claims jsonb, ip text, fn text, args jsonb) RETURNS jsonb LANGUAGE sql AS $$ SELECT '{}'::jsonb $$;`);
  await installModel(db, m);
  const [types] = await db.sql`select pg_get_function_result('api.items_list(jsonb)'::regprocedure) as list,
    pg_get_function_result('api.dispatch(text, jsonb, text, text, jsonb)'::regprocedure) as dispatch`;
  assert.equal({ ...types }, { list: 'json', dispatch: 'json' });
  // The compiled list answers now (the model lets no anonymous caller list), not the stand-in's '{}'.
  const err = await db.sql`select api.dispatch('anon', '{}', '', 'items_list', '{}') as r`.catch((e) => e);
  assert.is(err.code, 'PT401');
});

test.run();
