// Operations of a deployed gateway, checked on `serve` child processes over the harness's PostgreSQL: a held row
// lock → 503 at LOCK_TIMEOUT_MS while /health answers, X-Request-Id in log and /metrics, CORS_ORIGINS, TRUST_PROXY.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { startServe, type ServedGateway } from '../harness/serve.ts';
import { dataOf, expectStatus, type Reply } from '../e2e/support/http.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';

const BASE = '/api/ops/v1';
const OFFICE = '203.0.113.0/24';
const MODEL = {
  api: { slug: 'ops', version: 'v1', title: 'Ops API', docsUrl: 'https://docs.example.com', strategy: 'RBAC' },
  entities: {
    Note: {
      collection: 'notes',
      properties: { id: { type: 'String', primary: true }, title: { type: 'String' } },
      scenarios: [{ label: 'Everyone', predicate: { style: 'and', children: [{ type: 'allowPublic' }] } }],
    },
    // Only callers whose IP is in OFFICE: the caller IP is what TRUST_PROXY lets the gateway believe.
    Vault: {
      collection: 'vaults',
      properties: { id: { type: 'String', primary: true } },
      scenarios: [{ label: 'Office network', predicate: { style: 'and', children: [{ type: 'matchIpAddress', cidrs: [OFFICE] }] } }],
    },
  },
};
const LOCK_TIMEOUT_MS = 1000;

