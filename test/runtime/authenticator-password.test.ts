// npm start changes no role's password unless asked: on a DATABASE_URL cluster whose authenticator has a password of
// its own it stops with the role and what to set, the password as it was; SET_AUTHENTICATOR_PASSWORD=true lets it set it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { roleNamesFromEnv } from '../../compiler/sql/roles.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';
import { quoteIdent } from '../../ops/pg/admin.ts';
import { startTs } from '../harness/child.ts';
import { dropRoles, freshDatabase, type TestDatabase } from '../harness/db.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { freePort } from '../harness/net.ts';

const PREFIX = `pw${process.pid}_`;
const roles = roleNamesFromEnv({ DB_ROLE_PREFIX: PREFIX });
const role = roles.authenticator;
const DBA_PASSWORD = 'chosen-by-the-dba';

let db: TestDatabase;
let dir: string;

/** The role's stored password (SCRAM verifier: any ALTER ROLE … PASSWORD gives a new salt, even for the same password). */
const stored = async () => (await db.sql`select rolpassword from pg_authid where rolname = ${role}`)[0]?.rolpassword as string | undefined;
const dbaSetsPassword = () => db.sql.unsafe(`alter role ${quoteIdent(role)} login password '${DBA_PASSWORD}'`);

test.before(async () => {
  db = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'authenticator-password-'));
  writeFileSync(join(dir, 'tiny.model.json'), JSON.stringify(tinyModel));
  // The cluster's administrator made the role and gave it a password before modelapi ever ran (as on a hosted database).
  await db.sql.unsafe(`create role ${quoteIdent(role)} login noinherit`);
  await dbaSetsPassword();
});

test.after(async () => {
  await db?.close();
  await dropRoles([roles.anon, roles.authenticated, roles.authenticator]);
  rmSync(dir, { recursive: true, force: true });
});

const canLogIn = async (url: string) => {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    return (await sql`select current_user as me`)[0]?.me as string;
  } finally {
    await sql.end({ timeout: 1 });
  }
};

test('gatewayUrl: a login that fails is an Error naming the role and what to set; nothing written, nothing changed', async () => {
  const root = mkdtempSync(join(dir, 'root-'));
  const env = { DB_ROLE_PREFIX: PREFIX };
  const before = await stored();
  const noFile = await gatewayUrl(db.url, env, { root }).then(() => undefined, (err: Error) => err.message);
  assert.ok(noFile, 'no password kept yet: refused');
  assert.match(noFile!, `Cannot log in as the gateway's role ${role}`);
  assert.match(noFile!, 'GATEWAY_DATABASE_URL');
  assert.match(noFile!, 'SET_AUTHENTICATOR_PASSWORD=true');
  assert.not.ok(existsSync(join(root, '.data')), 'no password file written when none will be set');
  mkdirSync(join(root, '.data'));
  writeFileSync(join(root, '.data/authenticator-password'), 'kept-by-npm-start\n');
  const wrong = await gatewayUrl(db.url, env, { root }).then(() => undefined, (err: Error) => err.message);
  assert.match(wrong ?? '', 'password authentication failed');
  assert.is(await stored(), before, 'the password is as the administrator set it');

  const asked = await gatewayUrl(db.url, { ...env, SET_AUTHENTICATOR_PASSWORD: 'true' }, { root });
  assert.is(await canLogIn(asked), role);
  assert.is.not(await stored(), before, 'asked: the kept password is set');
  await dbaSetsPassword();
  const embedded = await gatewayUrl(db.url, env, { root, embedded: true });
  assert.is(await canLogIn(embedded), role, 'the project\'s own embedded cluster: set without asking');
  await dbaSetsPassword();
});

test('npm start on DATABASE_URL stops with exit 1 and what to set, the password unchanged; with SET_AUTHENTICATOR_PASSWORD=true it starts', async () => {
  const before = await stored();
  const env = { DATABASE_URL: db.url, PORT: String(await freePort()), MODEL: join(dir, 'tiny.model.json'), DB_ROLE_PREFIX: PREFIX, LOG_LEVEL: 'silent' };
  const start = (more: NodeJS.ProcessEnv = {}) => startTs('ops/cli/start.ts', ['--migrations', join(dir, 'migrations')], { ...env, ...more }, /Health: /, 120_000);
  // Rejects with the output when it exits before serving; a start that serves is stopped and fails the test.
  const refused = await start().then(async (s) => `served:\n${(await s.stop(), s.output())}`, (err: Error) => err.message);
  assert.match(refused, /^exited with 1 before it was ready/, refused);
  assert.match(refused, `Start failed: Cannot log in as the gateway's role ${role}`);
  assert.match(refused, 'SET_AUTHENTICATOR_PASSWORD=true');
  assert.is(await stored(), before, 'npm start left the password as the administrator set it');

  const server = await start({ SET_AUTHENTICATOR_PASSWORD: 'true' });
  try {
    const listed = await fetch(`http://127.0.0.1:${env.PORT}/api/tiny/v1/notes`);
    assert.is(listed.status, 200, await listed.clone().text());
  } finally {
    assert.is(await server.stop(), 0, server.output());
  }
  assert.is.not(await stored(), before, 'asked: npm start set the password');
});

test.run();
