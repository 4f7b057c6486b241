// Operations around every request: X-Request-Id (kept when the client sends a sane one), one JSON access
// log line naming the route template, CORS preflights for configured origins, brotli or gzip of large JSON.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { createApp } from '../../server/app.ts';
import { Metrics } from '../../server/http/metrics.ts';
import { OBSERVED_AT_ONCE, OBSERVED_MS, observedTime } from '../../server/http/observe.ts';
import { singlePool } from '../../server/pg/pools.ts';
import { DEFAULT_LIMITS } from '../../server/request/limits.ts';
import { BASE, SECRET, startApi, token, type Api } from './setup.ts';

let api: Api;
const lines: any[] = [];
let app: ReturnType<typeof createApp>;
const metrics = new Metrics(false);
test.before(async () => {
  api = await startApi();
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  const pools = singlePool(api.db.sql, { ...DEFAULT_LIMITS, poolMax: 1 });
  metrics.watchPools([pools.primary]);
  metrics.watchOutbox(api.db.sql);
  app = createApp({ sql: api.db.sql, pools, manifest: api.manifest, jwtSecret: SECRET, logger: pino({ timestamp: observedTime }, sink), metrics, corsOrigins: ['https://app.example.com'] });
});

/** The access log's line of a request id, once its batch is written (OBSERVED_MS after the request at most). */
async function lineOf(id: string): Promise<any> {
  for (const until = Date.now() + 2000; Date.now() < until; await new Promise((r) => setTimeout(r, 10))) {
    const line = lines.find((l) => l.request_id === id);
    if (line) return line;
  }
  return undefined;
}
test.after(async () => api?.close());

test('every response carries X-Request-Id, the access log names it with the route template, status and duration', async () => {
  const bearer = await token({ sub: 'u1', roles: ['admin'] });
  const mine = await app.request(`${BASE}/posts/nope`, { headers: { authorization: `Bearer ${bearer}`, 'x-request-id': 'trace-42' } });
  assert.is(mine.status, 404);
  assert.is(mine.headers.get('x-request-id'), 'trace-42');
  const fresh = await app.request(`${BASE}/posts`, { headers: { authorization: `Bearer ${bearer}`, 'x-request-id': 'bad id with spaces' } });
  const id = fresh.headers.get('x-request-id')!;
  assert.match(id, /^[0-9a-f-]{36}$/, 'an unusable client id is replaced');
  const logged = await lineOf('trace-42');
  assert.ok(logged, JSON.stringify(lines));
  assert.equal([logged.method, logged.route, logged.status], ['GET', `${BASE}/posts/{id}`, 404]);
  assert.is(typeof logged.duration_ms, 'number');
  assert.is((await lineOf(id))?.route, `${BASE}/posts`);
});

test('access lines name the path as sent (without its query), the verified caller\'s sub and the client\'s IP; logCaller false omits sub and ip', async () => {
  const bearer = await token({ sub: 'u-path', roles: ['admin'] });
  // A socket's peer, as the node server gives it; in-process requests have none (then no ip).
  const env = { incoming: { socket: { remoteAddress: '::ffff:192.0.2.7', remotePort: 1, remoteFamily: 'IPv6' } } };
  const send = (target: ReturnType<typeof createApp>, id: string, auth = true) => target.request(`${BASE}/projects/p-77?secret=s3cr3t`,
    { headers: { 'x-request-id': id, ...(auth ? { authorization: `Bearer ${bearer}` } : {}) } }, env);
  await send(app, 'caller-1');
  await send(app, 'caller-2', false);
  const named = await lineOf('caller-1');
  assert.equal([named?.path, named?.sub, named?.ip], [`${BASE}/projects/p-77`, 'u-path', '192.0.2.7'], JSON.stringify(named));
  const anonymous = await lineOf('caller-2');
  assert.equal([anonymous?.path, anonymous?.ip, 'sub' in anonymous], [`${BASE}/projects/p-77`, '192.0.2.7', false], 'an anonymous caller has no sub');
  const quiet = createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: SECRET, logger: pino({ timestamp: observedTime }, new Writable({
    write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } })), logCaller: false });
  await send(quiet, 'caller-3');
  const line = await lineOf('caller-3');
  assert.is(line?.path, `${BASE}/projects/p-77`);
  assert.equal(['sub' in line, 'ip' in line], [false, false], JSON.stringify(line));
});

