// The log of a served gateway (`serve` in a child process): a 500's error line on stdout next to its access
// line and nothing on stderr, access lines naming path, sub and ip (LOG_CALLER), the shutdown's lines on SIGTERM.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { startServe, SERVE_JWT_SECRET, type ServedGateway } from '../harness/serve.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';
import { token } from './setup.ts';
import { EventClient } from '../e2e/support/events.ts';

const BASE = '/api/logs/v1';
const everyone = [{ label: 'Everyone', predicate: { style: 'and', children: [{ type: 'allowPublic' }] } }];
const MODEL = {
  api: { slug: 'logs', version: 'v1', title: 'Logs API', docsUrl: 'https://docs.example.com', strategy: 'RBAC' },
  entities: {
    Note: { collection: 'notes', properties: { id: { type: 'String', primary: true }, title: { type: 'String' } }, scenarios: everyone },
    // Its column is renamed under the API's functions: reading a jot is a 500, as a bug would be.
    Jot: { collection: 'jots', properties: { id: { type: 'String', primary: true }, text: { type: 'String' } }, scenarios: everyone },
  },
};

let db: TestDatabase;
let own: string;
let gw: ServedGateway;
/** What the gateway wrote to stderr once it was serving. */
let stderr = '';
const started: ServedGateway[] = [];

async function serve(env: NodeJS.ProcessEnv): Promise<ServedGateway> {
  const g = await startServe({ GATEWAY_DATABASE_URL: own, ...env });
  started.push(g);
  return g;
}

/** The complete JSON lines the gateway wrote so far (its log is written in blocks). */
function lines(g: ServedGateway): Array<Record<string, any>> {
  const out = g.output();
  return out.slice(0, out.lastIndexOf('\n') + 1).split('\n').filter((l) => l.startsWith('{')).flatMap((l) => {
    try { return [JSON.parse(l) as Record<string, any>]; } catch { return []; }
  });
}

