// The request engine called the way psql or the gateway calls it: api.dispatch runs one api.*
// function as a request role with claims; filters keep client values out of the SQL text.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { buildManifest } from '../../compiler/manifest/build.ts';
import { identityFunctionNames } from '../../compiler/sql/identity.ts';
import { functionNames } from '../../compiler/sql/functions.ts';
import { buildSchema } from '../../compiler/ir/build.ts';
import type { Model } from '../../compiler/index.ts';
import { APPENDIX_A } from '../harness/rfc7396.ts';

let db: TestDatabase;
let model: Model;
test.before(async () => {
  db = await freshDatabase();
  ({ model } = await installModel(db, 'examples/publishing.model.json'));
});
test.after(async () => db?.close());

/** The default caller is an administrator, whom the example's scenarios let do everything. */
const ADMIN = { sub: 'u1', roles: ['admin', 'editor'], email: 'u1@example.com' };
const call = async (fn: string, args: unknown, claims: Record<string, unknown> = ADMIN, role = 'authenticated') =>
  (await db.sql`select api.dispatch(${role}, ${db.sql.json(claims as any)}, '127.0.0.1', ${fn}, ${db.sql.json(args as any)}) as r`)[0]!.r;
async function refusal(fn: string, args: unknown, role = 'authenticated'): Promise<any> {
  try { await call(fn, args, ADMIN, role); } catch (err) { return err; }
  assert.unreachable(`${fn} should have been refused`);
}

test('a later api.dispatch in one transaction (a batch) starts with every table scenario empty; the first sets none', async () => {
  const claims = db.sql.json(ADMIN as any);
  const [row] = await db.sql.begin(async (tx) => {
    const before = await tx`select current_setting('request.scenario.posts', true) as s`;
    await tx`select api.dispatch('authenticated', ${claims}, '127.0.0.1', 'posts_list', '{}'::jsonb)`;
    const first = await tx`select current_setting('request.scenario.posts', true) as s`;
    await tx`select api.dispatch('authenticated', ${claims}, '127.0.0.1', 'tags_list', '{}'::jsonb)`;
    return tx`select ${before[0]!.s} as before, ${first[0]!.s} as first, current_setting('request.scenario.posts', true) as second`;
  });
  assert.not.ok(row!.before, 'nothing set before the first call');
  assert.ok(row!.first, 'the first call entered posts');
  assert.is(row!.second, '', 'the second call emptied it');
});

test('request-shaped statements: the session remembers its prepared shapes, and survives losing them', async () => {
  const sql = (await import('postgres')).default(db.url, { max: 1, prepare: false, onnotice: () => {} }); // DEALLOCATE ALL would drop its own
  try {
    // No count: on the empty table an exact total of 0 would leave no page statement to prepare.
    const claims = sql.json(ADMIN as any), args = sql.json({ filter: { field: 'title', op: 'ne', value: 'x' }, count: 'none' } as any);
    const list = async () => (await sql`select api.dispatch('authenticated', ${claims}, '127.0.0.1', 'posts_list', ${args}) as r`)[0]!.r;
    const first = await list();
    const [known] = await sql`select current_setting('lib.prepared', true) as s, (select count(*) from pg_prepared_statements where name like 'lib\_q\_%')::int as n`;
    assert.is(known!.n, 1, 'the page');
    assert.is(known!.s.trim().split(' ').length, 1, 'named in the session setting');
    await sql`DEALLOCATE ALL`;
    assert.equal(await list(), first, 'prepared again when the session lost them');
    await sql.begin(async (tx) => {
      await tx`DEALLOCATE ALL`;
      await tx`select set_config('lib.prepared', ${known!.s}, false)`;
      assert.equal((await tx`select api.dispatch('authenticated', ${claims}, '127.0.0.1', 'posts_list', ${args}) as r`)[0]!.r, first);
    });
  } finally {
    await sql.end();
  }
});

test('\\df api.*: one function per entity and action, plus dispatch, dispatch_each, manifest, the upload and the sign-in functions', async () => {
  const rows = await db.sql`select p.proname from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'api' order by 1`;
  const expected = [...functionNames(buildSchema(model).tables), ...identityFunctionNames(model), 'dispatch', 'dispatch_each', 'manifest', 'upload_intent', 'upload_prepare'].sort();
  assert.ok(expected.includes('auth_token'), 'the example names its users in api.identity');
  assert.equal(rows.map((r) => r.proname), expected);
  assert.ok(expected.includes('posts_restore') && expected.includes('users_profile_replace') && expected.includes('projects_members_link'));
});

