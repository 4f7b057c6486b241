// Renames said in the model (renamedFrom) travel in committed migrations: a property holding data and an entity
// holding rows are renamed on a second database migrated to the earlier commit, every value kept, the API
// answering under the new names; an added optional property commits as a small delta that applies over rows; a
// new index of a table that exists is built concurrently, in a migration of its own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateModel } from '../../compiler/model/validate.ts';
import { commitModel } from '../../ops/commit.ts';
import { migrateDatabase } from '../../ops/migrate.ts';
import { dropDatabase, withDatabase } from '../../ops/pg/admin.ts';
import { adminUrl, freshDatabase, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

let dev: TestDatabase, other: TestDatabase;
let dir: string, folder: string;

const key = { type: 'String', primary: true, readOnly: true };
const v1 = {
  api: testApi('library'),
  entities: {
    Author: { collection: 'authors', properties: { id: key, name: { type: 'String', required: true } } },
    Book: {
      collection: 'books',
      properties: { id: key, title: { type: 'String', required: true }, pages: { type: 'Number' }, author_id: { type: 'String', references: 'Author' } },
    },
  },
};
// Book.title is now headline (required, holding data).
const v2 = structuredClone(v1) as any;
v2.entities.Book.properties = { id: key, headline: { type: 'String', required: true, renamedFrom: 'title' }, pages: { type: 'Number' },
  author_id: { type: 'String', references: 'Author' } };
// Author is now Writer, in the collection writers; the books' reference follows.
const v3 = structuredClone(v2) as any;
v3.entities = { Writer: { ...v3.entities.Author, collection: 'writers', renamedFrom: { entity: 'Author', collection: 'authors' } }, Book: v3.entities.Book };
v3.entities.Book.properties.author_id.references = 'Writer';
// Later, an optional property with an index: the migration is the column, its index and the functions that changed
// (the index is built in that migration: its column is new, so no concurrent build may come before it).
const v4 = structuredClone(v3) as any;
v4.entities.Book.properties.isbn = { type: 'String', indexed: true };

// Then an index on a table with rows.
const v5 = structuredClone(v4) as any;
v5.entities.Book.properties.pages.indexed = true;

const files = () => readdirSync(join(folder, 'committed')).filter((f) => f.endsWith('.sql')).sort();
const last = () => readFileSync(join(folder, 'committed', files().at(-1)!), 'utf8');
const commit = (model: unknown, message: string) => commitModel({
  model: validateModel(model), folder, databaseUrl: dev.url, message,
  shadowUrl: withDatabase(dev.url, `${dev.name}_shadow`), rootUrl: adminUrl(),
});
const migrateOther = () => migrateDatabase({ connectionString: other.url, migrationsFolder: folder });
const call = async (db: TestDatabase, fn: string, args: unknown) =>
  (await db.sql`select api.dispatch('anon', '{}'::jsonb, '127.0.0.1', ${fn}, ${db.sql.json(args as never)}) as r`)[0]!.r;

test.before(async () => {
  [dev, other] = await Promise.all([freshDatabase(), freshDatabase()]);
  dir = mkdtempSync(join(tmpdir(), 'commit-delta-'));
  folder = join(dir, 'migrations');
});
test.after(async () => {
  if (dev) await dropDatabase(adminUrl(), `${dev.name}_shadow`);
  await Promise.all([dev?.close(), other?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

test('the baseline, applied to a second database that then takes rows', async () => {
  await commit(v1, 'baseline');
  await migrateOther();
  for (const db of [dev, other]) {
    const author = await call(db, 'authors_create', { body: { name: 'Ursula' } });
    await call(db, 'books_create', { body: { title: 'The Dispossessed', pages: 387, author_id: author.data.id } });
    await call(db, 'books_create', { body: { title: 'Lathe of Heaven', author_id: author.data.id } });
  }
});

test('a property renamed through renamedFrom: the committed migration renames the column; every value is kept', async () => {
  await commit(v2, 'book headline');
  const sql = last();
  assert.match(sql, /^--   renamed property Book\.title to Book\.headline$/m);
  assert.match(sql, "SELECT meta.rename_column('books', 'title', 'headline');");
  await migrateOther();
  const rows = await other.sql`select headline, pages::int as pages from app.books order by headline`;
  assert.equal(rows.map((r) => [r.headline, r.pages]), [['Lathe of Heaven', null], ['The Dispossessed', 387]]);
  const list = await call(other, 'books_list', { sort: [{ field: 'headline', desc: false }] });
  assert.equal(list.data.map((b: any) => b.headline), ['Lathe of Heaven', 'The Dispossessed']);
  assert.not.ok('title' in list.data[0]);
});

test('an entity renamed through renamedFrom: the table is renamed with its rows, references and change log follow', async () => {
  await commit(v3, 'writers');
  const sql = last();
  assert.match(sql, /^--   renamed entity Author to Writer$/m);
  assert.match(sql, "SELECT meta.rename_table('authors', 'writers');");
  await migrateOther();
  const [writer] = await other.sql`select id, name from app.writers`;
  assert.is(writer!.name, 'Ursula');
  assert.is((await other.sql`select to_regclass('app.authors') as t`)[0]!.t, null);
  const read = await call(other, 'writers_read', { id: writer!.id });
  assert.is(read.data.name, 'Ursula');
  const books = await call(other, 'books_list', { filter: { field: 'author_id', op: 'eq', value: writer!.id } });
  assert.is(books.data.length, 2);
  const [log] = await other.sql`select count(*)::int as n from lib.changes where table_name = 'writers' and entity = 'Writer'`;
  assert.is(log!.n, 1, "the writer's creation is in the log under its new names");
});

test('an added optional property commits as a small delta that applies over rows', async () => {
  const before = files().length;
  await commit(v4, 'isbn');
  assert.is(files().length, before + 1);
  const sql = last(), lines = sql.split('\n').length;
  assert.match(sql, /^--   added property Book\.isbn$/m);
  assert.match(sql, 'ALTER TABLE "app"."books" ADD COLUMN IF NOT EXISTS "isbn" character varying(255);');
  assert.match(sql, /SELECT meta\.ensure_index\(\s*'books',\s*'books_isbn_idx'/);
  assert.not.match(sql, 'meta.ensure_column', 'the columns the books had are not asserted again');
  assert.not.match(sql, '"api"."writers_', "the writers' functions did not change");
  assert.ok(lines < 600, `${lines} lines`); // most of them the books' functions whose text changed
  await migrateOther();
  const [row] = await other.sql`select count(*)::int as n, count(isbn)::int as isbn from app.books`;
  assert.equal([row!.n, row!.isbn], [2, 0]);
});

test('a new index of a table with rows: built concurrently in a migration of its own, then taken over by the model', async () => {
  const before = files();
  await commit(v5, 'pages index');
  const added = files().filter((f) => !before.includes(f));
  assert.equal(added.length, 2, added.join(', '));
  const index = readFileSync(join(folder, 'committed', added[0]!), 'utf8');
  assert.match(added[0]!, /-index-books_pages_idx\.sql$/);
  assert.match(index, /^--! no-transaction$/m);
  assert.match(index, 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "books_pages_idx" ON "app"."books"');
  assert.match(last(), /SELECT meta\.ensure_index\(\s*'books',\s*'books_pages_idx'/);
  assert.not.match(last(), 'meta.ensure_column', 'an added index reshapes no column');
  await migrateOther();
  const [row] = await other.sql`select x.indisvalid as valid, obj_description(x.indexrelid, 'pg_class')::jsonb ->> 'rule' as rule
    from pg_index x where x.indexrelid = 'app.books_pages_idx'::regclass`;
  assert.equal([row!.valid, row!.rule], [true, 'indexed']);
});

test.run();