test(`the access log is written in batches after the responses (${OBSERVED_MS} ms, or ${OBSERVED_AT_ONCE} requests), each line with its request's time`, async () => {
  const bearer = await token({ sub: 'u1', roles: ['admin'] });
  const headers = (n: number) => ({ authorization: `Bearer ${bearer}`, 'x-request-id': `batch-${n}` });
  await app.request(`${BASE}/posts/nope`, { headers: headers(0) });
  const answered = Date.now();
  assert.not.ok(lines.find((l) => l.request_id === 'batch-0'), 'not written while requests are being answered');
  const line = await lineOf('batch-0');
  assert.ok(line);
  assert.ok(Date.now() - answered >= OBSERVED_MS - 20, 'written once its batch is due');
  assert.ok(line.time <= answered, `the line's time is its request's (${line.time}), not its batch's`);
  // A full batch is written at once, without waiting for the timer.
  // (All at once, on a path no route serves: answered without the database, so the batch fills well within
  // OBSERVED_MS even on a slow machine, and the timer cannot have written part of it.)
  await Promise.all(Array.from({ length: OBSERVED_AT_ONCE }, (_, i) => app.request(`${BASE}/no-such-collection`, { headers: headers(i + 1) })));
  assert.ok(lines.find((l) => l.request_id === `batch-${OBSERVED_AT_ONCE}`), 'the batch of requests is written when it is full');
});

test('GET /metrics: requests by method, route template and status, their latency', async () => {
  const bearer = await token({ sub: 'u1', roles: ['admin'] });
  for (let i = 0; i < 3; i++) await app.request(`${BASE}/comments/${900 + i}`, { headers: { authorization: `Bearer ${bearer}` } });
  const text = await (await metrics.routes().request('/metrics')).text();
  assert.match(text, `http_requests_total{method="GET",route="${BASE}/comments/{id}",status="404"} 3`);
  assert.match(text, `http_request_duration_seconds_count{method="GET",route="${BASE}/comments/{id}",status="404"} 3`);
});

test('GET /metrics with METRICS_TOKEN: 401 problem without the bearer token or with another, 200 with it', async () => {
  const guarded = metrics.routes({ token: 'scrape-secret', docsUrl: 'https://docs.example.com' });
  for (const authorization of [undefined, 'Bearer wrong', 'Basic c2NyYXBlLXNlY3JldA==']) {
    const r = await guarded.request('/metrics', { headers: authorization ? { authorization } : {} });
    assert.is(r.status, 401, String(authorization));
    assert.is(r.headers.get('content-type'), 'application/problem+json');
    assert.is(r.headers.get('www-authenticate'), 'Bearer');
  }
  const ok = await guarded.request('/metrics', { headers: { authorization: 'Bearer scrape-secret' } });
  assert.is(ok.status, 200);
  assert.match(await ok.text(), 'http_requests_total');
});

test('GET /metrics: the pool\'s connection in use and a request waiting for it, and the file outbox\'s depth', async () => {
  const headers = { authorization: `Bearer ${await token({ sub: 'u1', roles: ['admin'] })}`, 'content-type': 'application/json' };
  const gauges = async () => (await (await metrics.routes().request('/metrics')).text()).split('\n').filter((l) => /^(db_pool|files_outbox)/.test(l));
  const made = await app.request(`${BASE}/projects`, { method: 'POST', headers, body: '{"name":"Gauges"}' });
  const id = (await made.json()).data.id as string;
  assert.equal(await gauges(), ['db_pool_connections_in_use{pool="primary"} 0', 'db_pool_requests_waiting{pool="primary"} 0', 'db_pool_connections_max{pool="primary"} 1', 'files_outbox_pending 0']);
  let release!: () => void;
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => { locked = r; });
  const holder = api.db.sql.begin(async (tx) => {
    await tx`select 1 from app.projects where id = ${id} for update`;
    await tx`insert into lib.file_outbox (location) values ('uploads/gauge')`;
    locked();
    await new Promise<void>((r) => { release = r; });
  });
  await isLocked;
  const until = async (line: string) => {
    for (let i = 0; i < 100 && !(await gauges()).includes(line); i++) await new Promise((r) => setTimeout(r, 20));
  };
  let writer: ReturnType<typeof app.request> | undefined, reader: ReturnType<typeof app.request> | undefined;
  try {
    writer = app.request(`${BASE}/projects/${id}`, { method: 'PATCH', headers, body: '{"name":"Waits"}' });
    await until('db_pool_connections_in_use{pool="primary"} 1');
    reader = app.request(`${BASE}/projects/${id}`, { headers });
    await until('db_pool_requests_waiting{pool="primary"} 1');
    assert.equal((await gauges()).slice(0, 2), ['db_pool_connections_in_use{pool="primary"} 1', 'db_pool_requests_waiting{pool="primary"} 1']);
  } finally {
    release();
    await holder;
  }
  assert.equal([(await writer!).status, (await reader!).status], [200, 200]);
  assert.equal(await gauges(), ['db_pool_connections_in_use{pool="primary"} 0', 'db_pool_requests_waiting{pool="primary"} 0', 'db_pool_connections_max{pool="primary"} 1', 'files_outbox_pending 1']);
  await api.db.sql`delete from lib.file_outbox where location = 'uploads/gauge'`;
});

