// Spec 2.1 in the real catalog: each property type's column type, and what required, multiple,
// primary, unique, indexed, searchIndexed, references, writeOnly and deprecated do in PostgreSQL.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { asRole, freshDatabase, installModel, sqlFailure, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';

const model = {
  api: testApi('types'),
  entities: {
    Sample: {
      collection: 'samples',
      properties: {
        id: { type: 'String', primary: true, readOnly: true },
        name: { type: 'String', required: true },
        bio: { type: 'String', long: true },
        count32: { type: 'Number', web: { format: 'int32' } },
        count64: { type: 'Number', web: { format: 'int64' } },
        ratio: { type: 'Number', web: { format: 'float' } },
        amount: { type: 'Number', web: { format: 'double' } },
        plain: { type: 'Number' },
        flag: { type: 'Boolean' },
        day: { type: 'Date' },
        slot: { type: 'Time' },
        stamp: { type: 'DateTime' },
        attachment: { type: 'Binary', modules: { FileURL: {} } },
        doc: { type: 'JSON' },
        labels: { type: 'String', multiple: true },
        notes: { type: 'String', long: true, multiple: true },
        scores: { type: 'Number', web: { format: 'int32' }, multiple: true },
        weights: { type: 'Number', multiple: true },
        flags: { type: 'Boolean', multiple: true },
        days: { type: 'Date', multiple: true },
        slots: { type: 'Time', multiple: true },
        stamps: { type: 'DateTime', multiple: true },
        code: { type: 'String', unique: true },
        rank: { type: 'Number', web: { format: 'int32' }, indexed: true },
        summary: { type: 'String', searchIndexed: true },
        parent: { type: 'String', references: 'Parent' },
        secret: { type: 'String', writeOnly: true },
        legacy: { type: 'String', deprecated: true },
      },
    },
    Counter: {
      collection: 'counters',
      properties: {
        id: { type: 'Number', primary: true, readOnly: true },
        label: { type: 'String' },
      },
    },
    Parent: {
      collection: 'parents',
      properties: {
        key: { type: 'String', primary: true, immutable: true },
        title: { type: 'String' },
      },
    },
  },
};

let db: TestDatabase;
const claims = { sub: 'user-1' };

const failure = (statement: string) => sqlFailure(db.sql, 'authenticated', claims, statement);

async function refused(statement: string, code: string): Promise<postgres.PostgresError> {
  const err = await failure(statement);
  assert.ok(err, `expected SQLSTATE ${code} from: ${statement}`);
  assert.is(err.code, code, `${statement}: ${err.message}`);
  return err;
}

const asUser = <T>(fn: (tx: postgres.TransactionSql) => Promise<T>) => asRole(db.sql, 'authenticated', claims, fn);

/** format_type() of every column of app.<table>, with NOT NULL and identity. */
async function columns(table: string): Promise<Map<string, { type: string; notNull: boolean; identity: string }>> {
  const rows = await db.sql<{ name: string; type: string; not_null: boolean; identity: string }[]>`
    select a.attname as name, format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null, a.attidentity as identity
    from pg_attribute a
    where a.attrelid = ${`app.${table}`}::regclass and a.attnum > 0 and not a.attisdropped`;
  return new Map(rows.map((r) => [r.name, { type: r.type, notNull: r.not_null, identity: r.identity }]));
}

async function index(name: string): Promise<{ method: string; def: string; table: string } | undefined> {
  const [row] = await db.sql<{ method: string; def: string; table: string }[]>`
    select am.amname as method, pg_get_indexdef(c.oid) as def, t.relname as table
    from pg_class c join pg_am am on am.oid = c.relam join pg_index i on i.indexrelid = c.oid
    join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'app' and c.relname = ${name}`;
  return row;
}

async function plan(tx: postgres.TransactionSql, query: string): Promise<string> {
  const rows = await tx.unsafe(`explain ${query}`);
  return rows.map((r) => r['QUERY PLAN'] as string).join('\n');
}

test.before(async () => {
  db = await freshDatabase();
  await installModel(db, model);
});

