// The engine is compiled: each api.<table>_<action> shows its own statement in `\sf`, reads no descriptor
// at run time (single-record actions keep working with the filter field lists out of reach), and a
// request-shaped list statement is prepared once per connection and shape.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { DATA_BYTES } from '../../compiler/query/paging.ts';

let db: TestDatabase;
test.before(async () => {
  db = await freshDatabase();
  await installModel(db, 'examples/publishing.model.json');
});
test.after(async () => db?.close());

const UNDO = new Error('undo');
const ADMIN = { sub: 'u1', roles: ['admin'] };
type Session = postgres.Sql | postgres.TransactionSql;
const call = async (sql: Session, fn: string, args: unknown) =>
  (await sql`select api.dispatch('authenticated', ${sql.json(ADMIN)}, '', ${fn}, ${sql.json(args as any)}) as r`)[0]!.r;
const refusal = (sql: Session, fn: string, args: unknown) => call(sql, fn, args).then(() => undefined, (err) => err.code as string);
/** A refusal inside a transaction, in a savepoint of its own so the transaction goes on. */
const refusalIn = async (tx: postgres.TransactionSql, fn: string, args: unknown) => {
  let code: string | undefined;
  await tx.savepoint(async (sp) => { code = await refusal(sp, fn, args); if (code) throw UNDO; }).catch((e) => { if (e !== UNDO) throw e; });
  return code;
};
const definition = async (fn: string, signature = `api.${fn}(jsonb)`) =>
  (await db.sql`select pg_get_functiondef(${signature}::regprocedure) as d`)[0]!.d as string;

