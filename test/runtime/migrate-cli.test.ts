// `npm run migrate -- --migrations <dir>` as a user runs it, against a fresh database via DATABASE_URL:
// one success line and exit 0, or PostgreSQL's refusal and exit 1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmRun } from '../harness/child.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';

let db: TestDatabase;
let folder: string;

function migrate(script: string | undefined) {
  rmSync(join(folder, 'current.sql'), { force: true });
  if (script !== undefined) writeFileSync(join(folder, 'current.sql'), script);
  return npmRun('migrate', ['--migrations', folder], { DATABASE_URL: db.url });
}

test.before(async () => {
  db = await freshDatabase();
  folder = mkdtempSync(join(tmpdir(), 'migrate-cli-test-'));
  mkdirSync(join(folder, 'committed'));
});

test.after(async () => {
  await db?.close();
  rmSync(folder, { recursive: true, force: true });
});

test('applies current.sql and exits 0', async () => {
  const run = await migrate('create table if not exists gadgets (id int);\n');
  assert.is(run.code, 0, run.stderr);
  assert.match(run.stdout, `Migrated database ${db.name}`);
  assert.match(run.stdout, 'current.sql applied');
  const [row] = await db.sql`select to_regclass('public.gadgets') is not null as found`;
  assert.ok(row?.found);
});

test('prints the refusal and exits 1 when the script fails', async () => {
  const run = await migrate("do $$ begin raise exception 'Refused: example' using hint = 'Fix the model'; end $$;\n");
  assert.is(run.code, 1);
  assert.match(run.stderr, 'Refused: example');
  assert.match(run.stderr, 'hint: Fix the model');
  assert.not.match(run.stdout, 'Migrated');
});

test('exits 1 with a hint when there is nothing to migrate', async () => {
  const run = await migrate(undefined);
  assert.is(run.code, 1);
  assert.match(run.stderr, 'npm run compile');
});

test('--model compiles the model into the folder\'s current.sql, then migrates to it; a refused model exits 1', async () => {
  const modelDb = await freshDatabase();
  const into = mkdtempSync(join(tmpdir(), 'migrate-cli-model-'));
  try {
    const run = await npmRun('migrate', ['--model', 'examples/billing.model.json', '--migrations', into], { DATABASE_URL: modelDb.url });
    assert.is(run.code, 0, run.stderr);
    assert.match(run.stdout, 'current.sql applied');
    assert.match(readFileSync(join(into, 'current.sql'), 'utf8'), 'CREATE TABLE');
    const [row] = await modelDb.sql`select api.manifest()->'api'->>'slug' as slug`;
    assert.is(row?.slug, 'billing');
    writeFileSync(join(into, 'broken.model.json'), '{"api": {}}');
    const refused = await npmRun('migrate', ['--model', join(into, 'broken.model.json'), '--migrations', into], { DATABASE_URL: modelDb.url });
    assert.is(refused.code, 1);
    assert.match(refused.stderr, 'is not a valid model');
  } finally {
    await modelDb.close();
    rmSync(into, { recursive: true, force: true });
  }
});

test.run();