test('api.manifest() returns the compiled manifest', async () => {
  const [row] = await db.sql`select api.manifest() as m`;
  assert.equal(row!.m, JSON.parse(JSON.stringify(buildManifest(model))));
});

test('dispatch runs the function as the request role with the claims', async () => {
  const project = await call('projects_create', { body: { name: 'Mine' } }, { sub: 'owner-9' });
  assert.is(project.data.owner_id, 'owner-9');
  assert.is(project.scenario, 'Any signed-in user starts a project');
  const anon = await refusal('projects_create', { body: { name: 'Nobody' } }, 'anon');
  assert.is(anon.code, 'PT401', 'no scenario lets anonymous callers create projects');
  const role = await refusal('projects_list', {}, 'postgres');
  assert.is(role.code, '42501');
  const fn = await refusal('manifest', {});
  assert.is(fn.code, 'PT404');
  const bad = await refusal('posts_list; drop table app.posts', {});
  assert.is(bad.code, 'PT404');
});

test('client values never become SQL: quotes and SQL in values are data, in names a 400', async () => {
  const project = await call('projects_create', { body: { name: "O'Brien; drop table app.posts; --" } });
  assert.is(project.data.name, "O'Brien; drop table app.posts; --");
  const found = await call('projects_list', { filter: { field: 'name', op: 'eq', value: "O'Brien; drop table app.posts; --" } });
  assert.is(found.meta.total, 1);
  const none = await call('projects_list', { filter: { field: 'name', op: 'in', value: ["x') or true --", "'"] } });
  assert.is(none.meta.total, 0);
  for (const field of ['name"; drop table app.posts; --', 'meta.a\'b', 'password', '_rev']) {
    const err = await refusal('users_list', { filter: { field, op: 'eq', value: '1' } });
    assert.is(err.code, 'PT400', field);
  }
  const sort = await refusal('projects_list', { sort: [{ field: 'name desc; --', desc: false }] });
  assert.is(sort.code, 'PT400');
  const [t] = await db.sql`select to_regclass('app.posts') is not null as ok`;
  assert.ok(t!.ok);
});

test('filters: operators by type, JSON paths with casts, exact totals and stable paging', async () => {
  const project = await call('projects_create', { body: { name: 'Q' } });
  const mk = (id: string, priority: number, city: string, extra: Record<string, unknown> = {}) =>
    call('posts_create', { parent: project.id, body: { id, title: `Title ${id}`, meta: { priority, address: { city } }, ...extra } });
  await mk('q1', 9, 'Paris', { rating: 1, tags_cache: ['x', 'y'] });
  await mk('q2', 10, 'Oslo', { rating: 2.5 });
  await mk('q3', 100, 'Paris', { rating: 5, featured: true });
  const ids = async (args: Record<string, unknown>) =>
    (await call('posts_list', { parent: project.id, sort: [{ field: 'id', desc: false }], ...args })).data.map((r: any) => r.id);
  assert.equal(await ids({ filter: { field: 'meta.priority', op: 'gt', value: '9' } }), ['q2', 'q3'], 'Integer cast: numeric, not lexical');
  assert.equal(await ids({ sort: [{ field: 'meta.priority', desc: true }] }), ['q3', 'q2', 'q1']);
  assert.equal(await ids({ filter: { field: 'meta.address.city', op: 'eq', value: 'Paris' } }), ['q1', 'q3']);
  assert.equal(await ids({ filter: { field: 'meta.address', op: 'contains', value: { city: 'Oslo' } } }), ['q2']);
  assert.equal(await ids({ filter: { field: 'meta.address.city', op: 'exists', value: true } }), ['q1', 'q2', 'q3']);
  assert.equal(await ids({ filter: { field: 'rating', op: 'in', value: ['1', '5'] } }), ['q1', 'q3']);
  assert.equal(await ids({ filter: { field: 'rating', op: 'nin', value: ['1'] } }), ['q2', 'q3']);
  assert.equal(await ids({ filter: { field: 'tags_cache', op: 'contains', value: ['y'] } }), ['q1']);
  assert.equal(await ids({ filter: { field: 'title', op: 'ilike', value: '*Q3' } }), ['q3']);
  assert.equal(await ids({ filter: { field: 'title', op: 'search', value: 'q2' } }), ['q2']);
  assert.equal(await ids({ filter: { not: { or: [{ field: 'featured', op: 'eq', value: 'true' }, { field: 'rating', op: 'lt', value: '2' }] } } }), ['q2']);
  assert.equal(await ids({ filter: { field: 'body', op: 'null', value: true } }), ['q1', 'q2', 'q3']);
  const page = await call('posts_list', { parent: project.id, page: 2, per_page: 2, sort: [{ field: 'rating', desc: false }] });
  assert.equal(page.meta, { total: 3, count: 'exact', page: 2, per_page: 2, prev: page.meta.prev });
  assert.type(page.meta.prev, 'string');
  assert.equal(page.data.map((r: any) => r.id), ['q3']);
  for (const [filter, why] of [
    [{ field: 'featured', op: 'gt', value: 'true' }, 'gt on a Boolean'],
    [{ field: 'meta', op: 'eq', value: '1' }, 'eq on a whole JSON property'],
    [{ field: 'legacy_code', op: 'search', value: 'x' }, 'search on a property that is not searchIndexed'],
    [{ field: 'title', op: 'exists', value: true }, 'exists without a JSON path'],
    [{ field: 'title', op: 'regex', value: 'x' }, 'unknown operator'],
    [{ field: 'published_on', op: 'eq', value: 'not-a-date' }, 'a value of the wrong type'],
  ] as const) {
    const err = await refusal('posts_list', { filter });
    assert.is(err.code, 'PT400', why);
  }
});