async function eventually<T>(what: string, probe: () => T | undefined | Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no ${what}`);
}

test.before(async () => {
  try {
    db = await freshDatabase();
    await installModel(db, MODEL);
    await db.sql`insert into app.jots (id, text) values ('j1', 'x')`;
    await db.sql`alter table app.jots rename column text to text_gone`;
    own = await gatewayUrl(db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' });
    gw = await serve({ TRUST_PROXY: '1', LOG_LEVEL: 'info' });
    gw.child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  } catch (err) {
    console.error('set-up failed:', err); // uvu reports a failed hook without its error
    throw err;
  }
});

test.after(async () => {
  for (const g of started) await g.stop();
  await db?.close();
});

test('a 500: one error line on stdout with its access line\'s request_id and the SQLSTATE; nothing on stderr', async () => {
  const res = await fetch(`${gw.origin}${BASE}/jots/j1`, { headers: { 'x-request-id': 'served-500' } });
  assert.is(res.status, 500);
  assert.not.match(await res.text(), /text_gone|42703|jots_read/, 'the client sees no internals');
  const access = await eventually('access line', () => lines(gw).find((l) => l.request_id === 'served-500' && l.msg === 'request'));
  const errors = lines(gw).filter((l) => l.request_id === 'served-500' && l.level === 50);
  assert.is(errors.length, 1, gw.output());
  const [error] = errors;
  assert.equal([error!.msg, error!.status, error!.route, error!.path], ['request failed', 500, access.route, `${BASE}/jots/j1`]);
  assert.equal([error!.error.type, error!.error.code], ['PostgresError', '42703']);
  assert.match(error!.error.where, 'PL/pgSQL function api.jots_read');
  assert.is(error!.error.stack, undefined);
  assert.is(stderr, '', 'no multi-line dump (nor anything else) on stderr');
});

test('access lines name the path without its query, the caller\'s sub and the IP TRUST_PROXY believes; LOG_CALLER=false omits sub and ip', async () => {
  const bearer = await token({ sub: 'u-served' }, SERVE_JWT_SECRET);
  await fetch(`${gw.origin}${BASE}/notes/n1?fields=id`, { headers: { authorization: `Bearer ${bearer}`, 'x-forwarded-for': '203.0.113.9', 'x-request-id': 'served-who' } });
  await fetch(`${gw.origin}${BASE}/notes`, { headers: { 'x-request-id': 'served-anon' } });
  const who = await eventually('line', () => lines(gw).find((l) => l.request_id === 'served-who'));
  assert.equal([who.path, who.sub, who.ip], [`${BASE}/notes/n1`, 'u-served', '203.0.113.9'], JSON.stringify(who));
  const anon = await eventually('line', () => lines(gw).find((l) => l.request_id === 'served-anon'));
  assert.equal([anon.path, anon.ip, 'sub' in anon], [`${BASE}/notes`, '127.0.0.1', false], JSON.stringify(anon));

  const quiet = await serve({ LOG_CALLER: 'false' });
  await fetch(`${quiet.origin}${BASE}/notes`, { headers: { authorization: `Bearer ${bearer}`, 'x-request-id': 'served-quiet' } });
  const line = await eventually('line', () => lines(quiet).find((l) => l.request_id === 'served-quiet'));
  assert.equal([line.path, 'sub' in line, 'ip' in line], [`${BASE}/notes`, false, false], JSON.stringify(line));
});

test('SIGTERM: a draining line (signal, requests in flight), then, once they ended, a stopped line with how long it took', async () => {
  const g = await serve({ LOCK_TIMEOUT_MS: '20000', SHUTDOWN_GRACE_MS: '15000' });
  await db.sql`insert into app.notes (id, title) values ('held', 'before')`;
  let release!: () => void;
  const locked = new Promise<void>((resolve) => {
    void db.sql.begin(async (tx) => {
      await tx`select 1 from app.notes where id = 'held' for update`;
      resolve();
      await new Promise<void>((r) => { release = r; });
    });
  });
  await locked;
  const patch = fetch(`${g.origin}${BASE}/notes/held`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-request-id': 'in-flight' }, body: '{"title":"after"}' });
  try {
    // In flight: the database shows its statement waiting for the lock.
    await eventually('the PATCH waiting on the lock', async () =>
      (await db.sql`select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`).length ? true : undefined);
    const exited = g.stop(); // SIGTERM
    const draining = await eventually('the draining line', () => lines(g).find((l) => l.msg === 'draining'));
    assert.equal([draining.level, draining.signal, draining.in_flight, draining.grace_ms], [30, 'SIGTERM', 1, 15000], JSON.stringify(draining));
    assert.not.ok(lines(g).some((l) => l.msg?.startsWith('stopped')), 'not stopped while a request is in flight');
    release();
    assert.is((await patch).status, 200);
    assert.is(await exited, 0, g.output());
  } finally {
    release();
  }
  const all = lines(g);
  const stopped = all.filter((l) => l.msg === 'stopped');
  assert.is(stopped.length, 1, g.output());
  assert.is(stopped[0]!.level, 30);
  assert.type(stopped[0]!.duration_ms, 'number');
  const at = (line: Record<string, any> | undefined) => (line ? all.indexOf(line) : -1);
  const access = all.find((l) => l.request_id === 'in-flight');
  assert.is(access?.status, 200, 'the request in flight finished and was logged');
  assert.ok(at(all.find((l) => l.msg === 'draining')) < at(access) && at(access) < at(stopped[0]), 'draining, the last access line, then stopped');
});

test('change streams under the gateway\'s own login: an event reaches a stream, /metrics counts it, SIGTERM ends the stream and the gateway exits', async () => {
  const g = await serve({ LOG_LEVEL: 'info' });
  const stream = await EventClient.open(`${g.origin}${BASE}/notes`, null);
  assert.is(stream.status, 200, stream.text);
  try {
    await stream.until(() => stream.lastId !== undefined, 'the stream joined');
    await db.sql`insert into app.notes (id, title) values ('streamed', 'live')`;
    await stream.count(1);
    assert.equal([stream.events[0]!.event, stream.events[0]!.data.data], ['created', { id: 'streamed', title: 'live' }]);
    const metrics = await (await fetch(`${g.origin}/metrics`)).text();
    assert.match(metrics, /^change_streams_open 1$/m);
    assert.match(metrics, /^change_stream_events_total 1$/m);
    assert.match(metrics, /^change_stream_lag_seconds_count 1$/m);
    const exited = g.stop(); // SIGTERM
    await stream.end();
    assert.is(await exited, 0, g.output());
    const draining = lines(g).find((l) => l.msg === 'draining');
    assert.is(draining?.streams, 1, JSON.stringify(draining));
  } finally {
    stream.close();
  }
});

test.run();
