// `npm start` end to end: compile a tiny model, migrate a fresh database (DATABASE_URL), serve /health
// on PORT, stop on SIGTERM; an invalid model stops it with the validation errors and exit code 1.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmRun, root, startTs } from '../harness/child.ts';
import { tinyModel } from '../harness/fixtures.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { freePort } from '../harness/net.ts';

const tiny = tinyModel;

let db: TestDatabase;
let dir: string;

test.before(async () => {
  db = await freshDatabase();
  dir = mkdtempSync(join(tmpdir(), 'start-test-'));
  writeFileSync(join(dir, 'tiny.model.json'), JSON.stringify(tiny));
  writeFileSync(join(dir, 'bad.model.json'), JSON.stringify({ ...tiny, api: { ...tiny.api, title: undefined } }));
});

test.after(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('compiles, migrates, serves /health and stops on SIGTERM', async () => {
  const port = await freePort();
  const env = { DATABASE_URL: db.url, PORT: String(port), MODEL: join(dir, 'tiny.model.json'), SET_AUTHENTICATOR_PASSWORD: 'true' };
  const server = await startTs('ops/cli/start.ts', ['--migrations', join(dir, 'migrations')], env, /Health: /);
  try {
    assert.match(server.output(), `Serving Tiny API at http://localhost:${port}`);
    assert.ok(existsSync(join(dir, 'migrations', 'current.sql')), 'current.sql written to the given folder');
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    assert.is(res.status, 200);
    assert.equal(await res.json(), { status: 'ok' });
  } finally {
    assert.is(await server.stop(), 0, server.output());
  }
  const [row] = await db.sql`select to_regclass('app.notes') is not null as found`;
  assert.ok(row?.found, 'the model was installed');
});

test('another MODEL without --migrations keeps its script under .data/migrations/<slug>: tracked files stay as they are', async () => {
  const port = await freePort();
  const tracked = readFileSync(join(root, 'db/migrations/current.sql'), 'utf8');
  const model = { ...tiny, api: { ...tiny.api, slug: 'tinystart' } };
  writeFileSync(join(dir, 'own.model.json'), JSON.stringify(model));
  const server = await startTs('ops/cli/start.ts', [], { DATABASE_URL: db.url, PORT: String(port), MODEL: join(dir, 'own.model.json'), SET_AUTHENTICATOR_PASSWORD: 'true' }, /Health: /);
  try {
    assert.ok(existsSync(join(root, '.data/migrations/tinystart/current.sql')), 'the script is kept under .data');
  } finally {
    assert.is(await server.stop(), 0, server.output());
    rmSync(join(root, '.data/migrations/tinystart'), { recursive: true, force: true });
  }
  assert.is(readFileSync(join(root, 'db/migrations/current.sql'), 'utf8'), tracked, 'db/migrations/current.sql untouched');
});

test('SIGTERM lets a request in flight finish (the pool closes after it), then exits 0', async () => {
  const port = await freePort();
  const env = { DATABASE_URL: db.url, PORT: String(port), MODEL: join(dir, 'tiny.model.json'), LOCK_TIMEOUT_MS: '20000', SHUTDOWN_GRACE_MS: '15000', LOG_LEVEL: 'silent', SET_AUTHENTICATOR_PASSWORD: 'true' };
  const server = await startTs('ops/cli/start.ts', ['--migrations', join(dir, 'drain-migrations')], env, /Health: /);
  const base = `http://127.0.0.1:${port}/api/tiny/v1/notes`;
  const made = await (await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"drain"}' })).json();
  let release!: () => void;
  const locked = new Promise<void>((resolve) => {
    void db.sql.begin(async (tx) => {
      await tx`select 1 from app.notes where id = ${made.data.id} for update`;
      resolve();
      await new Promise<void>((r) => { release = r; });
    });
  });
  await locked;
  // The PATCH waits on the lock; SIGTERM comes while it waits; the lock goes 2.5 s later, past the old 2 s pool timeout.
  const patch = fetch(`${base}/${made.data.id}`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"title":"after"}' });
  await new Promise((r) => setTimeout(r, 300));
  const stopped = server.stop();
  setTimeout(() => release(), 2500);
  const reply = await patch.catch((err) => { throw new Error(`${err.cause ?? err}\n${server.output()}`); });
  assert.is(reply.status, 200, await reply.clone().text());
  assert.is((await reply.json()).data.title, 'after');
  assert.is(await stopped, 0, server.output());
});

test('two gateways on one database serve concurrent load side by side: no 5xx (no password rotation at start)', async () => {
  const ports = [await freePort(), await freePort()];
  const env = (port: number) => ({ DATABASE_URL: db.url, PORT: String(port), MODEL: join(dir, 'tiny.model.json'), LOG_LEVEL: 'silent', SET_AUTHENTICATOR_PASSWORD: 'true' });
  const first = await startTs('ops/cli/start.ts', ['--migrations', join(dir, 'two-a')], env(ports[0]!), /Health: /);
  const second = await startTs('ops/cli/start.ts', ['--migrations', join(dir, 'two-b')], env(ports[1]!), /Health: /);
  try {
    const replies = await Promise.all(Array.from({ length: 120 }, (_, i) => {
      const base = `http://127.0.0.1:${ports[i % 2]}/api/tiny/v1/notes`;
      return i % 3 === 0 ? fetch(base) : fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `n${i}` }) });
    }));
    const statuses = replies.map((r) => r.status);
    assert.equal(statuses.filter((s) => s >= 500), [], statuses.join(','));
    assert.is(statuses.filter((s) => s === 201).length, 80);
  } finally {
    assert.is(await first.stop(), 0, first.output());
    assert.is(await second.stop(), 0, second.output());
  }
});

test('refuses an invalid model with its errors and exit code 1', async () => {
  const env = { DATABASE_URL: db.url, PORT: String(await freePort()), MODEL: join(dir, 'bad.model.json') };
  const run = await npmRun('start', ['--migrations', join(dir, 'bad-migrations')], env);
  assert.is(run.code, 1, run.stdout + run.stderr);
  assert.match(run.stderr, 'is not a valid model');
  assert.match(run.stderr, '/api');
  assert.not.ok(existsSync(join(dir, 'bad-migrations', 'current.sql')), 'nothing written for an invalid model');
});

test.run();