let db: TestDatabase;
let own: string;
let gw: ServedGateway;
const started: ServedGateway[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function serve(env: NodeJS.ProcessEnv): Promise<ServedGateway> {
  const g = await startServe({ GATEWAY_DATABASE_URL: own, ...env });
  started.push(g);
  return g;
}

/** The complete JSON lines the gateway wrote to stdout so far (the access log is written in blocks). */
function accessLines(g: ServedGateway): Array<Record<string, any>> {
  const out = g.output();
  return out.slice(0, out.lastIndexOf('\n') + 1).split('\n').filter((l) => l.startsWith('{')).flatMap((l) => {
    try { return [JSON.parse(l) as Record<string, any>]; } catch { return []; }
  });
}

async function eventually<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const metricsOf = async (g: ServedGateway) => (await fetch(`${g.origin}/metrics`)).text();

test.before(async () => {
  try {
    db = await freshDatabase();
    await installModel(db, MODEL);
    own = await gatewayUrl(db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' });
    gw = await serve({
      LOCK_TIMEOUT_MS: String(LOCK_TIMEOUT_MS), POOL_MAX: '1', POOL_TIMEOUT_MS: '5000', TRUST_PROXY: '1',
      CORS_ORIGINS: 'https://one.example, https://two.example', LOG_LEVEL: 'info',
    });
  } catch (err) {
    console.error('set-up failed:', err); // uvu reports a failed hook without its error
    throw err;
  }
});

test.after(async () => {
  for (const g of started) await g.stop();
  await db?.close();
});

test('a held row lock: the request gets a 503 problem at LOCK_TIMEOUT_MS, while /health, /ready and /live answer 200 at once', async () => {
  const api = gw.client(BASE);
  dataOf(await api.post('/notes', { id: 'held', title: 'Held' }), 201);
  let release!: () => void;
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => { locked = r; });
  const holder = db.sql.begin(async (tx) => {
    await tx`select 1 from app.notes where id = 'held' for update`;
    locked();
    await new Promise<void>((r) => { release = r; });
  });
  await isLocked;
  try {
    const asked = Date.now();
    const waiting = api.patch('/notes/held', { title: 'Waiting' });
    // POOL_MAX=1: the one pooled connection now waits on the lock; health has a connection of its own.
    await eventually('the PATCH holding the pool\'s connection', async () =>
      (await metricsOf(gw)).includes('db_pool_connections_in_use{pool="primary"} 1') ? true : undefined);
    for (const path of ['/health', '/ready', '/live']) {
      const t = Date.now();
      const res = await fetch(`${gw.origin}${path}`);
      assert.is(res.status, 200, `${path} while the lock is held`);
      assert.ok(Date.now() - t < 750, `${path} answered in ${Date.now() - t} ms, without waiting for the pool`);
    }
    const reply = await waiting;
    const ms = Date.now() - asked;
    expectStatus(reply, 503);
    assert.is(reply.headers.get('content-type'), 'application/problem+json');
    assert.is(reply.headers.get('retry-after'), '1');
    assert.is(reply.body.code, 'E_UNAVAILABLE');
    assert.is(reply.body.status, 503);
    assert.match(reply.body.detail, 'LOCK_TIMEOUT_MS');
    assert.ok(ms >= LOCK_TIMEOUT_MS - 50 && ms < LOCK_TIMEOUT_MS + 2500, `answered after ${ms} ms, LOCK_TIMEOUT_MS is ${LOCK_TIMEOUT_MS}`);
  } finally {
    release();
    await holder;
  }
  assert.is(dataOf(await api.patch('/notes/held', { title: 'After' })).title, 'After', 'the lock gone, the write goes through');
  assert.match(await metricsOf(gw), `http_requests_total{method="PATCH",route="${BASE}/notes/{id}",status="503"} 1`);
});

test('X-Request-Id: the client\'s is echoed and logged with method, route template, status and duration; /metrics counts by template', async () => {
  const api = gw.client(BASE);
  const mine = await api.get('/notes/held', { headers: { 'X-Request-Id': 'ops-trace-42' } });
  expectStatus(mine, 200);
  assert.is(mine.headers.get('x-request-id'), 'ops-trace-42');
  const missing = await api.get('/notes/nope');
  expectStatus(missing, 404);
  const generated = missing.headers.get('x-request-id') ?? '';
  assert.match(generated, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'a new UUID when the client sent none');
  const line = await eventually('the access log line of ops-trace-42', () => accessLines(gw).find((l) => l.request_id === 'ops-trace-42'));
  assert.equal([line.method, line.route, line.status], ['GET', `${BASE}/notes/{id}`, 200]);
  assert.type(line.duration_ms, 'number');
  const other = await eventually('the access log line of the generated id', () => accessLines(gw).find((l) => l.request_id === generated));
  assert.equal([other.method, other.route, other.status], ['GET', `${BASE}/notes/{id}`, 404]);
  const metrics = await metricsOf(gw);
  assert.match(metrics, new RegExp(`^http_requests_total\\{method="GET",route="${BASE}/notes/\\{id\\}",status="404"\\} 1$`, 'm'));
  assert.match(metrics, new RegExp(`^http_request_duration_seconds_count\\{method="GET",route="${BASE}/notes/\\{id\\}",status="200"\\} \\d+$`, 'm'));
  assert.match(metrics, /^http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="[^"]+\/notes\/\{id\}",status="200"\} \d+$/m, 'a latency histogram');
  assert.not.match(metrics, /route="[^"]*\/notes\/(held|nope)"/, 'routes are templates, never the ids sent');
  assert.match(metrics, /^db_pool_requests_waiting\{pool="primary"\} 0$/m);
  assert.match(metrics, /^files_outbox_pending 0$/m);
});

test('CORS_ORIGINS (a comma list): a preflight from a listed origin is answered, another origin gets no grant', async () => {
  const preflight = (origin: string) => fetch(`${gw.origin}${BASE}/notes/held`, { method: 'OPTIONS', headers: {
    origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,content-type,if-match,idempotency-key' } });
  const pre = await preflight('https://two.example');
  assert.is(pre.status, 204);
  assert.is(pre.headers.get('access-control-allow-origin'), 'https://two.example');
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', 'PATCH');
  const allowed = (pre.headers.get('access-control-allow-headers') ?? '').toLowerCase();
  for (const h of ['authorization', 'content-type', 'if-match', 'idempotency-key']) assert.match(allowed, h);
  const stranger = await preflight('https://evil.example');
  assert.is(stranger.headers.get('access-control-allow-origin'), null);
  const plain = await fetch(`${gw.origin}${BASE}/notes/held`, { headers: { origin: 'https://one.example' } });
  assert.is(plain.headers.get('access-control-allow-origin'), 'https://one.example');
  const exposed = (plain.headers.get('access-control-expose-headers') ?? '').toLowerCase();
  for (const h of ['etag', 'location', 'retry-after', 'x-request-id', 'idempotent-replayed']) assert.match(exposed, h);
});

/** The Vault list as the suite's caller, with this X-Forwarded-For (none: undefined). */
async function vaults(g: ServedGateway, forwarded?: string): Promise<Reply> {
  return g.client(BASE).get('/vaults', forwarded === undefined ? {} : { headers: { 'X-Forwarded-For': forwarded } });
}

test('TRUST_PROXY=1: the caller is the address the one trusted proxy saw; a client-written X-Forwarded-For entry is not believed', async () => {
  assert.is((await vaults(gw)).status, 403, 'no header: the socket (127.0.0.1)');
  assert.is((await vaults(gw, '203.0.113.7')).status, 200, 'the proxy (the socket) says it saw 203.0.113.7');
  assert.is((await vaults(gw, '203.0.113.7, 10.9.9.9')).status, 403, 'the client wrote 203.0.113.7; the proxy saw 10.9.9.9');
  assert.is((await vaults(gw, '10.9.9.9, 203.0.113.7')).status, 200);
});

test('TRUST_PROXY as a list of addresses and CIDRs: every hop within them is believed, the first outside is the caller', async () => {
  const listed = await serve({ TRUST_PROXY: 'loopback, 10.0.0.0/8', LOG_LEVEL: 'silent' });
  assert.is((await vaults(listed, '203.0.113.7, 10.9.9.9')).status, 200, 'both proxies trusted: the client is 203.0.113.7');
  assert.is((await vaults(listed, '203.0.113.7, 198.51.100.9')).status, 403, '198.51.100.9 is no trusted proxy: it is the caller');
  assert.is((await vaults(listed)).status, 403, 'no header: the socket');
});

test.run();
