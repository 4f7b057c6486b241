// migrateDatabase against a real database: applies current.sql, skips it when unchanged, re-runs a
// changed idempotent script over existing rows, and refuses a failing script atomically with PG's message.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { calculateHash } from 'graphile-migrate/dist/hash.js';
import { describeFailure, migrateDatabase, MigrationError } from '../../ops/migrate.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';

let db: TestDatabase;
let folder: string;

const V1 = 'create table if not exists widgets (id int primary key, name text not null);\n';
const V2 = V1 + 'alter table widgets add column if not exists colour text;\n';
const REFUSED = "create table if not exists never_made (x int);\n" +
  "do $$ begin raise exception 'Refused: example' using detail = 'd', hint = 'h'; end $$;\n";

async function apply(script: string) {
  writeFileSync(join(folder, 'current.sql'), script);
  return migrateDatabase({ connectionString: db.url, migrationsFolder: folder });
}

async function tableExists(name: string): Promise<boolean> {
  const [row] = await db.sql`select to_regclass(${'public.' + name}) is not null as found`;
  return row?.found === true;
}

async function refusal(script: string): Promise<MigrationError> {
  const err = await apply(script).then(() => undefined, (e: unknown) => e);
  assert.instance(err, MigrationError, 'the migration was refused');
  return err as MigrationError;
}

test.before(async () => {
  db = await freshDatabase();
  folder = mkdtempSync(join(tmpdir(), 'migrate-test-'));
  mkdirSync(join(folder, 'committed'));
});

test.after(async () => {
  await db?.close();
  rmSync(folder, { recursive: true, force: true });
});

test('applies a hand-written current.sql', async () => {
  const result = await apply(V1);
  assert.equal(result, { committed: 0, current: 'applied' });
  assert.ok(await tableExists('widgets'));
});

test('skips current.sql when it has not changed', async () => {
  assert.is((await apply(V1)).current, 'unchanged');
});

test('re-runs a changed idempotent script over existing rows', async () => {
  await db.sql`insert into widgets (id, name) values (1, 'sprocket')`;
  assert.is((await apply(V2)).current, 'applied');
  const rows = await db.sql`select id, name, colour from widgets`;
  assert.equal([...rows], [{ id: 1, name: 'sprocket', colour: null }]);
});

test('refuses a failing script with the PostgreSQL message, applying nothing', async () => {
  const err = await refusal(REFUSED);
  assert.match(err.message, 'Refused: example');
  assert.is(err.code, 'P0001');
  assert.is(err.detail, 'd');
  assert.is(err.hint, 'h');
  assert.not.ok(await tableExists('never_made'), 'the statement before the failure was rolled back');
  assert.ok(await tableExists('widgets'));
});

test('names the line and column of a failing statement', async () => {
  const err = await refusal(V2 + '\nselect * from no_such_table;\n');
  assert.is(err.code, '42P01');
  assert.is(err.line, 4);
  assert.is(err.file, 'current.sql');
  assert.match(err.message, 'current.sql line 4');
});

test('applies the script again after a refusal', async () => {
  assert.is((await apply(V2)).current, 'applied');
  const [row] = await db.sql`select count(*)::int as n from widgets`;
  assert.is(row?.n, 1);
});

test('migrations of one database run one after the other: the second waits for the first, then applies', async () => {
  const V3 = V2 + 'alter table widgets add column if not exists size int;\n';
  writeFileSync(join(folder, 'current.sql'), V3);
  // Another migration holds the lock (a session of this test, which releases it below).
  const held = await db.sql.reserve();
  try {
    await held`select pg_advisory_lock(1835102313, -1)`;
    const told: string[] = [];
    const waiting = migrateDatabase({ connectionString: db.url, migrationsFolder: folder, onWait: (m) => told.push(m) });
    for (let i = 0; i < 100 && told.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(told.length, 1, 'the waiting migration says why it waits');
    assert.match(told[0]!, /Another migration of this database is running \(backend pid \d+/);
    const [before] = await db.sql`select count(*)::int as n from information_schema.columns where table_name = 'widgets' and column_name = 'size'`;
    assert.is(before?.n, 0, 'nothing applied while the other holds the lock');
    await held`select pg_advisory_unlock(1835102313, -1)`;
    assert.is((await waiting).current, 'applied');
  } finally {
    held.release();
  }
  // Two at once (gateways started together): both end well, one applies, the other finds it done.
  writeFileSync(join(folder, 'current.sql'), V3 + 'alter table widgets add column if not exists weight int;\n');
  const both = await Promise.all([0, 1].map(() => migrateDatabase({ connectionString: db.url, migrationsFolder: folder, onWait: () => {} })));
  assert.equal(both.map((r) => r.current).sort(), ['applied', 'unchanged']);
});

test('a refused committed migration is named, with why a later model cannot undo it', async () => {
  const other = mkdtempSync(join(tmpdir(), 'migrate-committed-'));
  try {
    mkdirSync(join(other, 'committed'));
    const body = "do $$ begin raise exception 'Refused: the rule x cannot be applied' using hint = 'Fix those rows.'; end $$;\n";
    writeFileSync(join(other, 'committed', '000001-rule.sql'), `--! Previous: -\n--! Hash: ${calculateHash(body, null)}\n\n${body}`);
    const err = await migrateDatabase({ connectionString: db.url, migrationsFolder: other }).then(() => undefined, (e: unknown) => e);
    assert.instance(err, MigrationError);
    assert.is((err as MigrationError).file, 'committed/000001-rule.sql');
    const printed = describeFailure(err);
    assert.match(printed, 'in: committed/000001-rule.sql');
    assert.match(printed, 'this migration is committed and cannot change');
    const current = await refusal(REFUSED);
    assert.is(current.file, 'current.sql', 'a refusal of current.sql names it');
    assert.not.match(describeFailure(current), 'is committed');
  } finally {
    rmSync(other, { recursive: true, force: true });
  }
});

test('a refusal prints its message, detail and hint, not where in the reconcile helpers it was raised', () => {
  const where = 'PL/pgSQL function meta.ensure_column(text,text,text,boolean,text,boolean) line 12 at RAISE';
  const refused = describeFailure(new MigrationError({ message: 'Refused: cannot add required property items.size', hint: 'Give the property a defaultValue.', where }));
  assert.match(refused, 'Refused: cannot add required property items.size');
  assert.match(refused, 'hint: Give the property a defaultValue.');
  assert.not.match(refused, 'meta.ensure_column');
  assert.match(describeFailure(new MigrationError({ message: 'syntax error', where })), 'where: PL/pgSQL', 'other failures keep it');
});

test.run();
