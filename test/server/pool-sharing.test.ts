// How the gate places statements on a pool's connections (server/pg/gate.ts), on a real PostgreSQL: keyed
// statements share a connection up to POOL_PIPELINE; nothing is sent behind a slow one, a list or a transaction.
// A slow statement waits for an advisory lock the test holds, and the gate's clock (STALE_MS) is the test's own, so each
// test decides by the order of events, not by how fast the machine is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import postgres, { type Sql } from 'postgres';
import { Gate, reservedForKeyed, STALE_MS, WAITING_AT_MOST, WAITING_PER_CALLER, WRITE_PLACES, type Use } from '../../server/pg/gate.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';

let db: TestDatabase;
const clients: Sql[] = [];
/** The gates' clock, in milliseconds: it moves only when a test moves it (a statement is stale once it has moved STALE_MS). */
let clock = 0;
/** Long enough that no statement a test waits for gives up on its own (the pool timeout is not what those test). */
const NO_TIMEOUT = 120_000;

test.before(async () => { db = await freshDatabase(); });
test.after(async () => {
  await Promise.all(clients.map((c) => c.end({ timeout: 1 })));
  await db?.close();
});

function gate(connections: number, depth: number, timeoutMs = NO_TIMEOUT, callerMax?: number): Gate {
  const own = Array.from({ length: connections }, () => postgres(db.url, { max: 1, onnotice: () => {} }));
  clients.push(...own);
  return new Gate(own, depth, timeoutMs, callerMax, () => clock);
}

/** The backend a statement ran on, after `seconds` of sleep. */
async function backend(g: Gate, use: Use, seconds = 0, caller?: string, places?: number): Promise<{ pid: number }> {
  const [row] = await g.run(use, (sql) => sql`select pg_backend_pid() as pid, pg_sleep(${seconds})`, caller, places);
  return { pid: row!.pid as number };
}

const LOCK = 4242;

/**
 * The advisory lock LOCK, taken on a connection of its own: statements from `slow` wait for it, so none of them ends
 * before `release`. Released anyway after 30 s, so that a gate that wrongly queued a statement behind them fails
 * its test (`held` is false by then) instead of hanging the run.
 */
async function hold(): Promise<{ readonly held: boolean; release: () => Promise<void> }> {
  const conn = await db.sql.reserve();
  await conn`select pg_advisory_lock(${LOCK})`;
  let held = true;
  const release = async () => {
    if (!held) return;
    held = false;
    clearTimeout(fallback);
    await conn`select pg_advisory_unlock(${LOCK})`;
    conn.release();
  };
  const fallback = setTimeout(() => void release(), 30_000);
  return { get held() { return held; }, release };
}

/** A statement that waits for LOCK (see hold), on the gate; `events` gets `start` once it has a connection, `end` when it ran. */
interface Slow { promise: Promise<{ pid: number }>; readonly settled: boolean }
function slow(g: Gate, use: Use, caller?: string, events?: string[]): Slow {
  let settled = false;
  const promise = g.run(use, async (sql) => {
    events?.push('start');
    const pid = use === 'own'
      ? await sql.begin(async (t) => {
        const [row] = await t`select pg_backend_pid() as pid`;
        await t`select pg_advisory_xact_lock_shared(${LOCK})`;
        return row!.pid as number;
      }) as number
      : (await sql`select pg_backend_pid() as pid, pg_advisory_xact_lock_shared(${LOCK})`)[0]!.pid as number;
    events?.push('end');
    return { pid };
  }, caller).finally(() => { settled = true; });
  return { promise, get settled() { return settled; } };
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
  const writes = (n: number) => Promise.all(Array.from({ length: n }, () => backend(g, 'share', 0.002, undefined, WRITE_PLACES)));
  assert.is(distinct(await writes(8 / WRITE_PLACES)), 1, 'as many writes as fit in eight places: one connection');
  assert.is(distinct(await writes(8 / WRITE_PLACES + 1)), 2, 'one more: a second connection');
  // Six reads and one write fill eight places; one more read goes to the next connection.
  const mixed = await Promise.all([...Array.from({ length: 6 }, () => backend(g, 'share', 0.002)), backend(g, 'share', 0.002, undefined, WRITE_PLACES), backend(g, 'share', 0.002)]);
  assert.is(distinct(mixed), 2);
  assert.is(g.inUse, 0);
});

test('POOL_PIPELINE=1: one statement per connection, as many connections as statements', async () => {
  const g = gate(4, 1);
  assert.is(distinct(await Promise.all(Array.from({ length: 4 }, () => backend(g, 'share', 0.05)))), 4);
});

