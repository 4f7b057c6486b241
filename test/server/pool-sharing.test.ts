// How the gate places statements on a pool's connections (server/pg/gate.ts), on a real PostgreSQL: keyed
// statements share a connection up to POOL_PIPELINE; nothing is sent behind a slow one, a list or a transaction.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres, { type Sql } from 'postgres';
import { Gate, reservedForKeyed, STALE_MS, WAITING_AT_MOST, WAITING_PER_CALLER, WRITE_PLACES, type Use } from '../../server/pg/gate.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';

let db: TestDatabase;
const clients: Sql[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test.before(async () => { db = await freshDatabase(); });
test.after(async () => {
  await Promise.all(clients.map((c) => c.end({ timeout: 1 })));
  await db?.close();
});

function gate(connections: number, depth: number, timeoutMs = 3000, callerMax?: number): Gate {
  const own = Array.from({ length: connections }, () => postgres(db.url, { max: 1, onnotice: () => {} }));
  clients.push(...own);
  return new Gate(own, depth, timeoutMs, callerMax);
}

/** The backend a statement ran on, after `seconds` of sleep, and when it answered (ms after `from`). */
async function backend(g: Gate, use: Use, seconds = 0, from = performance.now(), caller?: string, places?: number): Promise<{ pid: number; ms: number }> {
  const [row] = await g.run(use, (sql) => sql`select pg_backend_pid() as pid, pg_sleep(${seconds})`, caller, places);
  return { pid: row!.pid as number, ms: performance.now() - from };
}

const distinct = (xs: Array<{ pid: number }>) => new Set(xs.map((x) => x.pid)).size;

test('keyed statements share the first connection up to the depth, then the next one', async () => {
  const g = gate(4, 8);
  assert.is(distinct(await Promise.all(Array.from({ length: 8 }, () => backend(g, 'share', 0.002)))), 1, 'eight on one connection');
  assert.is(distinct(await Promise.all(Array.from({ length: 12 }, () => backend(g, 'share', 0.002)))), 2, 'twelve on two');
  assert.is(g.inUse, 0);
});

test(`a keyed write takes ${WRITE_PLACES} places of the depth: fewer writes than reads share a connection`, async () => {
  const g = gate(4, 8);
  const writes = (n: number) => Promise.all(Array.from({ length: n }, () => backend(g, 'share', 0.002, undefined, undefined, WRITE_PLACES)));
  assert.is(distinct(await writes(8 / WRITE_PLACES)), 1, 'as many writes as fit in eight places: one connection');
  assert.is(distinct(await writes(8 / WRITE_PLACES + 1)), 2, 'one more: a second connection');
  // Six reads and one write fill eight places; one more read goes to the next connection.
  const mixed = await Promise.all([...Array.from({ length: 6 }, () => backend(g, 'share', 0.002)), backend(g, 'share', 0.002, undefined, undefined, WRITE_PLACES), backend(g, 'share', 0.002)]);
  assert.is(distinct(mixed), 2);
  assert.is(g.inUse, 0);
});

test('POOL_PIPELINE=1: one statement per connection, as many connections as statements', async () => {
  const g = gate(4, 1);
  assert.is(distinct(await Promise.all(Array.from({ length: 4 }, () => backend(g, 'share', 0.05)))), 4);
});

test('nothing is sent behind a statement that is not keyed (a list, a bulk write)', async () => {
  const g = gate(3, 8);
  const from = performance.now();
  const slow = backend(g, 'close', 0.6, from);
  const quick = await Promise.all(Array.from({ length: 4 }, () => backend(g, 'share', 0, from)));
  const long = await slow;
  assert.ok(quick.every((q) => q.pid !== long.pid && q.ms < 400), `keyed ones answered at ${quick.map((q) => q.ms.toFixed(0))} ms`);
  assert.ok(long.ms >= 550);
});

test(`a keyed statement that has run ${STALE_MS} ms takes no more behind it; a transaction takes a connection alone`, async () => {
  const g = gate(3, 8);
  const from = performance.now();
  const slow = backend(g, 'share', 0.6, from);
  const tx = g.run('own', (sql) => sql.begin(async (t) => {
    const [row] = await t`select pg_backend_pid() as pid`;
    await t`select pg_sleep(0.6)`;
    return row!.pid as number;
  }));
  await sleep(STALE_MS * 4);
  const quick = await Promise.all(Array.from({ length: 4 }, () => backend(g, 'share', 0, from)));
  const [long, txPid] = [await slow, await tx];
  assert.is.not(long.pid, txPid, 'the transaction did not wait behind the slow read');
  assert.ok(quick.every((q) => q.pid !== long.pid && q.pid !== txPid && q.ms < 400), `keyed ones answered at ${quick.map((q) => q.ms.toFixed(0))} ms`);
});

test('first come, first served: keyed statements do not overtake a transaction waiting for a connection', async () => {
  const g = gate(1, 8);
  const order: string[] = [];
  const done = (name: string) => () => void order.push(name);
  const first = backend(g, 'share', 0.2).then(done('first read'));
  const tx = g.run('own', (sql) => sql.begin((t) => t`select 1`)).then(done('transaction'));
  const later = backend(g, 'share').then(done('later read'));
  await Promise.all([first, tx, later]);
  assert.equal(order, ['first read', 'transaction', 'later read']);
});

test('every connection taken: statements wait in line, in order, and give up at the pool timeout', async () => {
  const g = gate(1, 8, 300);
  const from = performance.now();
  const held = backend(g, 'close', 0.15, from);
  const next = backend(g, 'share', 0, from);
  assert.is(g.waiting, 1);
  assert.ok((await next).ms >= 140, 'the keyed one waited for the connection');
  await held;
  const blocker = backend(g, 'own', 0.6, from);
  const refused = await backend(g, 'share').then(() => 'ran', (err: Error) => err.message);
  assert.match(refused, 'POOL_TIMEOUT_MS (300 ms)');
  await blocker;
  assert.is(g.waiting, 0);
});

test('a fifth of the connections is kept for keyed statements: two callers\' long ones take the rest, a read by id still runs at once', async () => {
  assert.equal([1, 4, 5, 10, 12].map(reservedForKeyed), [0, 0, 1, 2, 2]);
  const g = gate(10, 8, 3000, 5);
  const from = performance.now();
  const longs = ['a', 'b'].flatMap((caller) => Array.from({ length: 5 }, () => backend(g, 'close', 0.5, from, caller)));
  await sleep(50);
  assert.is(g.inUse, 8, 'the long ones hold eight connections, two of them wait');
  assert.is(g.waiting, 2);
  const read = await backend(g, 'share', 0, from, 'victim');
  assert.ok(read.ms < 300, `the read answered at ${read.ms.toFixed(0)} ms, not after the long ones`);
  const done = await Promise.all(longs);
  assert.ok(done.filter((d) => d.ms >= 900).length === 2, 'the two past the budget ran after the first ones');
});

test('a caller may have 10 × POOL_MAX requests waiting: the next is 429 at once, others still queue; the line holds 50 × POOL_MAX', async () => {
  const g = gate(1, 1, 3000);
  const from = performance.now();
  const holder = backend(g, 'close', 0.4, from, 'holder');
  await sleep(20);
  const queued = Array.from({ length: WAITING_PER_CALLER }, () => backend(g, 'share', 0, from, 'eager'));
  const refused = await backend(g, 'share', 0, from, 'eager').then(() => 'ran', (err: Error & { status?: number }) => `${err.status} ${err.message}`);
  assert.match(refused, /^429 This caller already has 10 requests waiting/);
  assert.ok(performance.now() - from < 300, 'refused at once');
  const other = backend(g, 'share', 0, from, 'other');
  const anonymous = Array.from({ length: WAITING_AT_MOST - WAITING_PER_CALLER - 1 }, () => backend(g, 'share', 0, from));
  assert.is(g.waiting, WAITING_AT_MOST);
  const full = await backend(g, 'share', 0, from).then(() => 'ran', (err: Error & { status?: number }) => `${err.status} ${err.message}`);
  assert.match(full, /^503 50 requests are waiting/);
  await Promise.all([holder, ...queued, other, ...anonymous]);
  assert.is(g.waiting, 0);
});

test.run();
