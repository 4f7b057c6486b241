// A hosted database's shape: an administrator role that is no superuser (LOGIN CREATEROLE) owns the database;
// `npm run migrate` as it creates its own roles (DB_ROLE_PREFIX), it sets the authenticator's password, and `serve` serves.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { roleNamesFromEnv } from '../../compiler/sql/roles.ts';
import { dropDatabase, quoteIdent, withAdminClient, withDatabase } from '../../ops/pg/admin.ts';
import { npmRun } from '../harness/child.ts';
import { adminUrl, dropRoles } from '../harness/db.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { startServe, type ServedGateway } from '../harness/serve.ts';

const PREFIX = `m${process.pid}_`;
const roles = roleNamesFromEnv({ DB_ROLE_PREFIX: PREFIX });
const OWNER = `${PREFIX}admin`;
const DATABASE = `${PREFIX}db`;
const ownerPassword = randomBytes(12).toString('hex');

let dir: string;
let serve: ServedGateway | undefined;

/** `url` logging in as `user` with `password`, on DATABASE. */
const login = (user: string, password: string) => {
  const url = new URL(withDatabase(adminUrl(), DATABASE));
  [url.username, url.password] = [user, password];
  return url.toString();
};

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'managed-database-'));
  writeFileSync(join(dir, 'tiny.model.json'), JSON.stringify(tinyModel));
  await withAdminClient(adminUrl(), async (sql) => {
    await sql.unsafe(`create role ${quoteIdent(OWNER)} login createrole password '${ownerPassword}'`);
    await sql.unsafe(`create database ${quoteIdent(DATABASE)} owner ${quoteIdent(OWNER)}`);
  });
});

test.after(async () => {
  await serve?.stop();
  await dropDatabase(adminUrl(), DATABASE);
  await dropRoles([roles.authenticator, roles.anon, roles.authenticated, OWNER]);
  rmSync(dir, { recursive: true, force: true });
});

test('the database\'s owner (CREATEROLE, no superuser) migrates, sets the authenticator\'s password, and serve answers', async () => {
  const owner = login(OWNER, ownerPassword);
  const migrated = await npmRun('migrate', ['--model', join(dir, 'tiny.model.json'), '--migrations', join(dir, 'migrations')],
    { DATABASE_URL: owner, DB_ROLE_PREFIX: PREFIX }, 120_000);
  assert.is(migrated.code, 0, migrated.stdout + migrated.stderr);
  assert.match(migrated.stdout, `Migrated database ${DATABASE}`);

  const password = randomBytes(12).toString('hex');
  const sql = postgres(owner, { max: 1, onnotice: () => {} });
  try {
    const [me] = await sql`select rolsuper, rolcreaterole from pg_roles where rolname = current_user`;
    assert.equal([me?.rolsuper, me?.rolcreaterole], [false, true], 'the owner is no superuser');
    await sql.unsafe(`alter role ${quoteIdent(roles.authenticator)} password '${password}'`);
  } finally {
    await sql.end({ timeout: 2 });
  }

  serve = await startServe({ GATEWAY_DATABASE_URL: login(roles.authenticator, password), LOG_LEVEL: 'silent' });
  const client = serve.client('/api/tiny/v1');
  const made = await client.post('/notes', { title: 'hosted' }, { token: null });
  assert.is(made.status, 201, made.text);
  const listed = await client.get('/notes');
  assert.is(listed.status, 200, listed.text);
  assert.equal(listed.body.data.map((n: { title: string }) => n.title), ['hosted']);
});

test.run();
