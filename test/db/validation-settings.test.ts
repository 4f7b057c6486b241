// Spec 2.3 validation settings enforced by PostgreSQL itself: bounds, exclusive bounds, multipleOf, enum,
// pattern and defaultValue, on single and multiple properties, for INSERT and UPDATE as `authenticated`.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { asRole, freshDatabase, installModel, sqlFailure, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const TABLE = 'measures';

const model = {
  api: testApi('validation'),
  entities: {
    Measure: {
      collection: TABLE,
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        // minimum / maximum, inclusive
        qty: { type: 'Number', minimum: 0, maximum: 100 },
        qtys: { type: 'Number', multiple: true, minimum: 0, maximum: 100 },
        whole: { type: 'Number', web: { format: 'int32' }, minimum: -5, maximum: 5 },
        day: { type: 'Date', minimum: '2020-01-01', maximum: '2020-12-31' },
        days: { type: 'Date', multiple: true, minimum: '2020-01-01', maximum: '2020-12-31' },
        slot: { type: 'Time', minimum: '09:00:00', maximum: '17:00:00' },
        slots: { type: 'Time', multiple: true, minimum: '09:00:00', maximum: '17:00:00' },
        stamp: { type: 'DateTime', minimum: '2020-01-01T00:00:00Z', maximum: '2020-12-31T23:59:59Z' },
        stamps: { type: 'DateTime', multiple: true, minimum: '2020-01-01T00:00:00Z', maximum: '2020-12-31T23:59:59Z' },
        // exclusive bounds
        open: { type: 'Number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
        opens: { type: 'Number', multiple: true, minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
        open_day: { type: 'Date', minimum: '2020-01-01', exclusiveMinimum: true, maximum: '2020-12-31', exclusiveMaximum: true },
        open_days: { type: 'Date', multiple: true, minimum: '2020-01-01', exclusiveMinimum: true, maximum: '2020-12-31', exclusiveMaximum: true },
        open_slot: { type: 'Time', minimum: '09:00:00', exclusiveMinimum: true, maximum: '17:00:00', exclusiveMaximum: true },
        open_stamp: { type: 'DateTime', minimum: '2020-01-01T00:00:00Z', exclusiveMinimum: true, maximum: '2020-12-31T23:59:59Z', exclusiveMaximum: true },
        // multipleOf
        step: { type: 'Number', multipleOf: 0.5 },
        steps: { type: 'Number', multiple: true, multipleOf: 0.5 },
        // enum
        kind: { type: 'String', enum: ['small', 'large'] },
        kinds: { type: 'String', multiple: true, enum: ['small', 'large'] },
        // pattern
        code: { type: 'String', pattern: '^[A-Z]{3}-[0-9]+$' },
        codes: { type: 'String', multiple: true, pattern: '^[A-Z]{3}-[0-9]+$' },
        // defaultValue
        d_text: { type: 'String', defaultValue: 'hello' },
        d_number: { type: 'Number', defaultValue: 7.5 },
        d_int: { type: 'Number', web: { format: 'int32' }, defaultValue: -3 },
        d_flag: { type: 'Boolean', defaultValue: true },
        d_off: { type: 'Boolean', defaultValue: false },
        d_day: { type: 'Date', defaultValue: '2021-05-06' },
        d_texts: { type: 'String', multiple: true, defaultValue: ['x', 'y'] },
        d_numbers: { type: 'Number', multiple: true, defaultValue: [1, 2.5] },
        d_kind: { type: 'String', enum: ['small', 'large'], defaultValue: 'large' },
      },
    },
  },
};

let db: TestDatabase;
let baseId: string;
const claims = { sub: 'user-1' };

const failure = (statement: string) => sqlFailure(db.sql, 'authenticated', claims, statement);

const insert = (column: string, literal: string) => `insert into app.${TABLE} (${column}) values (${literal})`;
const update = (column: string, literal: string) => `update app.${TABLE} set ${column} = ${literal} where id = '${baseId}'`;

/** The value is accepted on INSERT and on UPDATE, and stored as given. */
async function accepts(column: string, literal: string): Promise<void> {
  for (const statement of [insert(column, literal), update(column, literal)]) {
    const err = await failure(statement);
    assert.is(err, undefined, `${statement} was refused: ${err?.message}`);
  }
  const [row] = await db.sql.unsafe(`select ${column} = ${literal} as same from app.${TABLE} where id = $1`, [baseId]);
  assert.is(row!.same, true, `${column} holds ${literal}`);
}

/** The value is refused on INSERT and UPDATE with check_violation 23514 by `constraint`. */
async function rejects(column: string, literal: string, constraint: string): Promise<void> {
  for (const statement of [insert(column, literal), update(column, literal)]) {
    const err = await failure(statement);
    assert.ok(err, `${statement} was accepted`);
    assert.is(err.code, '23514', `${statement}: ${err.message}`);
    assert.is(err.constraint_name, constraint, statement);
    assert.is(err.table_name, TABLE);
  }
}

interface Case { column: string; accept: string[]; reject: string[]; constraint: string; rule: string }

const name = (column: string, suffix: string) => `${TABLE}_${column}_${suffix}`;
const min = (column: string, accept: string[], reject: string[], rule = 'minimum'): Case =>
  ({ column, accept, reject, constraint: name(column, 'minimum'), rule });
const max = (column: string, accept: string[], reject: string[], rule = 'maximum'): Case =>
  ({ column, accept, reject, constraint: name(column, 'maximum'), rule });

const boundCases: Case[] = [
  min('qty', ['0', '0.0', '50'], ['-0.01', '-1']),
  max('qty', ['100', '99.99'], ['100.01', '1000']),
  min('qtys', [`'{0,5,100}'`, `'{}'`], [`'{5,-1}'`, `'{-1,5}'`]),
  max('qtys', [`'{100,100}'`], [`'{5,101}'`, `'{101,5}'`]),
  min('whole', ['-5'], ['-6']),
  max('whole', ['5'], ['6']),
  min('day', [`'2020-01-01'`], [`'2019-12-31'`]),
  max('day', [`'2020-12-31'`], [`'2021-01-01'`]),
  min('days', [`'{2020-01-01,2020-06-01}'`], [`'{2020-06-01,2019-12-31}'`]),
  max('days', [`'{2020-06-01,2020-12-31}'`], [`'{2021-01-01,2020-06-01}'`]),
  min('slot', [`'09:00:00'`], [`'08:59:59'`]),
  max('slot', [`'17:00:00'`], [`'17:00:01'`]),
  min('slots', [`'{09:00,12:00}'`], [`'{12:00,08:59:59.999}'`]),
  max('slots', [`'{12:00,17:00}'`], [`'{12:00,17:00:00.001}'`]),
  min('stamp', [`'2020-01-01T00:00:00Z'`, `'2020-01-01T01:00:00+01:00'`], [`'2019-12-31T23:59:59Z'`, `'2020-01-01T00:30:00+01:00'`]),
  max('stamp', [`'2020-12-31T23:59:59Z'`], [`'2021-01-01T00:00:00Z'`, `'2020-12-31T23:00:00-01:00'`]),
  min('stamps', [`'{"2020-01-01 00:00:00Z","2020-05-05 12:00:00Z"}'`], [`'{"2020-05-05 12:00:00Z","2019-12-31 23:59:59Z"}'`]),
  max('stamps', [`'{"2020-12-31 23:59:59Z"}'`], [`'{"2020-05-05 12:00:00Z","2021-01-01 00:00:00Z"}'`]),
];

const exclusiveCases: Case[] = [
  min('open', ['0.001', '5'], ['0', '-1'], 'exclusiveMinimum'),
  max('open', ['9.999'], ['10', '11'], 'exclusiveMaximum'),
  min('opens', [`'{0.5,9.5}'`], [`'{5,0}'`, `'{0,5}'`], 'exclusiveMinimum'),
  max('opens', [`'{9.99}'`], [`'{5,10}'`, `'{10,5}'`], 'exclusiveMaximum'),
  min('open_day', [`'2020-01-02'`], [`'2020-01-01'`], 'exclusiveMinimum'),
  max('open_day', [`'2020-12-30'`], [`'2020-12-31'`], 'exclusiveMaximum'),
  min('open_days', [`'{2020-01-02,2020-12-30}'`], [`'{2020-06-01,2020-01-01}'`], 'exclusiveMinimum'),
  max('open_days', [`'{2020-01-02,2020-12-30}'`], [`'{2020-12-31,2020-06-01}'`], 'exclusiveMaximum'),
  min('open_slot', [`'09:00:01'`], [`'09:00:00'`], 'exclusiveMinimum'),
  max('open_slot', [`'16:59:59'`], [`'17:00:00'`], 'exclusiveMaximum'),
  min('open_stamp', [`'2020-01-01T00:00:01Z'`], [`'2020-01-01T00:00:00Z'`, `'2020-01-01T01:00:00+01:00'`], 'exclusiveMinimum'),
  max('open_stamp', [`'2020-12-31T23:59:58Z'`], [`'2020-12-31T23:59:59Z'`], 'exclusiveMaximum'),
];

const otherCases: Case[] = [
  { column: 'step', accept: ['1.5', '0', '-2', '3.0'], reject: ['0.3', '1.25', '-0.1'], constraint: name('step', 'multiple_of'), rule: 'multipleOf' },
  { column: 'steps', accept: [`'{0.5,1.5,10}'`, `'{}'`], reject: [`'{1.5,0.3}'`, `'{0.3,1.5}'`], constraint: name('steps', 'multiple_of'), rule: 'multipleOf' },
  { column: 'kind', accept: [`'small'`, `'large'`], reject: [`'medium'`, `'Small'`, `''`], constraint: name('kind', 'enum'), rule: 'enum' },
  { column: 'kinds', accept: [`'{small,large,small}'`, `'{}'`], reject: [`'{small,medium}'`, `'{medium}'`], constraint: name('kinds', 'enum'), rule: 'enum' },
  { column: 'd_kind', accept: [`'small'`], reject: [`'medium'`], constraint: name('d_kind', 'enum'), rule: 'enum' },
  { column: 'code', accept: [`'ABC-1'`, `'XYZ-12345'`], reject: [`'abc-1'`, `'ABCD-1'`, `'ABC-'`, `'xABC-1'`], constraint: name('code', 'pattern'), rule: 'pattern' },
  { column: 'codes', accept: [`'{ABC-1,DEF-2}'`, `'{}'`], reject: [`'{ABC-1,abc-2}'`, `'{nope,ABC-1}'`], constraint: name('codes', 'pattern'), rule: 'pattern' },
];

test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
  const [row] = await asRole(db.sql, 'authenticated', claims, (tx) => tx.unsafe(`insert into app.${TABLE} default values returning id`));
  baseId = row!.id as string;
});