test('an Email filter lowers its value in SQL, as the column is stored: psql callers find FIND.me@Example.com too', async () => {
  const user = await call('users_create', { body: { email: 'Find.Me@Example.com' } });
  assert.is(user.data.email, 'find.me@example.com');
  const ids = async (op: string, value: unknown) =>
    (await call('users_list', { filter: { field: 'email', op, value } })).data.map((r: any) => r.id);
  assert.equal(await ids('eq', 'FIND.me@example.COM'), [user.id], 'eq');
  assert.equal(await ids('in', ['nobody@example.com', 'FIND.ME@EXAMPLE.COM']), [user.id], 'in');
  assert.equal(await ids('like', 'FIND.*'), [user.id], 'like');
  assert.not.ok((await ids('ne', 'FIND.ME@example.com')).includes(user.id), 'ne');
  assert.not.ok((await ids('nin', ['FIND.ME@example.com'])).includes(user.id), 'nin');
  assert.equal(await ids('gte', 'FIND.ME@EXAMPLE.COM'), await ids('gte', 'find.me@example.com'), 'gte');
});

test('RFC 7396 Appendix A through patch on a JSON property', async () => {
  const project = await call('projects_create', { body: { name: 'RFC' } });
  for (const [i, [target, patch, result]] of APPENDIX_A.entries()) {
    const id = `rfc-${i}`;
    await call('posts_create', { body: { id, title: id, project_id: project.id, meta: target } });
    const out = await call('posts_patch', { id, body: { meta: patch } });
    assert.equal(out.data.meta, result, `example ${i + 1}: ${JSON.stringify(target)} + ${JSON.stringify(patch)}`);
  }
});

test('replace resets omitted properties to their default; patch leaves them', async () => {
  const project = await call('projects_create', { body: { name: 'R' } });
  await call('posts_create', { body: { id: 'r1', title: 'T', project_id: project.id, status: 'in_review', rating: 3, featured: true } });
  const patched = await call('posts_patch', { id: 'r1', body: { title: 'T2' } });
  assert.equal([patched.data.status, patched.data.rating, patched.data.featured], ['in_review', 3, true]);
  const replaced = await call('posts_replace', { id: 'r1', body: { title: 'T3' } });
  assert.equal([replaced.data.title, replaced.data.status, replaced.data.rating, replaced.data.featured, replaced.data.project_id],
    ['T3', 'draft', null, false, project.id]);
  assert.is(replaced.data.version, 3);
  assert.is(replaced.etag, '3', 'the ETag is the Version property');
});

test('soft delete hides, restore brings back, permanent delete removes', async () => {
  const project = await call('projects_create', { body: { name: 'S' } });
  await call('posts_create', { body: { id: 's1', title: 'S', project_id: project.id } });
  await call('posts_delete', { id: 's1' });
  assert.is((await refusal('posts_read', { id: 's1' })).code, 'PT404');
  assert.is((await call('posts_restore', { id: 's1' })).data.id, 's1');
  await call('posts_delete', { id: 's1', permanent: true });
  const [row] = await db.sql`select count(*)::int as n from app.posts where id = 's1'`;
  assert.is(row!.n, 0);
  assert.is((await refusal('posts_delete', { id: 's1' })).code, 'PT404');
});

test.run();
