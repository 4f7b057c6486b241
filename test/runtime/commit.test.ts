// The migration workflow a team reviews: `npm run commit` commits the engine once as its own migration,
// then each model change as a small delta; the chain builds what the whole script builds, drift is
// refused, and graphile-migrate's own `commit` works with the documented variables.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emitMigration } from '../../compiler/emit.ts';
import { NOTHING_CHANGED } from '../../compiler/delta.ts';
import { validateModel } from '../../compiler/model/validate.ts';
import { commitModel, ProofError } from '../../ops/commit.ts';
import { migrateDatabase } from '../../ops/migrate.ts';
import { dropDatabase, quoteIdent, withDatabase } from '../../ops/pg/admin.ts';
import { schemaShape } from '../../ops/pg/schema-shape.ts';
import { npmRun, root, runProcess } from '../harness/child.ts';
import { adminUrl, freshDatabase, installSql, type TestDatabase } from '../harness/db.ts';

let dev: TestDatabase;
let dir: string;
let folder: string;
const billing = JSON.parse(readFileSync(join(root, 'examples/billing.model.json'), 'utf8'));
// Invoices embed their customer (include=customer), so a change to Customer changes the invoices' SQL too;
// nothing embeds an invoice, so a change to Invoice is the invoices' alone.
const withNote = structuredClone(billing);
withNote.entities.Invoice.properties.note = { type: 'String' };
const withPhone = structuredClone(withNote);
withPhone.entities.Customer.properties.phone = { type: 'String' };
const withMemo = structuredClone(withNote);
withMemo.entities.Invoice.properties.memo = { type: 'String' };

const files = () => readdirSync(join(folder, 'committed')).sort();
const committed = (f: string) => readFileSync(join(folder, 'committed', f), 'utf8');
const env = () => ({ DATABASE_URL: dev.url });