test('nothing is sent behind a statement that is not keyed (a list, a bulk write)', async () => {
  const g = gate(3, 8);
  const lock = await hold();
  const long = slow(g, 'close');
  const quick = await Promise.all(Array.from({ length: 4 }, () => backend(g, 'share')));
  assert.ok(lock.held && !long.settled, 'the keyed ones answered while the slow one still ran');
  await lock.release();
  const { pid } = await long.promise;
  assert.ok(quick.every((q) => q.pid !== pid), 'none was sent behind it');
});

test(`a keyed statement that has run ${STALE_MS} ms takes no more behind it; a transaction takes a connection alone`, async () => {
  const g = gate(3, 8);
  const lock = await hold();
  const long = slow(g, 'share');
  const tx = slow(g, 'own');
  clock += STALE_MS; // the slow one has run STALE_MS: stale
  const quick = await Promise.all(Array.from({ length: 4 }, () => backend(g, 'share')));
  assert.ok(lock.held && !long.settled && !tx.settled, 'the keyed ones answered while the slow one and the transaction still ran');
  await lock.release();
  const [{ pid: longPid }, { pid: txPid }] = await Promise.all([long.promise, tx.promise]);
  assert.is.not(longPid, txPid, 'the transaction did not wait behind the slow read');
  assert.ok(quick.every((q) => q.pid !== longPid && q.pid !== txPid), 'none was sent behind either');
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
  const g = gate(1, 8);
  const order: string[] = [];
  const lock = await hold();
  const held = slow(g, 'close');
  const next = backend(g, 'share').then(() => void order.push('next'));
  assert.is(g.waiting, 1);
  void held.promise.then(() => void order.push('held'));
  await lock.release();
  await Promise.all([held.promise, next]);
  assert.equal(order, ['held', 'next'], 'the keyed one waited for the connection');
  const timed = gate(1, 8, 300);
  const again = await hold();
  const blocker = slow(timed, 'own');
  const refused = await backend(timed, 'share').then(() => 'ran', (err: Error) => err.message);
  assert.match(refused, 'POOL_TIMEOUT_MS (300 ms)');
  assert.ok(again.held && !blocker.settled, 'refused while the connection was still taken');
  await again.release();
  await blocker.promise;
  assert.is(timed.waiting, 0);
});

test('a fifth of the connections is kept for keyed statements: two callers\' long ones take the rest, a read by id still runs at once', async () => {
  assert.equal([1, 4, 5, 10, 12].map(reservedForKeyed), [0, 0, 1, 2, 2]);
  const g = gate(10, 8, NO_TIMEOUT, 5);
  const lock = await hold();
  const events: string[] = [];
  const longs = ['a', 'b'].flatMap((caller) => Array.from({ length: 5 }, () => slow(g, 'close', caller, events)));
  assert.is(g.inUse, 8, 'the long ones hold eight connections, two of them wait');
  assert.is(g.waiting, 2);
  const read = await backend(g, 'share', 0, 'victim');
  assert.ok(lock.held && longs.every((l) => !l.settled), 'the read answered while the long ones still held their connections');
  await lock.release();
  const pids = await Promise.all(longs.map((l) => l.promise));
  assert.ok(pids.every((p) => p.pid !== read.pid), 'the read had a connection of its own');
  assert.equal(events.slice(0, 9), [...Array(8).fill('start'), 'end'], 'eight ran at once; the two past the budget waited for one to end');
  assert.is(events.filter((e) => e === 'start').length, 10);
});

test('a caller may have 10 × POOL_MAX requests waiting: the next is 429 at once, others still queue; the line holds 50 × POOL_MAX', async () => {
  const g = gate(1, 1);
  const lock = await hold();
  const holder = slow(g, 'close', 'holder');
  const queued = Array.from({ length: WAITING_PER_CALLER }, () => backend(g, 'share', 0, 'eager'));
  const refused = await backend(g, 'share', 0, 'eager').then(() => 'ran', (err: Error & { status?: number }) => `${err.status} ${err.message}`);
  assert.match(refused, /^429 This caller already has 10 requests waiting/);
  assert.ok(lock.held && !holder.settled, 'refused at once, while the connection was still taken');
  const other = backend(g, 'share', 0, 'other');
  const anonymous = Array.from({ length: WAITING_AT_MOST - WAITING_PER_CALLER - 1 }, () => backend(g, 'share'));
  assert.is(g.waiting, WAITING_AT_MOST);
  const full = await backend(g, 'share').then(() => 'ran', (err: Error & { status?: number }) => `${err.status} ${err.message}`);
  assert.match(full, /^503 50 requests are waiting/);
  assert.ok(lock.held, 'refused at once too');
  await lock.release();
  await Promise.all([holder.promise, ...queued, other, ...anonymous]);
  assert.is(g.waiting, 0);
});

test.run();
