// Role names from the environment (DB_ROLE_PREFIX, DB_*_ROLE) are carried into the compiled SQL, the kit's included,
// and refused with the variable named when unusable; two APIs on one cluster, each with its own roles, serve side by side.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres from 'postgres';
import { compileModel } from '../../compiler/index.ts';
import { DEFAULT_ROLES, roleNamesFromEnv, type RoleNames } from '../../compiler/sql/roles.ts';
import { quoteIdent } from '../../ops/pg/admin.ts';
import { defaultMigrations, EXAMPLE_MODEL } from '../../ops/cli/model-script.ts';
import { dropRoles, freshDatabase, installSql, type TestDatabase } from '../harness/db.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { startServe, type ServedGateway } from '../harness/serve.ts';

const ROLE_WORD = /\b(anon|authenticated|authenticator)\b/;
const namesOf = (r: RoleNames) => [r.anon, r.authenticated, r.authenticator];

test('DB_ROLE_PREFIX names the three roles everywhere in the script: the kit\'s grants and role set-up too', () => {
  const roles = roleNamesFromEnv({ DB_ROLE_PREFIX: 'x_' });
  assert.equal(roles, { anon: 'x_anon', authenticated: 'x_authenticated', authenticator: 'x_authenticator' });
  const { sql } = compileModel(tinyModel, { roles });
  assert.match(sql, 'CREATE ROLE "x_anon" NOLOGIN;');
  assert.match(sql, 'CREATE ROLE "x_authenticator" LOGIN NOINHERIT;');
  assert.match(sql, 'GRANT USAGE ON SCHEMA app, api, auth, lib, extensions TO "x_anon", "x_authenticated";');
  assert.match(sql, 'GRANT USAGE ON SCHEMA api, lib TO "x_authenticator";');
  assert.match(sql, "set_config('role', CASE req_role WHEN 'anon' THEN 'x_anon' ELSE 'x_authenticated' END, true)");
  const grants = sql.split(';').filter((s) => /^\s*(GRANT|REVOKE)\b/.test(s.replace(/^(\s*--.*\n)*/, '')));
  assert.ok(grants.length > 10, 'the script has its grants');
  assert.equal(grants.filter((g) => ROLE_WORD.test(g)), [], 'no grant names a default role');
  // The logical names the gateway passes to api.dispatch stay; nothing else in the script names a default role.
  assert.equal(sql.split('\n').filter((l) => ROLE_WORD.test(l) && !l.includes('req_role')), []);
});

test('a role\'s own variable wins over the prefix; a property called anon is a column, not a role', () => {
  const roles = roleNamesFromEnv({ DB_ROLE_PREFIX: 'blog_', DB_AUTHENTICATOR_ROLE: 'blog_gateway' });
  assert.equal(roles, { anon: 'blog_anon', authenticated: 'blog_authenticated', authenticator: 'blog_gateway' });
  assert.equal(roleNamesFromEnv({ DB_ROLE_PREFIX: '' }), DEFAULT_ROLES);
  const model = { ...tinyModel, entities: { Note: { ...tinyModel.entities.Note, properties: { ...tinyModel.entities.Note.properties, anon: { type: 'Boolean' } } } } };
  const { sql } = compileModel(model, { roles });
  assert.match(sql, /GRANT SELECT \([^)]*"anon"[^)]*\) ON "app"\."notes" TO "blog_anon", "blog_authenticated";/);
  assert.match(sql, "SELECT meta.ensure_column('notes', 'anon', 'boolean'");
  assert.match(sql, 't."title" AS "title", t."anon" AS "anon"');
});

test('the example compiled for other role names keeps its script under .data/migrations: db/migrations/current.sql stays the defaults\'', () => {
  assert.match(defaultMigrations(EXAMPLE_MODEL, 'publishing'), /db\/migrations$/);
  assert.match(defaultMigrations(EXAMPLE_MODEL, 'publishing', roleNamesFromEnv({ DB_ROLE_PREFIX: 'blog_' })), /\.data\/migrations\/publishing$/);
});

