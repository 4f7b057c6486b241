// GET /health in-process (app.request) against a real database, and against one that does not answer.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import postgres from 'postgres';
import { healthRoutes } from '../../server/health.ts';
import { freshDatabase, type TestDatabase } from '../harness/db.ts';
import { freePort } from '../harness/net.ts';

let db: TestDatabase;

test.before(async () => {
  db = await freshDatabase();
});

test.after(async () => {
  await db?.close();
});

test('answers 200 {"status":"ok"} when the database answers', async () => {
  const res = await healthRoutes(db.sql).request('/health');
  assert.is(res.status, 200);
  assert.equal(await (await healthRoutes(db.sql).request('/ready')).json(), { status: 'ok' });
  assert.equal(await (await healthRoutes(db.sql).request('/live')).json(), { status: 'ok' });
  assert.equal(await res.json(), { status: 'ok' });
  assert.is(res.headers.get('cache-control'), 'no-store');
});

test('answers 503 problem+json without internals when the database is down', async () => {
  const port = await freePort(); // nothing listens there
  const dead = postgres(`postgres://nobody:secret@127.0.0.1:${port}/nowhere`, { connect_timeout: 1, onnotice: () => {} });
  try {
    const app = healthRoutes(dead, { timeoutMs: 2000, docsUrl: 'https://docs.example.com' });
    const res = await app.request('/health');
    assert.is(res.status, 503);
    assert.is((await app.request('/ready')).status, 503, '/ready is /health');
    assert.is((await app.request('/live')).status, 200, '/live needs no database');
    assert.is(res.headers.get('content-type'), 'application/problem+json');
    const body = await res.json();
    assert.is(body.status, 503);
    assert.is(body.type, 'https://docs.example.com/errors/unavailable');
    assert.not.match(JSON.stringify(body), String(port), 'no connection details leak');
  } finally {
    await dead.end({ timeout: 1 });
  }
});

test('answers 503 when the database does not answer in time', async () => {
  const sockets: Socket[] = [];
  const silent = createServer((s) => void sockets.push(s)); // accepts connections, never says a word
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as AddressInfo;
  const stuck = postgres(`postgres://nobody:secret@127.0.0.1:${port}/nowhere`, { connect_timeout: 10, onnotice: () => {} });
  try {
    const started = Date.now();
    const res = await healthRoutes(stuck, { timeoutMs: 200 }).request('/health');
    assert.is(res.status, 503);
    assert.ok(Date.now() - started < 5000, 'answered at the time limit, not the connect timeout');
  } finally {
    await stuck.end({ timeout: 0 });
    sockets.forEach((s) => s.destroy());
    await new Promise((resolve) => silent.close(resolve));
  }
});

test('requests that come while a probe is out share its answer: one statement for a flood of them', async () => {
  let sent = 0;
  const counted = postgres(db.url, { max: 1, onnotice: () => {}, debug: () => { sent++; } });
  try {
    await counted`select 1`; // the connection's own first statements (postgres.js reads the types) are not counted
    sent = 0;
    const app = healthRoutes(counted);
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => app.request(i % 2 ? '/health' : '/ready')));
    assert.equal([...new Set(answers.map((r) => r.status))], [200]);
    assert.is(sent, 1, `${sent} statements for 50 requests at once`);
    assert.is((await app.request('/health')).status, 200);
    assert.is(sent, 2, 'a request after the answer probes again');
  } finally {
    await counted.end({ timeout: 1 });
  }
});

test('is not found on other paths', async () => {
  const res = await healthRoutes(db.sql).request('/nope');
  assert.is(res.status, 404);
});

test.run();
