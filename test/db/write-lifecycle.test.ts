// Spec table 2.2 on the SQL side: what plain INSERT/UPDATE statements run as the request roles may
// do with mutable, immutable, readOnly and primary-key properties. Refusals are SQLSTATE PT400.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { asRole, freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const api = testApi('life');
const model = {
  api,
  entities: {
    Note: {
      collection: 'notes',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        text: { type: 'String' },
        code: { type: 'String', immutable: true },
        kind: { type: 'String', immutable: true, defaultValue: 'plain' },
        score: { type: 'Number', readOnly: true },
        level: { type: 'Number', readOnly: true, defaultValue: 3 },
        marks: { type: 'String', multiple: true, readOnly: true, defaultValue: ['a', 'b'] },
      },
    },
    Counter: {
      collection: 'counters',
      properties: { id: { type: 'Number', primary: true, readOnly: true, web: { format: 'int64' } }, label: { type: 'String' } },
    },
    Slot: {
      collection: 'slots',
      properties: { key: { type: 'String', primary: true, immutable: true }, label: { type: 'String' } },
    },
  },
};

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
});
test.after(async () => db?.close());

/** Runs `fn` as the authenticated role and returns the error it raised (or fails the test). */
async function refusal(fn: (tx: any) => Promise<unknown>): Promise<any> {
  try {
    await asRole(db.sql, 'authenticated', { sub: 'u1' }, fn);
  } catch (err) {
    return err;
  }
  assert.unreachable('the statement should have been refused');
}

function assertRefused(err: any, code: string, property: string, rule: string) {
  assert.is(err.code, code, err.message);
  assert.equal(JSON.parse(err.detail), { property, rule });
}

test('mutable (default): allowed on create and on update', async () => {
  const [row] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.notes (text) values ('a') returning id, text`);
  const [upd] = await asRole(db.sql, 'authenticated', (tx) => tx`update app.notes set text = 'b' where id = ${row!.id} returning text`);
  assert.is(upd!.text, 'b');
});

test('immutable: allowed on create, defaulted by its generator when omitted, refused with PT400 when changed', async () => {
  const [row] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.notes (code) values ('C1') returning id, code, kind`);
  assert.is(row!.code, 'C1');
  assert.is(row!.kind, 'plain');
  const err = await refusal((tx) => tx`update app.notes set code = 'C2' where id = ${row!.id}`);
  assertRefused(err, 'PT400', 'code', 'immutable');
  assert.match(err.message, 'immutable property "code" cannot be changed');
  // Writing the same value again is not a change.
  const [same] = await asRole(db.sql, 'authenticated', (tx) => tx`update app.notes set code = 'C1', text = 'x' where id = ${row!.id} returning code`);
  assert.is(same!.code, 'C1');
});

test('readOnly: refused with PT400 when supplied on create, and when changed on update', async () => {
  assertRefused(await refusal((tx) => tx`insert into app.notes (score) values (5)`), 'PT400', 'score', 'readOnly');
  const [row] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.notes (text) values ('r') returning id, score, level, marks`);
  assert.is(row!.score, null);
  assert.is(Number(row!.level), 3, 'a readOnly defaultValue is filled by the server');
  assert.equal(row!.marks, ['a', 'b'], 'a readOnly list default too');
  assertRefused(await refusal((tx) => tx`insert into app.notes (marks) values (${['x']})`), 'PT400', 'marks', 'readOnly');
  assertRefused(await refusal((tx) => tx`update app.notes set score = 1 where id = ${row!.id}`), 'PT400', 'score', 'readOnly');
  assertRefused(await refusal((tx) => tx`update app.notes set level = 4 where id = ${row!.id}`), 'PT400', 'level', 'readOnly');
});

test('primary + readOnly String: the server generates a uuid; a supplied or changed id is refused', async () => {
  const [row] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.notes (text) values ('k') returning id`);
  assert.match(row!.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assertRefused(await refusal((tx) => tx`insert into app.notes (id, text) values ('mine', 'k')`), 'PT400', 'id', 'readOnly');
  assertRefused(await refusal((tx) => tx`update app.notes set id = 'other' where id = ${row!.id}`), 'PT400', 'id', 'primary');
});

test('primary + readOnly Number: an identity column; PostgreSQL refuses supplied and changed values (428C9)', async () => {
  const [a] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.counters (label) values ('a') returning id`);
  const [b] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.counters (label) values ('b') returning id`);
  assert.is(BigInt(b!.id) - BigInt(a!.id), 1n);
  const supplied = await refusal((tx) => tx`insert into app.counters (id, label) values (99, 'c')`);
  assert.is(supplied.code, '428C9');
  const changed = await refusal((tx) => tx`update app.counters set id = 99 where id = ${a!.id}`);
  assert.is(changed.code, '428C9');
});

test('primary + immutable: client-assignable or defaulted on create, refused with PT400 on update', async () => {
  const [mine] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.slots (key, label) values ('my-key', 'x') returning key`);
  assert.is(mine!.key, 'my-key');
  const [auto] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.slots (label) values ('y') returning key`);
  assert.match(auto!.key, /^[0-9a-f-]{36}$/);
  assertRefused(await refusal((tx) => tx`update app.slots set key = 'moved' where key = 'my-key'`), 'PT400', 'key', 'primary');
});

test('refusals leave the data unchanged', async () => {
  const [row] = await asRole(db.sql, 'authenticated', (tx) => tx`insert into app.notes (code, text) values ('K', 'keep') returning id`);
  await refusal((tx) => tx`update app.notes set code = 'L', text = 'lost' where id = ${row!.id}`);
  const [after] = await db.sql`select code, text from app.notes where id = ${row!.id}`;
  assert.equal({ ...after }, { code: 'K', text: 'keep' });
});

test.run();
