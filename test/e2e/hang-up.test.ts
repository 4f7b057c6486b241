// A client that hangs up on a list does not leave its statement running: the statement is cancelled at once (it
// would otherwise hold a connection and a core until LOCK_TIMEOUT_MS or STATEMENT_TIMEOUT_MS), and nothing is logged as a failure.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { dataOf, expectStatus } from './support/http.ts';
import { startApi, type RunningApi } from './support/server.ts';

/** Connections one caller may hold for lists (POOL_CALLER_MAX): past it, its next list waits in the gate. */
const SHARE = 2;
let api: RunningApi;
test.before(async () => {
  api = await startApi('examples/publishing.model.json', { limits: { lockTimeoutMs: 20_000, statementTimeoutMs: 30_000, poolCallerMax: SHARE } });
  const project = dataOf(await api.post('/projects', { name: 'Hang-up' }), 201).id;
  dataOf(await api.post('/posts', { id: 'hu1', project_id: project, title: 'Hang-up' }), 201);
});
test.after(async () => api?.close());

/** Statements of the gateway now waiting for a lock. */
const waiting = async () => Number((await api.db.sql`select count(*)::int as n from pg_stat_activity
  where datname = current_database() and wait_event_type = 'Lock' and query like '%api.dispatch%'`)[0]!.n);

async function until(what: string, check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!await check()) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Runs `work` while another transaction holds app.posts locked, so every list waits in PostgreSQL. */
async function whileLocked(work: () => Promise<void>): Promise<void> {
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => { locked = r; });
  const holder = api.db.sql.begin(async (tx) => {
    await tx`lock table app.posts in access exclusive mode`;
    locked();
    await Promise.race([held, new Promise((r) => setTimeout(r, 15_000).unref())]);
  });
  await isLocked;
  try {
    await work();
  } finally {
    release();
    await holder;
  }
}

/** A list asked for on a connection of its own, left open (no FIN) until the test hangs up. */
function askList(token: string) {
  const socket = connect(Number(new URL(api.origin).port), '127.0.0.1');
  socket.on('error', () => {});
  socket.write(`GET ${api.basePath}/posts?per_page=5 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  return socket;
}

async function servedAgain(): Promise<void> {
  expectStatus(await api.get('/posts/hu1'), 200);
  assert.equal(dataOf(await api.get('/posts'), 200).length, 1, 'the connections serve lists again');
  assert.equal(api.serverErrors, [], 'a client hanging up is no failure of the gateway');
}

test('a list whose client closes the connection is cancelled in PostgreSQL at once, not left waiting', async () => {
  const token = await api.token();
  await whileLocked(async () => {
    const socket = askList(token);
    await until('the list waits for the table lock', async () => await waiting() === 1, 5_000);
    const left = Date.now();
    socket.end(); // the client hangs up while its list waits
    await until('the hung-up list is cancelled', async () => await waiting() === 0, 3_000);
    assert.ok(Date.now() - left < 3_000);
  });
  await servedAgain();
});

test('a list whose client hangs up while it waits for a connection is never sent', async () => {
  const token = await api.token();
  await whileLocked(async () => {
    const running = Array.from({ length: SHARE }, () => askList(token));
    await until('the caller\'s share of connections waits for the lock', async () => await waiting() === SHARE, 5_000);
    const queued = askList(token); // held back in the gate: its caller holds its share
    await new Promise((r) => setTimeout(r, 100));
    queued.end();
    await new Promise((r) => setTimeout(r, 100));
    for (const socket of running) socket.end(); // their connections come free: the queued one is admitted, and gone
    await until('the hung-up lists are cancelled', async () => await waiting() === 0, 3_000);
    await new Promise((r) => setTimeout(r, 300));
    assert.is(await waiting(), 0, 'the list that waited for a connection was not sent once one came free');
  });
  await servedAgain();
});

test.run();