test.after(async () => {
  await db?.close();
});

test('maps every type and format to its column type (spec 2.1)', async () => {
  const cols = await columns('samples');
  const expected: Record<string, string> = {
    id: 'character varying(255)',
    name: 'character varying(255)',
    bio: 'text',
    count32: 'integer',
    count64: 'bigint',
    ratio: 'double precision',
    amount: 'numeric',
    plain: 'numeric',
    flag: 'boolean',
    day: 'date',
    slot: 'time without time zone',
    stamp: 'timestamp with time zone',
    attachment: 'jsonb',
    doc: 'jsonb',
    code: 'character varying(255)',
    rank: 'integer',
    summary: 'character varying(255)',
    parent: 'character varying(255)',
    secret: 'character varying(255)',
    legacy: 'character varying(255)',
  };
  for (const [name, type] of Object.entries(expected)) assert.is(cols.get(name)?.type, type, `column ${name}`);
});

test('information_schema agrees: varchar of 255, text, timestamptz, jsonb', async () => {
  const rows = await db.sql<{ column_name: string; data_type: string; character_maximum_length: number | null }[]>`
    select column_name, data_type, character_maximum_length from information_schema.columns
    where table_schema = 'app' and table_name = 'samples' and column_name in ('name', 'bio', 'stamp', 'doc', 'slot')
    order by column_name`;
  assert.equal(rows.map((r) => [r.column_name, r.data_type, r.character_maximum_length]), [
    ['bio', 'text', null],
    ['doc', 'jsonb', null],
    ['name', 'character varying', 255],
    ['slot', 'time without time zone', null],
    ['stamp', 'timestamp with time zone', null],
  ]);
});

test('multiple properties are arrays of the element type', async () => {
  const cols = await columns('samples');
  const expected: Record<string, string> = {
    labels: 'character varying(255)[]',
    notes: 'text[]',
    scores: 'integer[]',
    weights: 'numeric[]',
    flags: 'boolean[]',
    days: 'date[]',
    slots: 'time without time zone[]',
    stamps: 'timestamp with time zone[]',
  };
  for (const [name, type] of Object.entries(expected)) assert.is(cols.get(name)?.type, type, `column ${name}`);
  const [row] = await asUser((tx) => tx.unsafe(
    `insert into app.samples (name, labels, scores, days) values ('arrays', '{a,b}', '{1,2,3}', '{2024-01-02,2024-02-03}')
     returning labels, scores, days::text[] as days`));
  assert.equal(row!.labels, ['a', 'b']);
  assert.equal(row!.scores, [1, 2, 3]);
  assert.equal(row!.days, ['2024-01-02', '2024-02-03']);
});

test('an int32 column refuses a value beyond integer range', async () => {
  await refused(`insert into app.samples (name, count32) values ('big', 3000000000)`, '22003');
  await asUser((tx) => tx.unsafe(`insert into app.samples (name, count64) values ('big', 3000000000)`));
});

test('required is NOT NULL, and only required and the key are', async () => {
  const cols = await columns('samples');
  assert.is(cols.get('name')?.notNull, true);
  assert.is(cols.get('id')?.notNull, true);
  for (const [name, c] of cols) {
    if (['name', 'id', '_rev', '_modified_at'].includes(name)) continue;
    assert.is(c.notNull, false, `${name} is optional`);
  }
  const [info] = await db.sql`select is_nullable from information_schema.columns
    where table_schema = 'app' and table_name = 'samples' and column_name = 'name'`;
  assert.is(info!.is_nullable, 'NO');
});

test('an INSERT omitting a required property fails with 23502 naming the column', async () => {
  const err = await refused(`insert into app.samples (bio) values ('no name')`, '23502');
  assert.is(err.column_name, 'name');
  assert.is(err.table_name, 'samples');
  const explicit = await refused(`insert into app.samples (name) values (null)`, '23502');
  assert.is(explicit.column_name, 'name');
});