test('an unusable name is refused with the variable that gave it', () => {
  const refusal = (env: NodeJS.ProcessEnv) => {
    try {
      roleNamesFromEnv(env);
    } catch (err) {
      return (err as Error).message;
    }
    throw new Error(`accepted ${JSON.stringify(env)}`);
  };
  assert.match(refusal({ DB_ANON_ROLE: 'Guest' }), 'DB_ANON_ROLE=Guest is not a role name');
  assert.match(refusal({ DB_ROLE_PREFIX: 'my-app_' }), 'DB_ROLE_PREFIX=my-app_ makes the role name "my-app_anon"');
  assert.match(refusal({ DB_ROLE_PREFIX: 'pg_' }), 'reserved by PostgreSQL');
  assert.match(refusal({ DB_AUTHENTICATED_ROLE: 'a'.repeat(64) }), 'at most 63 bytes');
  assert.match(refusal({ DB_ANON_ROLE: 'web', DB_AUTHENTICATED_ROLE: 'web' }), 'DB_ANON_ROLE and DB_AUTHENTICATED_ROLE both name the role "web"');
});

// Two APIs on one cluster -------------------------------------------------------------------------------------------

interface Api { db: TestDatabase; roles: RoleNames; login: string; serve?: ServedGateway }
const apis: Api[] = [];

test.after(async () => {
  for (const api of apis) await api.serve?.stop();
  for (const api of apis) await api.db.close();
  await dropRoles(apis.flatMap((a) => namesOf(a.roles)));
});

/** A database with the tiny model compiled for `prefix`'s roles, its authenticator given a password as the superuser. */
async function api(prefix: string): Promise<Api> {
  const db = await freshDatabase();
  const roles = roleNamesFromEnv({ DB_ROLE_PREFIX: prefix });
  const made: Api = { db, roles, login: '' };
  apis.push(made);
  await installSql(db, compileModel(tinyModel, { roles }).sql);
  const password = `${prefix}secret`;
  await db.sql.unsafe(`alter role ${quoteIdent(roles.authenticator)} password '${password}'`);
  const url = new URL(db.url);
  [url.username, url.password] = [roles.authenticator, password];
  made.login = url.toString();
  return made;
}

test('two APIs on one cluster, with their own roles: each serves its own rows; one\'s login cannot become the other\'s roles', async () => {
  const [a, b] = [await api(`a${process.pid}_`), await api(`b${process.pid}_`)];
  for (const [x, title] of [[a, 'in A'], [b, 'in B']] as const) {
    x.serve = await startServe({ GATEWAY_DATABASE_URL: x.login, LOG_LEVEL: 'silent' });
    const client = x.serve.client('/api/tiny/v1');
    const made = await client.post('/notes', { title }, { token: null });
    assert.is(made.status, 201, made.text);
  }
  for (const [x, title] of [[a, 'in A'], [b, 'in B']] as const) {
    const listed = await x.serve!.client('/api/tiny/v1').get('/notes', { token: null });
    assert.is(listed.status, 200, listed.text);
    assert.equal(listed.body.data.map((n: { title: string }) => n.title), [title]);
  }
  const [row] = await a.db.sql`select has_table_privilege(${b.roles.anon}, 'app.notes', 'select') as other`;
  assert.is(row?.other, false, 'B\'s anon has no privilege on A\'s table');
  const asA = postgres(a.login, { max: 1, onnotice: () => {} });
  try {
    await asA.unsafe(`set role ${quoteIdent(a.roles.anon)}`);
    await asA.unsafe('reset role');
    const refused = await asA.unsafe(`set role ${quoteIdent(b.roles.anon)}`).then(() => undefined, (err: postgres.PostgresError) => err);
    assert.is(refused?.code, '42501', `A's authenticator must not become B's anon: ${refused?.message}`);
    assert.match(refused!.message, 'permission denied');
  } finally {
    await asA.end({ timeout: 2 });
  }
});

test.run();