test.after(async () => {
  await db?.close();
});

for (const c of boundCases) {
  test(`${c.rule} on ${c.column}: boundary accepted, beyond rejected by ${c.constraint}`, async () => {
    for (const v of c.accept) await accepts(c.column, v);
    for (const v of c.reject) await rejects(c.column, v, c.constraint);
  });
}

for (const c of exclusiveCases) {
  test(`${c.rule} on ${c.column}: the boundary itself is rejected by ${c.constraint}`, async () => {
    for (const v of c.accept) await accepts(c.column, v);
    for (const v of c.reject) await rejects(c.column, v, c.constraint);
  });
}

for (const c of otherCases) {
  test(`${c.rule} on ${c.column}: rejected by ${c.constraint}`, async () => {
    for (const v of c.accept) await accepts(c.column, v);
    for (const v of c.reject) await rejects(c.column, v, c.constraint);
  });
}

test('NULL passes every validation setting (only required forbids it)', async () => {
  const columns = [...new Set([...boundCases, ...exclusiveCases, ...otherCases].map((c) => c.column))];
  const err = await failure(`insert into app.${TABLE} (${columns.join(', ')}) values (${columns.map(() => 'null').join(', ')})`);
  assert.is(err, undefined, err?.message);
});

test('every constraint carries a JSON comment naming its property and rule', async () => {
  const rows = await db.sql<{ name: string; comment: string | null }[]>`
    select conname as name, obj_description(oid, 'pg_constraint') as comment
    from pg_constraint where conrelid = ${`app.${TABLE}`}::regclass and contype = 'c'`;
  const comments = new Map(rows.map((r) => [r.name, r.comment]));
  const cases = [...boundCases, ...exclusiveCases, ...otherCases];
  assert.is(comments.size, new Set(cases.map((c) => c.constraint)).size, `check constraints: ${[...comments.keys()].join(', ')}`);
  for (const c of cases) {
    const text = comments.get(c.constraint);
    assert.ok(text, `${c.constraint} exists and has a comment`);
    let info: Record<string, unknown>;
    try {
      info = JSON.parse(text) as Record<string, unknown>;
    } catch {
      assert.unreachable(`${c.constraint} comment is not JSON: ${text}`);
      return;
    }
    assert.is(info.property, c.column, `${c.constraint} property`);
    assert.is(info.rule, c.rule, `${c.constraint} rule`);
  }
});