test.before(async () => {
  dev = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'commit-test-'));
  folder = join(dir, 'migrations');
  writeFileSync(join(dir, 'note.model.json'), JSON.stringify(withNote));
});
test.after(async () => {
  if (dev) await dropDatabase(adminUrl(), `${dev.name}_shadow`);
  await dev?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('the first commit: the engine as its own migration, then the model', async () => {
  const run = await npmRun('commit', ['--model', 'examples/billing.model.json', '--migrations', folder, '-m', 'baseline'], env(), 120_000);
  assert.is(run.code, 0, run.stderr);
  assert.equal(files(), ['000001-engine.sql', '000002-baseline.sql']);
  assert.match(committed('000001-engine.sql'), /^-- unit engine [0-9a-f]{16}$/m);
  assert.not.match(committed('000001-engine.sql'), 'CREATE TABLE IF NOT EXISTS "app"');
  assert.not.match(committed('000002-baseline.sql'), 'FUNCTION lib.merge_patch', 'the model migration holds no engine');
  assert.match(committed('000002-baseline.sql'), /^-- unit customers column email [0-9a-f]{16}$/m);
  assert.match(committed('000002-baseline.sql'), /^-- The whole model: 2 entities, \d+ properties/m);
  assert.is(readFileSync(join(folder, 'current.sql'), 'utf8'), NOTHING_CHANGED);
  const [row] = await dev.sql`select count(*)::int as n from graphile_migrate.migrations`;
  assert.is(row!.n, 2, 'graphile-migrate ran both on the development database');
});

test('a model change is a small script of the change only; nothing changed, nothing committed', async () => {
  const run = await npmRun('commit', ['--model', join(dir, 'note.model.json'), '--migrations', folder, '-m', 'invoice note'], env(), 120_000);
  assert.is(run.code, 0, run.stderr);
  assert.equal(files().slice(2), ['000003-invoice-note.sql']);
  const delta = committed('000003-invoice-note.sql');
  // The change itself, as a person would write it, under a summary in the model's terms.
  assert.match(delta, /^--   added property Invoice\.note$/m);
  assert.match(delta, 'ALTER TABLE "app"."invoices" ADD COLUMN IF NOT EXISTS "note" character varying(255);');
  assert.not.match(delta, 'api.customers_read', 'the customers are unchanged');
  assert.not.match(delta, 'meta.ensure_column', 'the columns the invoices had are not asserted again');
  assert.not.match(delta, '-- unit engine');
  const lines = delta.split('\n').length, baseline = committed('000002-baseline.sql').split('\n').length;
  // Most of it is the ten invoice functions whose text changed (each names the columns).
  assert.ok(lines < 800 && lines * 3 < baseline, `${lines} lines (the baseline: ${baseline})`);
  assert.match(delta, /^UPDATE lib\.manifest_resources SET resource = lib\.merge_patch\(resource, '\{$/m, 'the manifest entry as a patch');
  assert.ok(delta.match(/^-- unit invoices \S+/gm)!.length > 0);
  assert.not.match(delta, /^-- unit customers /m);
  const again = await npmRun('commit', ['--model', join(dir, 'note.model.json'), '--migrations', folder], env(), 120_000);
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, 'Nothing to commit');
  assert.is(files().length, 3);
  const compiled = await npmRun('compile', ['--model', join(dir, 'note.model.json'), '--out', folder], {});
  assert.is(compiled.code, 0, compiled.stderr);
  assert.is(readFileSync(join(folder, 'current.sql'), 'utf8'), NOTHING_CHANGED);
});

test('the committed chain builds the database the whole script builds', async () => {
  const chain = await freshDatabase(), whole = await freshDatabase();
  try {
    await migrateDatabase({ connectionString: chain.url, migrationsFolder: folder });
    await installSql(whole, emitMigration(validateModel(withNote)));
    assert.equal(await schemaShape(chain.sql), await schemaShape(whole.sql));
  } finally {
    await chain.close();
    await whole.close();
  }
});

test('a chain that drifted from the model is refused, and nothing is committed', async () => {
  // A hand-written migration dropped the customers' policies; the next delta (an Invoice change) leaves the
  // customers' unit alone, so the chain would lack them.
  const drift = join(folder, 'committed', '000004-drift.sql');
  const policies = await dev.sql`select policyname from pg_policies where tablename = 'customers'`;
  writeFileSync(drift, `--! Previous: -\n--! Hash: sha1:0\n\n${policies.map((p) => `DROP POLICY ${quoteIdent(p.policyname)} ON app.customers;`).join('\n')}\n`);
  try {
    const err = await commitModel({
      model: validateModel(withMemo), folder, databaseUrl: dev.url,
      shadowUrl: withDatabase(dev.url, `${dev.name}_shadow`), rootUrl: adminUrl(),
    }).then(() => undefined, (e: unknown) => e);
    assert.instance(err, ProofError, String((err as Error)?.stack ?? err));
    assert.ok((err as ProofError).differences.some((d) => d.startsWith('- policy app.customers.')), (err as ProofError).message);
    assert.equal(files(), ['000001-engine.sql', '000002-baseline.sql', '000003-invoice-note.sql', '000004-drift.sql']);
  } finally {
    chmodSync(drift, 0o644);
    rmSync(drift);
  }
});

test("graphile-migrate's own commit works with DATABASE_URL, SHADOW_DATABASE_URL and ROOT_DATABASE_URL", async () => {
  writeFileSync(join(dir, 'phone.model.json'), JSON.stringify(withPhone));
  writeFileSync(join(dir, '.gmrc'), JSON.stringify({ migrationsFolder: './migrations' }));
  const compiled = await npmRun('compile', ['--model', join(dir, 'phone.model.json'), '--out', folder], {});
  assert.is(compiled.code, 0, compiled.stderr);
  assert.match(readFileSync(join(folder, 'current.sql'), 'utf8'), /^-- unit customers column phone /m);
  const cli = join(root, 'node_modules/graphile-migrate/dist/cli.js');
  const run = await runProcess(process.execPath, [cli, 'commit', '--message', 'customer phone'],
    { DATABASE_URL: dev.url, SHADOW_DATABASE_URL: withDatabase(dev.url, `${dev.name}_shadow`), ROOT_DATABASE_URL: adminUrl() }, 120_000, dir);
  assert.is(run.code, 0, run.stdout + run.stderr);
  assert.equal(files().slice(3), ['000004-customer-phone.sql']);
  assert.match(committed('000004-customer-phone.sql'), 'ALTER TABLE "app"."customers" ADD COLUMN IF NOT EXISTS "phone"');
  const [row] = await dev.sql`select count(*)::int as n from information_schema.columns where table_name = 'customers' and column_name = 'phone'`;
  assert.is(row!.n, 1);
});

test.run();
