// The shipped example models end to end through the user's commands: `npm run compile -- --model`
// then `npm run migrate` install a schema whose constraints and indexes are named after properties.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFile } from '../../compiler/index.ts';
import { npmRun, root } from '../harness/child.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';

const folders: string[] = [];
const dbs: TestDatabase[] = [];
test.after(async () => {
  for (const d of dbs) await d.close();
  for (const f of folders) rmSync(f, { recursive: true, force: true });
});

async function compileAndMigrate(example: string): Promise<TestDatabase> {
  const folder = mkdtempSync(join(tmpdir(), `example-${example}-`));
  folders.push(folder);
  mkdirSync(join(folder, 'committed'));
  const db = await freshDatabase();
  dbs.push(db);
  const compiled = await npmRun('compile', ['--model', `examples/${example}.model.json`, '--out', folder], {});
  assert.is(compiled.code, 0, compiled.stderr);
  const migrated = await npmRun('migrate', ['--migrations', folder], { DATABASE_URL: db.url });
  assert.is(migrated.code, 0, migrated.stderr + migrated.stdout);
  return db;
}

const names = async (db: TestDatabase, table: string) => {
  const cons = await db.sql`select conname from pg_constraint where conrelid = ${'app.' + table}::regclass order by 1`;
  const idx = await db.sql`select indexname from pg_indexes where schemaname = 'app' and tablename = ${table} order by 1`;
  return { constraints: cons.map((r) => r.conname as string), indexes: idx.map((r) => r.indexname as string) };
};

test('publishing: compile + migrate installs every table with property-named rules', async () => {
  const db = await compileAndMigrate('publishing');
  const tables = (await db.sql`select tablename from pg_tables where schemaname = 'app' order by 1`).map((r) => r.tablename);
  assert.equal(tables, ['comments', 'posts', 'posts_tags', 'projects', 'projects_members', 'tags', 'users', 'users_profile']);
  const posts = await names(db, 'posts');
  for (const c of ['posts_pkey', 'posts_project_id_fkey', 'posts_title_pattern', 'posts_status_enum', 'posts_rating_minimum',
    'posts_rating_maximum', 'posts_rating_multiple_of', 'posts_word_count_minimum', 'posts_cover_file', 'posts_attachment_file']) {
    assert.ok(posts.constraints.includes(c), `missing constraint ${c}: ${posts.constraints}`);
  }
  for (const i of ['posts_title_fts', 'posts_body_fts', 'posts_meta_gin', 'posts_meta_address_city_idx', 'posts_meta_priority_idx',
    'posts_project_id_idx', 'posts_author_id_idx']) {
    assert.ok(posts.indexes.includes(i), `missing index ${i}: ${posts.indexes}`);
  }
  const users = await names(db, 'users');
  for (const c of ['users_email_key', 'users_email_email']) assert.ok(users.constraints.includes(c), c);
  assert.ok(users.indexes.includes('users_display_name_fts'));
  const members = await names(db, 'projects_members');
  for (const c of ['projects_members_pkey', 'projects_members_project_id_fkey', 'projects_members_user_id_fkey',
    'projects_members_role_enum', 'projects_members_status_enum']) assert.ok(members.constraints.includes(c), c);
  const [comment] = await db.sql`select obj_description(oid, 'pg_constraint') as c from pg_constraint where conname = 'posts_rating_multiple_of'`;
  assert.equal({ ...JSON.parse(comment!.c), fingerprint: 'x' }, { property: 'rating', rule: 'multipleOf', fingerprint: 'x' });
});

test('billing: compile + migrate installs invoices with their rules and JSON path indexes', async () => {
  const db = await compileAndMigrate('billing');
  const invoices = await names(db, 'invoices');
  for (const c of ['invoices_pkey', 'invoices_number_pattern', 'invoices_status_enum', 'invoices_amount_minimum',
    'invoices_currency_enum', 'invoices_due_on_minimum', 'invoices_pdf_file', 'invoices_customer_id_fkey']) {
    assert.ok(invoices.constraints.includes(c), `missing ${c}: ${invoices.constraints}`);
  }
  const customers = await names(db, 'customers');
  for (const i of ['customers_name_fts', 'customers_vip_idx', 'customers_address_city_idx', 'customers_address_geo_lat_idx']) {
    assert.ok(customers.indexes.includes(i), `missing ${i}: ${customers.indexes}`);
  }
  const [amount] = await db.sql`select pg_get_constraintdef(oid) as d from pg_constraint where conname = 'invoices_amount_minimum'`;
  assert.match(amount!.d, /amount > /, 'exclusiveMinimum makes the bound strict');
});

test('db/migrations/current.sql is the compiled default model (run `npm run compile` after changing the compiler)', () => {
  const committed = readFileSync(join(root, 'db/migrations/current.sql'), 'utf8');
  assert.ok(committed === compileFile(join(root, 'examples/publishing.model.json')).sql, 'db/migrations/current.sql is stale');
});

test.run();