test('defaultValue fills an omitted String, Number, Boolean and Date', async () => {
  const [row] = await asRole(db.sql, 'authenticated', claims, (tx) => tx.unsafe(
    `insert into app.${TABLE} (qty) values (1)
     returning d_text, d_number::text, d_int, d_flag, d_off, d_day::text, d_texts, d_numbers::text[], d_kind`));
  assert.equal({ ...row }, {
    d_text: 'hello',
    d_number: '7.5',
    d_int: -3,
    d_flag: true,
    d_off: false,
    d_day: '2021-05-06',
    d_texts: ['x', 'y'],
    d_numbers: ['1', '2.5'],
    d_kind: 'large',
  });
});

test('defaultValue is the column default, overridable and not re-applied to an explicit NULL', async () => {
  const defaults = await db.sql<{ name: string; def: string | null }[]>`
    select column_name as name, column_default as def from information_schema.columns
    where table_schema = 'app' and table_name = ${TABLE} and column_name like 'd\\_%'`;
  for (const d of defaults) assert.ok(d.def, `${d.name} has a column default`);
  const [row] = await asRole(db.sql, 'authenticated', claims, (tx) => tx.unsafe(
    `insert into app.${TABLE} (d_text, d_number, d_flag, d_day, d_texts) values ('given', 1, false, '1999-09-09', '{z}')
     returning d_text, d_number::text, d_flag, d_day::text, d_texts`));
  assert.equal({ ...row }, { d_text: 'given', d_number: '1', d_flag: false, d_day: '1999-09-09', d_texts: ['z'] });
  const [nulls] = await asRole(db.sql, 'authenticated', claims, (tx) => tx.unsafe(
    `insert into app.${TABLE} (d_text, d_number) values (null, null) returning d_text, d_number`));
  assert.equal({ ...nulls }, { d_text: null, d_number: null });
});

test.run();