test('CORS: a preflight from a configured origin is answered; another origin gets no grant', async () => {
  const pre = await app.request(`${BASE}/posts`, { method: 'OPTIONS', headers: {
    origin: 'https://app.example.com', 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization,if-match' } });
  assert.is(pre.status, 204);
  assert.is(pre.headers.get('access-control-allow-origin'), 'https://app.example.com');
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', 'PATCH');
  assert.match((pre.headers.get('access-control-allow-headers') ?? '').toLowerCase(), 'if-match');
  const other = await app.request(`${BASE}/posts`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
  assert.not.ok(other.headers.get('access-control-allow-origin'));
  const plain = await app.request(`${BASE}/openapi.json`, { headers: { origin: 'https://app.example.com' } });
  assert.match(plain.headers.get('access-control-expose-headers') ?? '', 'ETag');
});

test('large JSON is gzipped when the client accepts it', async () => {
  const zipped = await app.request(`${BASE}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
  assert.is(zipped.headers.get('content-encoding'), 'gzip');
  const plain = await app.request(`${BASE}/openapi.json`);
  assert.is(plain.headers.get('content-encoding'), null);
  assert.ok((await plain.text()).startsWith('{'));
  const bearer = await token({ sub: 'u1', roles: ['admin', 'editor'] });
  const created = await app.request(`${BASE}/tags`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
    body: JSON.stringify({ slug: 'gz', label: 'x'.repeat(200) }) });
  assert.is(created.status, 201);
  const read = await app.request(`${BASE}/tags/gz`, { headers: { authorization: `Bearer ${bearer}`, 'accept-encoding': 'gzip' } });
  assert.match(read.headers.get('etag') ?? '', /^"[^"]+"$/, 'the ETag stays strong');
  assert.is(read.headers.get('content-encoding'), null, 'an ETagged representation is sent as it is');
  assert.is(read.headers.get('cache-control'), null, 'and carries no header of ours');
  assert.not.ok(varies(read).includes('accept-encoding'), 'nor Vary: Accept-Encoding: it is never compressed');
  assert.ok(read.headers.get('x-request-id'));
});

test('a problem document under 1 KB goes out as it is, with its length, to a client that accepts gzip', async () => {
  for (const encoding of ['gzip', 'gzip;q=1e400, br;q=NaN']) {
    const missing = await app.request(`${BASE}/no-such-collection`, { headers: { 'accept-encoding': encoding } });
    assert.is(missing.status, 404);
    assert.is(missing.headers.get('content-encoding'), null, encoding);
    const text = await missing.text();
    assert.is(missing.headers.get('content-length'), String(Buffer.byteLength(text)));
    assert.is(JSON.parse(text).status, 404);
  }
});

/** The Vary header's names, lower case (CORS adds Origin to every response of this app). */
const varies = (r: Response) => (r.headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);

test('an API list over 1 KB says Vary: Accept-Encoding to every client, and is gzipped for one that accepts it', async () => {
  const headers = { authorization: `Bearer ${await token({ sub: 'u1', roles: ['admin', 'editor'] })}`, 'content-type': 'application/json' };
  for (let i = 0; i < 12; i++) await app.request(`${BASE}/tags`, { method: 'POST', headers, body: JSON.stringify({ slug: `vary${i}`, label: 'v'.repeat(100) }) });
  const plain = await app.request(`${BASE}/tags?per_page=100`, { headers: { ...headers, 'accept-encoding': 'identity' } });
  assert.is(plain.status, 200);
  assert.is(plain.headers.get('content-encoding'), null);
  assert.equal(varies(plain).filter((v) => v === 'accept-encoding'), ['accept-encoding']);
  assert.match(plain.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const body = await plain.text();
  assert.ok(Buffer.byteLength(body) > 1024, `${Buffer.byteLength(body)} bytes`);
  const zipped = await app.request(`${BASE}/tags?per_page=100`, { headers: { ...headers, 'accept-encoding': 'deflate;q=1, gzip;q=0.5', 'x-request-id': 'zip-1' } });
  assert.is(zipped.headers.get('content-encoding'), 'gzip');
  assert.equal(varies(zipped).filter((v) => v === 'accept-encoding'), ['accept-encoding'], 'said once');
  assert.is(zipped.headers.get('x-request-id'), 'zip-1');
  assert.equal(JSON.parse(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString('utf8')), JSON.parse(body));
  const refused = await app.request(`${BASE}/tags?per_page=100`, { headers: { ...headers, 'accept-encoding': 'gzip;q=0' } });
  assert.is(refused.headers.get('content-encoding'), null, 'gzip;q=0 refuses gzip');
  const small = await app.request(`${BASE}/tags?per_page=1`, { headers });
  assert.not.ok(varies(small).includes('accept-encoding'), 'a small list is never compressed');
});

test('brotli for a client that weighs br highest (br on a tie with gzip), with its Content-Length; gzip when gzip weighs more', async () => {
  const headers = { authorization: `Bearer ${await token({ sub: 'u1', roles: ['admin', 'editor'] })}`, 'content-type': 'application/json' };
  for (let i = 0; i < 12; i++) await app.request(`${BASE}/tags`, { method: 'POST', headers, body: JSON.stringify({ slug: `brotli${i}`, label: 'b'.repeat(100) }) });
  const list = (encoding: string, more: Record<string, string> = {}) =>
    app.request(`${BASE}/tags?per_page=100`, { headers: { ...headers, 'accept-encoding': encoding, ...more } });
  const plain = await list('identity');
  const body = await plain.text();
  assert.ok(Buffer.byteLength(body) > 1024, `${Buffer.byteLength(body)} bytes`);
  for (const encoding of ['br, gzip', 'gzip;q=0.5, br']) {
    const res = await list(encoding, { 'x-request-id': 'br-1' });
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-encoding'), 'br', encoding);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.is(res.headers.get('content-length'), String(bytes.byteLength), 'the length of the brotli bytes');
    assert.ok(bytes.byteLength < Buffer.byteLength(body));
    assert.is(brotliDecompressSync(bytes).toString('utf8'), body, 'decompresses to the identity body exactly');
    assert.equal(varies(res).filter((v) => v === 'accept-encoding'), ['accept-encoding'], 'said once');
    assert.is(res.headers.get('x-request-id'), 'br-1');
  }
  const zipped = await list('gzip, br;q=0.1');
  assert.is(zipped.headers.get('content-encoding'), 'gzip');
  assert.is(gunzipSync(Buffer.from(await zipped.arrayBuffer())).toString('utf8'), body);
  const refused = await list('br;q=0');
  assert.is(refused.headers.get('content-encoding'), null, 'br;q=0 refuses br');
  assert.is(await refused.text(), body);
  assert.equal(varies(refused).filter((v) => v === 'accept-encoding'), ['accept-encoding']);
  const head = await app.request(`${BASE}/tags?per_page=100`, { method: 'HEAD', headers: { ...headers, 'accept-encoding': 'br' } });
  assert.is(head.headers.get('content-encoding'), null, 'a HEAD is never compressed');
  const docs = await app.request(`${BASE}/openapi.json`, { headers: { 'accept-encoding': 'br' } });
  assert.is(docs.headers.get('content-encoding'), 'br', 'a body without Content-Length too');
  const text = await (await app.request(`${BASE}/openapi.json`)).text();
  assert.is(brotliDecompressSync(Buffer.from(await docs.arrayBuffer())).toString('utf8'), text);
});

test('an ETagged read over 1 KB is never sent in br', async () => {
  const headers = { authorization: `Bearer ${await token({ sub: 'u1', roles: ['admin'] })}`, 'content-type': 'application/json' };
  const project = (await (await app.request(`${BASE}/projects`, { method: 'POST', headers, body: '{"name":"Brotli"}' })).json()).data.id as string;
  const created = await app.request(`${BASE}/posts`, { method: 'POST', headers, body: JSON.stringify({ id: 'br-etag', project_id: project, title: 'Long', body: 'x'.repeat(2000) }) });
  assert.is(created.status, 201);
  for (const encoding of ['br', 'br, gzip']) {
    const read = await app.request(`${BASE}/posts/br-etag`, { headers: { ...headers, 'accept-encoding': encoding } });
    assert.is(read.status, 200);
    assert.match(read.headers.get('etag') ?? '', /^"[^"]+"$/, 'the ETag stays strong');
    assert.is(read.headers.get('content-encoding'), null, encoding);
    assert.ok(Number(read.headers.get('content-length')) > 1024, 'over the threshold: only the ETag keeps it as it is');
    assert.is(read.headers.get('cache-control'), null, 'and carries no header of ours');
    assert.not.ok(varies(read).includes('accept-encoding'));
    assert.is(JSON.parse(await read.text()).data.body, 'x'.repeat(2000));
  }
});

test.run();