test('a readOnly String key gets a server uuid and cannot be supplied', async () => {
  const cols = await columns('samples');
  assert.is(cols.get('id')?.identity, '');
  const [row] = await asUser((tx) => tx.unsafe(`insert into app.samples (name) values ('uuid') returning id`));
  assert.match(row!.id as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const [other] = await asUser((tx) => tx.unsafe(`insert into app.samples (name) values ('uuid 2') returning id`));
  assert.is.not(other!.id, row!.id);
  await refused(`insert into app.samples (id, name) values ('mine', 'supplied')`, 'PT400');
  const [count] = await db.sql`select count(*)::int as n from app.samples where id = 'mine'`;
  assert.is(count!.n, 0);
});

test('a readOnly Number key is an identity column; a supplied value fails with 428C9', async () => {
  const cols = await columns('counters');
  assert.is(cols.get('id')?.type, 'bigint');
  assert.is(cols.get('id')?.identity, 'a', 'GENERATED ALWAYS');
  const [info] = await db.sql`select is_identity, identity_generation from information_schema.columns
    where table_schema = 'app' and table_name = 'counters' and column_name = 'id'`;
  assert.equal({ ...info }, { is_identity: 'YES', identity_generation: 'ALWAYS' });
  const rows = await asUser((tx) => tx.unsafe(`insert into app.counters (label) values ('a'), ('b') returning id`));
  const [a, b] = rows.map((r) => Number(r.id));
  assert.ok(Number.isInteger(a) && Number.isInteger(b) && b! > a!, `ids ${a}, ${b} are generated in order`);
  const err = await refused(`insert into app.counters (id, label) values (999, 'mine')`, '428C9');
  assert.match(err.message, 'column "id"');
});

test('an immutable String key is client-assignable, or defaulted when omitted', async () => {
  const cols = await columns('parents');
  assert.is(cols.get('key')?.type, 'character varying(255)');
  assert.is(cols.get('key')?.notNull, true);
  const [given] = await asUser((tx) => tx.unsafe(`insert into app.parents (key, title) values ('chosen-key', 'given') returning key`));
  assert.is(given!.key, 'chosen-key');
  const [defaulted] = await asUser((tx) => tx.unsafe(`insert into app.parents (title) values ('defaulted') returning key`));
  assert.match(defaulted!.key as string, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const err = await refused(`insert into app.parents (key, title) values ('chosen-key', 'again')`, '23505');
  assert.is(err.constraint_name, 'parents_pkey');
});

test('unique: a duplicate INSERT fails with 23505 and constraint <table>_<prop>_key', async () => {
  const [con] = await db.sql`select contype, pg_get_constraintdef(oid) as def from pg_constraint
    where conrelid = 'app.samples'::regclass and conname = 'samples_code_key'`;
  assert.equal({ ...con }, { contype: 'u', def: 'UNIQUE (code)' });
  await asUser((tx) => tx.unsafe(`insert into app.samples (name, code) values ('first', 'C-1')`));
  const err = await refused(`insert into app.samples (name, code) values ('second', 'C-1')`, '23505');
  assert.is(err.constraint_name, 'samples_code_key');
  // Two rows without a value do not collide.
  await asUser((tx) => tx.unsafe(`insert into app.samples (name) values ('no code 1'), ('no code 2')`));
  const dup = await refused(`update app.samples set code = 'C-1' where name = 'no code 1'`, '23505');
  assert.is(dup.constraint_name, 'samples_code_key');
});

test('indexed: a btree index <table>_<prop>_idx on the column', async () => {
  const idx = await index('samples_rank_idx');
  assert.ok(idx, 'samples_rank_idx exists');
  assert.is(idx.method, 'btree');
  assert.is(idx.table, 'samples');
  assert.is(idx.def, 'CREATE INDEX samples_rank_idx ON app.samples USING btree (rank)');
  const used = await asUser(async (tx) => {
    await tx.unsafe('set local enable_seqscan = off');
    return plan(tx, 'select id from app.samples where rank = 5');
  });
  assert.match(used, 'samples_rank_idx');
});

test('searchIndexed: a gin index <table>_<prop>_fts that serves the word search', async () => {
  const idx = await index('samples_summary_fts');
  assert.ok(idx, 'samples_summary_fts exists');
  assert.is(idx.method, 'gin');
  assert.match(idx.def, "to_tsvector('simple'::regconfig, (summary)::text)");
  await asUser((tx) => tx.unsafe(`insert into app.samples (name, summary) values
    ('fts hit', 'A quick brown Fox jumps'), ('fts miss', 'lazy dogs sleep')`));
  const search = `select name from app.samples where to_tsvector('simple', summary::text) @@ plainto_tsquery('simple', 'fox')`;
  const found = await asUser((tx) => tx.unsafe(search));
  assert.equal(found.map((r) => r.name), ['fts hit']);
  // As the table owner: under row-level security PostgreSQL applies non-leakproof operators such as
  // @@ after the policies, so they cannot drive an index scan for a request role (README, Known limits).
  const used = await db.sql.begin(async (tx) => {
    await tx.unsafe('set local enable_seqscan = off');
    return plan(tx, search);
  });
  assert.match(used, 'samples_summary_fts');
});

test('references: foreign key <table>_<prop>_fkey; a missing parent fails with 23503', async () => {
  const [con] = await db.sql`select contype, confrelid::regclass::text as target, pg_get_constraintdef(oid) as def
    from pg_constraint where conrelid = 'app.samples'::regclass and conname = 'samples_parent_fkey'`;
  assert.ok(con, 'samples_parent_fkey exists');
  assert.is(con.contype, 'f');
  assert.is(con.target, 'app.parents');
  assert.match(con.def, 'FOREIGN KEY (parent) REFERENCES app.parents(key)');
  await asUser((tx) => tx.unsafe(`insert into app.parents (key) values ('p-1')`));
  await asUser((tx) => tx.unsafe(`insert into app.samples (name, parent) values ('child', 'p-1')`));
  const err = await refused(`insert into app.samples (name, parent) values ('orphan', 'no-such-parent')`, '23503');
  assert.is(err.constraint_name, 'samples_parent_fkey');
  const moved = await refused(`update app.samples set parent = 'no-such-parent' where name = 'child'`, '23503');
  assert.is(moved.constraint_name, 'samples_parent_fkey');
});

test('writeOnly and deprecated: plain optional columns with no constraint or index', async () => {
  const cols = await columns('samples');
  for (const name of ['secret', 'legacy']) {
    assert.equal(cols.get(name), { type: 'character varying(255)', notNull: false, identity: '' }, name);
  }
  const rules = await db.sql<{ name: string }[]>`
    select conname as name from pg_constraint c
    where c.conrelid = 'app.samples'::regclass and exists (
      select from unnest(c.conkey) k join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k
      where a.attname in ('secret', 'legacy'))
    union all
    select ic.relname from pg_index i join pg_class ic on ic.oid = i.indexrelid
    where i.indrelid = 'app.samples'::regclass and exists (
      select from pg_attribute a where a.attrelid = i.indrelid and a.attname in ('secret', 'legacy')
      and (a.attnum = any (i.indkey) or pg_get_indexdef(i.indexrelid) like '%' || a.attname || '%'))`;
  assert.equal(rules.map((r) => r.name), []);
  // The database does not hide a writeOnly value (the gateway leaves it out of responses).
  const [grant] = await db.sql`select
    has_column_privilege('authenticated', 'app.samples', 'secret', 'SELECT') as read_secret,
    has_column_privilege('authenticated', 'app.samples', 'legacy', 'SELECT') as read_legacy`;
  assert.equal({ ...grant }, { read_secret: true, read_legacy: true });
  const [row] = await asUser(async (tx) => {
    const [inserted] = await tx.unsafe(`insert into app.samples (name, secret, legacy) values ('wo', 's1', 'l1') returning id`);
    const id = inserted!.id as string;
    await tx.unsafe(`update app.samples set secret = 's2', legacy = 'l2' where id = $1`, [id]);
    return tx.unsafe(`select secret, legacy from app.samples where id = $1`, [id]);
  });
  assert.equal({ ...row }, { secret: 's2', legacy: 'l2' });
});

test.run();
