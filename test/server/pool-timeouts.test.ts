// The gateway's own pools under a held row lock: writers get a 503 problem document with Retry-After at
// LOCK_TIMEOUT_MS (or STATEMENT_TIMEOUT_MS, whichever runs out first), a request finding every connection
// taken gets one at POOL_TIMEOUT_MS, and /health answers 200 all along from its own connection.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Manifest } from '../../compiler/manifest/types.ts';
import { createApp } from '../../server/app.ts';
import { healthRoutes } from '../../server/health.ts';
import { openPools, type Pools } from '../../server/pg/pools.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';
import { loadManifest } from '../../server/query/manifest.ts';
import { DEFAULT_LIMITS, limitsFromEnv, type RequestLimits } from '../../server/request/limits.ts';
import { Files } from '../../server/files/service.ts';
import { storageFromEnv } from '../../server/files/drivers.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BASE, SECRET, startApi, token, type Api } from './setup.ts';
import { STALE_MS } from '../../server/pg/gate.ts';

let api: Api;
let own: string;
let manifest: Manifest;
const opened: Pools[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => {
  api = await startApi();
  own = await gatewayUrl(api.db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' });
  manifest = api.manifest;
});
test.after(async () => {
  await Promise.all(opened.map((p) => p.end(1)));
  await api?.close();
});

function gateway(limits: Partial<RequestLimits>) {
  const pools = openPools({ primaryUrl: own, limits: { ...DEFAULT_LIMITS, ...limits } });
  opened.push(pools);
  // Files as the gateway wires them: upload intents and attach checks through the primary's pool.
  const storage = storageFromEnv({ FILES_DIR: mkdtempSync(join(tmpdir(), 'pool-files-')), FILES_SECRET: 'pool-timeouts-files' }, manifest.api.basePath);
  const files = new Files({ sql: pools.primary.sql, pool: pools.primary, manifest, storage });
  const app = createApp({ sql: pools.primary.sql, pools, manifest, jwtSecret: SECRET, log: () => {}, files });
  app.route('/', healthRoutes(pools.probe));
  const call = async (method: string, path: string, body?: unknown, sub = 'u1') => {
    const headers: Record<string, string> = { authorization: `Bearer ${await token({ sub, roles: ['admin'] })}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const started = Date.now();
    const res = await app.request(BASE + path, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
    return { res, ms: Date.now() - started, body: await res.json().catch(() => undefined) as any };
  };
  return { app, call, files, pools };
}

/** Holds a row lock on the project in a superuser transaction until release(). */
async function holdLock(id: string): Promise<() => Promise<void>> {
  let release!: () => void;
  let locked!: () => void;
  const ready = new Promise<void>((r) => { locked = r; });
  const tx = api.db.sql.begin(async (sql) => {
    await sql`select 1 from app.projects where id = ${id} for update`;
    locked();
    await new Promise<void>((r) => { release = r; });
  });
  await ready;
  return async () => { release(); await tx; };
}

/** The backend of a gateway statement waiting on a held lock, once there is one (the order of events, not a delay). */
async function waiting(): Promise<number> {
  for (let i = 0; i < 500; i++) {
    await sleep(20);
    const [row] = await api.db.sql`select pid from pg_stat_activity where wait_event_type = 'Lock' and query like '%api.dispatch%'`;
    if (row) return row.pid as number;
  }
  throw new Error('no statement waits on the lock');
}

function busy(r: { res: Response; body: any }, what: string, detail: string) {
  assert.is(r.res.status, 503, `${what}: ${JSON.stringify(r.body)}`);
  assert.is(r.body.code, 'E_UNAVAILABLE');
  assert.match(r.body.detail, detail);
  assert.is(r.res.headers.get('retry-after'), '1', `${what}: Retry-After`);
  assert.is(r.res.headers.get('content-type'), 'application/problem+json');
}

test('a held lock: 503 at LOCK_TIMEOUT_MS for every writer, /health 200 meanwhile, the write goes through after', async () => {
  const g = gateway({ lockTimeoutMs: 1500, poolMax: 2 });
  const project = (await g.call('POST', '/projects', { name: 'Locked' })).body.data;
  const release = await holdLock(project.id);
  try {
    const writes = [1, 2, 3].map((n) => g.call('PATCH', `/projects/${project.id}`, { name: `try ${n}` }));
    await sleep(100);
    const asked = Date.now();
    assert.is((await g.app.request('/health')).status, 200, 'health answers while every connection waits on the lock');
    assert.ok(Date.now() - asked < 750, 'health did not wait for a pooled connection');
    for (const r of await Promise.all(writes)) {
      busy(r, 'a writer behind the lock', 'LOCK_TIMEOUT_MS');
      assert.ok(r.ms < 5000, `answered in ${r.ms} ms (two lock timeouts at most: the third waited for a connection)`);
    }
  } finally {
    await release();
  }
  assert.is((await g.call('PATCH', `/projects/${project.id}`, { name: 'free' })).res.status, 200);
});

test(`a write held on a lock past ${STALE_MS} ms is sent again alone: it waits out the lock, reads behind it do not`, async () => {
  const g = gateway({ lockTimeoutMs: 5000, poolMax: 3 });
  const project = (await g.call('POST', '/projects', { name: 'Shared' })).body.data;
  const release = await holdLock(project.id);
  const gate = g.pools.primary.gate;
  const started = Date.now();
  // Sent behind the write on its connection, in the same tick as it: they must not wait for the lock it waits on.
  let reads: Array<Promise<number>> = [];
  const run = gate.run.bind(gate);
  gate.run = ((use, work) => {
    const placed = run(use, work);
    if (use === 'share' && reads.length === 0) {
      reads = Array.from({ length: 3 }, () => run('share', (sql) => sql`select 1`).then(() => Date.now() - started));
      assert.is(gate.inUse, 1, 'the reads were sent on the write\'s connection');
    }
    return placed;
  }) as typeof gate.run;
  const write = g.call('PATCH', `/projects/${project.id}`, { name: 'after the lock' });
  while (reads.length === 0) await new Promise((r) => setImmediate(r));
  const readMs = await Promise.all(reads);
  await sleep(600);
  await release();
  const r = await write;
  assert.is(r.res.status, 200, JSON.stringify(r.body));
  assert.is(r.body.data.name, 'after the lock');
  assert.ok(r.ms >= 550, `the write waited for the lock (${r.ms} ms)`);
  assert.ok(readMs.every((ms) => ms < 400), `reads answered at ${readMs} ms while the lock was held`);
});

test('STATEMENT_TIMEOUT_MS cancels a request that runs longer (the lock timeout set higher); nothing is changed', async () => {
  const g = gateway({ statementTimeoutMs: 500, lockTimeoutMs: 30_000 });
  const project = (await g.call('POST', '/projects', { name: 'Slow' })).body.data;
  const release = await holdLock(project.id);
  try {
    const r = await g.call('DELETE', `/projects/${project.id}`);
    busy(r, 'cancelled at the statement timeout', 'STATEMENT_TIMEOUT_MS');
    assert.ok(r.ms >= 450 && r.ms < 3000, `answered in ${r.ms} ms`);
  } finally {
    await release();
  }
  const [row] = await api.db.sql`select count(*)::int as n from app.projects where id = ${project.id}`;
  assert.is(row!.n, 1, 'the cancelled delete changed nothing');
});

test('a cancel the gateway did not send (meant for the statement before it, or pg_cancel_backend) is run again: 200, not 503', async () => {
  const g = gateway({ lockTimeoutMs: 10_000 });
  const project = (await g.call('POST', '/projects', { name: 'Stray' })).body.data;
  const release = await holdLock(project.id);
  let write: ReturnType<typeof g.call> | undefined;
  try {
    write = g.call('PATCH', `/projects/${project.id}`, { name: 'after a stray cancel' });
    await sleep(STALE_MS * 10);
    const [cancel] = await api.db.sql`select pg_cancel_backend(${await waiting()}) as sent`;
    assert.ok(cancel!.sent);
    await sleep(50);
    await waiting(); // run again, it waits on the lock once more
  } finally {
    await release();
  }
  const r = await write!;
  assert.is(r.res.status, 200, JSON.stringify(r.body));
  assert.is(r.body.data.name, 'after a stray cancel');
});

test('a read by key whose connection is lost under it (pg_terminate_backend, a restart) runs again: 200, not 503; a write is not run again', async () => {
  const g = gateway({ lockTimeoutMs: 10_000 });
  const project = (await g.call('POST', '/projects', { name: 'Lost' })).body.data;
  /** Holds the projects table until release(): statements on it wait, and their backend can be terminated. */
  const holdTable = async () => {
    let release!: () => void;
    let locked!: () => void;
    const ready = new Promise<void>((r) => { locked = r; });
    const tx = api.db.sql.begin(async (sql) => {
      await sql`lock table app.projects in access exclusive mode`;
      locked();
      await new Promise<void>((r) => { release = r; });
    });
    await ready;
    return async () => { release(); await tx; };
  };
  const terminateWaiting = async () => {
    for (let i = 0; i < 500; i++) {
      await sleep(20);
      const [row] = await api.db.sql`select pg_terminate_backend(pid) as done from pg_stat_activity where wait_event_type = 'Lock' and query like '%api.dispatch%'`;
      if (row?.done) return;
    }
    throw new Error('no statement waits on the table');
  };
  for (const [what, request, expected] of [
    ['read', () => g.call('GET', `/projects/${project.id}`), 200],
    ['write', () => g.call('PATCH', `/projects/${project.id}`, { name: 'maybe' }), 503],
  ] as const) {
    const release = await holdTable();
    let reply: ReturnType<typeof g.call> | undefined;
    try {
      reply = request();
      await terminateWaiting();
      await sleep(100);
    } finally {
      await release();
    }
    const r = await reply!;
    assert.is(r.res.status, expected, `${what}: ${JSON.stringify(r.body)}`);
  }
});

test('every connection taken: 503 at POOL_TIMEOUT_MS, never a hang', async () => {
  const g = gateway({ lockTimeoutMs: 3000, poolMax: 1, poolTimeoutMs: 300 });
  const project = (await g.call('POST', '/projects', { name: 'Pool' })).body.data;
  const release = await holdLock(project.id);
  try {
    const first = g.call('PATCH', `/projects/${project.id}`, { name: 'holds the connection' });
    await waiting(); // the pool's one connection now waits on the lock
    const second = await g.call('GET', `/projects/${project.id}`);
    busy(second, 'waiting for a connection', 'POOL_TIMEOUT_MS');
    assert.ok(second.ms < 2000, `answered in ${second.ms} ms`);
    const intent = await g.call('POST', '/.well-known/upload', { filename: 'a.png', contentType: 'image/png' });
    busy(intent, 'an upload intent waits for the same pool', 'POOL_TIMEOUT_MS');
    // The file outbox's statements wait for a place too: a drain gives up at POOL_TIMEOUT_MS, never queues past it.
    const drainStarted = Date.now();
    const drained = await g.files.drain().then(() => 'drained', (err: Error) => err.message);
    assert.match(drained, 'POOL_TIMEOUT_MS', 'the drain waited for the pool and gave up');
    assert.ok(Date.now() - drainStarted < 2000, `the drain gave up in ${Date.now() - drainStarted} ms`);
    busy(await first, 'the writer behind the lock', 'LOCK_TIMEOUT_MS');
  } finally {
    await release();
  }
});

test('one caller holds at most POOL_CALLER_MAX connections: its next request waits while others go ahead, 429 at POOL_TIMEOUT_MS', async () => {
  const g = gateway({ lockTimeoutMs: 3000, poolMax: 3, poolCallerMax: 2, poolTimeoutMs: 800 });
  const project = (await g.call('POST', '/projects', { name: 'Share' })).body.data;
  const release = await holdLock(project.id);
  let writes: Array<Promise<{ res: Response }>> = [];
  try {
    // Refused the lock within STALE_MS, each write waits for it on a connection of its own: u1's share.
    writes = [1, 2].map((n) => g.call('PATCH', `/projects/${project.id}`, { name: `held ${n}` }));
    await sleep(300);
    assert.is(g.pools.primary.gate.held('sub u1'), 2);
    const third = g.call('GET', '/projects');
    await sleep(100);
    const other = await g.call('GET', '/projects', undefined, 'u2');
    assert.is(other.res.status, 200, 'another caller takes the free connection ahead of u1\'s waiting list');
    assert.ok(other.ms < 700, `answered in ${other.ms} ms`);
    const refused = await third;
    assert.is(refused.res.status, 429, JSON.stringify(refused.body));
    assert.is(refused.body.code, 'E_TOO_MANY_REQUESTS');
    assert.match(refused.body.detail, 'POOL_CALLER_MAX');
    assert.is(refused.res.headers.get('retry-after'), '1');
    assert.ok(refused.ms >= 700, `it waited POOL_TIMEOUT_MS (${refused.ms} ms)`);
    const read = await g.call('GET', `/projects/${project.id}`);
    assert.is(read.res.status, 200, 'a read by key is not held to the share');
  } finally {
    await release();
  }
  for (const w of await Promise.all(writes)) assert.is(w.res.status, 200);
  assert.is(g.pools.primary.gate.held('sub u1'), 0, 'the share is given back');
  assert.is((await g.call('GET', '/projects')).res.status, 200);
});

test('POOL_CALLER_MAX: half of POOL_MAX unless set', () => {
  assert.is(limitsFromEnv({}).poolCallerMax, 5);
  assert.is(limitsFromEnv({ POOL_MAX: '7' }).poolCallerMax, 4);
  assert.is(limitsFromEnv({ POOL_MAX: '7', POOL_CALLER_MAX: '7' }).poolCallerMax, 7);
  assert.throws(() => limitsFromEnv({ POOL_CALLER_MAX: '0' }), /POOL_CALLER_MAX must be a positive whole number/);
});

test('a gateway whose own login is refused (wrong password) answers 503, not 500, and /health says 503 too', async () => {
  const wrong = new URL(own);
  wrong.password = 'not-the-password';
  const pools = openPools({ primaryUrl: wrong.toString(), limits: DEFAULT_LIMITS });
  opened.push(pools);
  const app = createApp({ sql: pools.primary.sql, pools, manifest, jwtSecret: SECRET, log: () => {} });
  app.route('/', healthRoutes(pools.probe));
  const res = await app.request(`${BASE}/projects`, { headers: { authorization: `Bearer ${await token({ sub: 'u1', roles: ['admin'] })}` } });
  const body = await res.json() as any;
  assert.is(res.status, 503, JSON.stringify(body));
  assert.is(body.code, 'E_UNAVAILABLE');
  assert.match(body.detail, 'cannot log in');
  assert.is((await app.request('/health')).status, 503);
});

test.run();
