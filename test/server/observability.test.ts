// Operations around every request: X-Request-Id (kept when the client sends a sane one), one JSON access
// log line naming the route template, CORS preflights for configured origins, gzip of large JSON.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createApp } from '../../server/app.ts';
import { Metrics } from '../../server/http/metrics.ts';
import { BASE, SECRET, startApi, token, type Api } from './setup.ts';

let api: Api;
const lines: any[] = [];
let app: ReturnType<typeof createApp>;
const metrics = new Metrics(false);
test.before(async () => {
  api = await startApi();
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
  app = createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: SECRET, logger: pino(sink), metrics, corsOrigins: ['https://app.example.com'] });
});
test.after(async () => api?.close());

test('every response carries X-Request-Id, the access log names it with the route template, status and duration', async () => {
  const bearer = await token({ sub: 'u1', roles: ['admin'] });
  const mine = await app.request(`${BASE}/posts/nope`, { headers: { authorization: `Bearer ${bearer}`, 'x-request-id': 'trace-42' } });
  assert.is(mine.status, 404);
  assert.is(mine.headers.get('x-request-id'), 'trace-42');
  const fresh = await app.request(`${BASE}/posts`, { headers: { authorization: `Bearer ${bearer}`, 'x-request-id': 'bad id with spaces' } });
  const id = fresh.headers.get('x-request-id')!;
  assert.match(id, /^[0-9a-f-]{36}$/, 'an unusable client id is replaced');
  const logged = lines.find((l) => l.request_id === 'trace-42');
  assert.ok(logged, JSON.stringify(lines));
  assert.equal([logged.method, logged.route, logged.status], ['GET', `${BASE}/posts/{id}`, 404]);
  assert.is(typeof logged.duration_ms, 'number');
  assert.is(lines.find((l) => l.request_id === id)?.route, `${BASE}/posts`);
});

test('GET /metrics: requests by method, route template and status, their latency, database calls in flight', async () => {
  const bearer = await token({ sub: 'u1', roles: ['admin'] });
  for (let i = 0; i < 3; i++) await app.request(`${BASE}/comments/${900 + i}`, { headers: { authorization: `Bearer ${bearer}` } });
  const text = await (await metrics.routes().request('/metrics')).text();
  assert.match(text, `http_requests_total{method="GET",route="${BASE}/comments/{id}",status="404"} 3`);
  assert.match(text, `http_request_duration_seconds_count{method="GET",route="${BASE}/comments/{id}",status="404"} 3`);
  assert.match(text, 'db_calls_in_flight 0');
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
});

test.run();