test('\\sf shows the statement itself: read is a SELECT, patch and replace one UPDATE, delete a DELETE, none builds SQL text', async () => {
  const read = await definition('posts_read');
  // The statement is laid out over lines (compiler/sql/layout.ts): whitespace between its tokens may be a line break.
  assert.match(read, /SELECT json_build_object\(\s*'data', \(SELECT row_to_json\(r\) FROM \(SELECT\s+t\."id" AS "id", t\."project_id" AS "project_id"/);
  assert.match(read, /FROM "app"\."posts" t\s+WHERE t\."id" = _key/);
  // PATCH and PUT differ in what an omitted property becomes: one function, told which by its second argument.
  assert.match(await definition('posts_patch'), /LANGUAGE sql[\s\S]*SELECT "app"\."posts_update"\(args, true\)/);
  assert.match(await definition('posts_replace'), /SELECT "app"\."posts_update"\(args, false\)/);
  const update = await definition('', 'app.posts_update(jsonb, boolean)');
  assert.match(update, /UPDATE "app"\."posts" t SET/);
  assert.match(update, /"title" = CASE WHEN _body \? 'title' THEN r\."title" WHEN _patch THEN t\."title" ELSE NULL END/);
  assert.match(await definition('posts_delete'), /DELETE FROM "app"\."posts" t WHERE/);
  for (const table of ['posts', 'projects', 'comments', 'tags', 'users']) {
    for (const [action, signature] of [['read'], ['update', `app.${table}_update(jsonb, boolean)`], ['delete']] as const) {
      const body = await definition(`${table}_${action}`, signature);
      assert.not.match(body, /EXECUTE/i, `${table}_${action} runs no dynamic SQL`);
      assert.not.match(body, /lib\.fields|lib\.resource/, `${table}_${action} reads no descriptor`);
    }
  }
  const [row] = await db.sql`select to_regclass('lib.resources') is null as gone`;
  assert.ok(row?.gone, 'no descriptor table is left');
});

test('api.dispatch finds every api function by its name (a tree of IFs over CASEs) and refuses any other name with PT404', async () => {
  const names = (await db.sql`select p.proname::text as name from pg_proc p where p.pronamespace = 'api'::regnamespace
    and p.proname not in ('dispatch', 'dispatch_each', 'manifest') order by 1`).map((r) => r.name as string);
  assert.ok(names.length > 40, `the publishing example has its functions (${names.length})`);
  const outcome = async (fn: string) => {
    let message = 'ok';
    await db.sql.begin(async (tx) => {
      await call(tx, fn, {}).catch((err) => { message = `${err.code}: ${err.message}`; });
      throw UNDO;
    }).catch((err) => { if (err !== UNDO) throw err; });
    return message;
  };
  for (const name of names) assert.not.match(await outcome(name), /no API function/, name);
  for (const name of ['', 'a', 'auth_logou', 'posts_reae', 'posts_readx', 'projects_members_lis', 'zzz', 'POSTS_READ']) {
    assert.is(await outcome(name), `PT404: no API function ${name}`, JSON.stringify(name));
  }
});

test('single-record actions need no descriptor at run time: with lib.fields out of reach they still serve and refuse', async () => {
  const project = (await call(db.sql, 'projects_create', { body: { name: 'Compiled' } })).id as string;
  await db.sql.begin(async (tx) => {
    await tx`revoke select on lib.fields from anon, authenticated`;
    const made = await call(tx, 'posts_create', { body: { project_id: project, title: 'one' } });
    const id = made.id as string;
    assert.is((await call(tx, 'posts_read', { id })).data.title, 'one');
    const patched = await call(tx, 'posts_patch', { id, body: { title: 'two', meta: { a: 1 } }, if_match: [made.etag] });
    assert.is(patched.data.title, 'two');
    assert.is((await call(tx, 'posts_replace', { id, body: { project_id: project, title: 'three' } })).data.title, 'three');
    assert.is(await refusalIn(tx, 'posts_patch', { id, body: { title: 'x' }, if_match: ['"1"'] }), 'PT412');
    assert.is(await refusalIn(tx, 'posts_read', { id: 'none' }), 'PT404');
    await call(tx, 'posts_delete', { id, permanent: true });
    assert.is(await refusalIn(tx, 'posts_delete', { id }), 'PT404');
    // The list does read the field list: proof that the revoke above took effect.
    assert.is(await refusalIn(tx, 'posts_list', {}), '42501');
    throw UNDO; // roll the revoke and the writes back
  }).catch((err) => { if (err !== UNDO) throw err; });
});

test('a list shape is prepared once per connection and reused; values never enter the statement text', async () => {
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    // Without a count: an exact total of 0 (no posts here) would leave no page statement to run.
    const filter = (v: string) => ({ filter: { field: 'title', op: 'eq', value: v }, count: 'none' });
    await call(sql, 'posts_list', filter('secret-one'));
    await call(sql, 'posts_list', filter('secret-two'));
    const rows = await sql`select name, statement from pg_prepared_statements where name like 'lib\_q\_%'`;
    assert.is(rows.length, 1, 'one page statement for this shape');
    for (const r of rows) assert.not.match(r.statement as string, /secret/, 'the value is a parameter');
    await call(sql, 'posts_list', { filter: { field: 'status', op: 'eq', value: 'draft' }, count: 'none' });
    assert.is((await sql`select count(*)::int as n from pg_prepared_statements where name like 'lib\_q\_%'`)[0]!.n, 2);
  } finally {
    await sql.end();
  }
});

test("a page's result gives its rows' length in bytes just before them (the gateway takes the rows by it)", async () => {
  await db.sql.begin(async (tx) => {
    const project = (await call(tx, 'projects_create', { body: { name: 'Bytes' } })).id as string;
    for (const title of ['Grüße ☃', 'naïve "quoted" \\ text', '𝄞 clef']) await call(tx, 'posts_create', { body: { project_id: project, title } });
    for (const [fn, args] of [['posts_list', { filter: { field: 'project_id', op: 'eq', value: project } }], ['posts_search', {}], ['posts_list', { filter: { field: 'title', op: 'eq', value: 'none' } }]] as const) {
      // json's -> gives a member's text as the function wrote it, so the length is checked against those very bytes.
      const [row] = await tx`select r::text as text, (r ->> ${DATA_BYTES})::int as said, octet_length((r -> 'data')::text) as bytes
        from api.dispatch('authenticated', ${tx.json(ADMIN)}, '', ${fn}, ${tx.json(args as never)}) as r`;
      assert.is(row!.said, row!.bytes, `${fn} ${JSON.stringify(args)}`);
      assert.match(row!.text as string, new RegExp(`"${DATA_BYTES}" : \\d+, "data" : [\\[]`), 'the length comes right before the rows');
    }
    throw UNDO;
  }).catch((err) => { if (err !== UNDO) throw err; });
});


test('list and search are one page function, which serves no other action: a read judged page is refused (400)', async () => {
  assert.match(await definition('posts_list'), /SELECT "app"\."posts_page"\('list', args\)/);
  assert.match(await definition('posts_search'), /SELECT "app"\."posts_page"\('search', args\)/);
  const asCaller = async (action: string | null) => db.sql.begin(async (tx) => {
    await tx`select set_config('role', 'authenticated', true), set_config('request.jwt.claims', ${JSON.stringify(ADMIN)}, true)`;
    return (await tx`select app.posts_page(${action}, '{}') as r`)[0]!.r;
  }).then(() => 'ok', (err) => err.code as string);
  assert.is(await asCaller('search'), 'ok');
  assert.is(await asCaller('read'), 'PT400');
  assert.match(await asCaller(null), /^PT40[03]$/, 'no action: no scenario wins it, or refused as no page');
});

test.run();
