// Hostile input held to limits (issue: every request answered, no author can stall the API): duplicate
// JSON members, oversized JSON objects, filter counts, search trees, oversized headers, dot segments in
// ids, claims PostgreSQL cannot hold, and concurrent links of one pair. Each answers a problem document.
import { test } from 'uvu';
import { gzipSync } from 'node:zlib';
import { connect } from 'node:net';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus, type Reply } from './support/http.ts';
import { problemIssues } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { rawHttp } from './support/raw.ts';

const LIMITS = { maxJsonMembers: 50, maxFilters: 5, maxFilterNodes: 20, maxHeaderBytes: 8 * 1024 };
let api: RunningApi;
let project: string;
test.before(async () => {
  api = await startApi('examples/publishing.model.json', { limits: LIMITS });
  project = dataOf(await api.post('/projects', { name: 'Limits' }), 201).id;
  dataOf(await api.post('/posts', { id: 'lp1', project_id: project, title: 'Limits', meta: { a: 1 } }), 201);
  dataOf(await api.post('/tags', { slug: 'race', label: 'Race' }), 201);
});
test.after(async () => api?.close());

function problem(reply: Reply, status: number, detail: RegExp): void {
  expectStatus(reply, status);
  assert.equal(problemIssues(reply, api.docsUrl), [], reply.text);
  assert.match(reply.body.detail, detail);
}

const raw = (request: string) => rawHttp(api.origin, request);

test('a member named twice in a JSON body is 400 naming it, with or without a token, nested too', async () => {
  for (const token of [undefined, null]) {
    const top = await api.call('POST', '/tags/search', { raw: '{"where":{"slug":"a"},"where":{"slug":"b"}}', type: 'application/json', token });
    problem(top, 400, /"where" twice/);
  }
  const nested = await api.call('PATCH', '/posts/lp1', { raw: '{"meta":{"address":{"city":"x","city":5}}}', type: 'application/json' });
  problem(nested, 400, /"city" twice/);
  // Colons, quotes and brackets inside strings are no members: the count that spares a second parse skips them.
  const quoted = await api.call('PATCH', '/posts/lp1', { raw: '{"title":"a:\\\":{","meta":{"k\\\":":"v:[","k\\\":":1}}', type: 'application/json' });
  problem(quoted, 400, /twice/);
  assert.equal(api.serverErrors, []);
});

test('a member named twice inside a JSON property is 400 naming it, whatever its two values (numbers, equal ones), on PATCH, merge patch and POST', async () => {
  const json = 'application/json';
  problem(await api.call('PATCH', '/posts/lp1', { raw: '{"meta":{"priority":1,"priority":2}}', type: json }), 400, /"priority" twice/);
  problem(await api.call('PATCH', '/posts/lp1', { raw: '{"meta":{"labels":["a"],"labels":["a"]}}', type: 'application/merge-patch+json' }), 400, /"labels" twice/);
  problem(await api.call('PATCH', '/posts/lp1', { raw: '{"meta":{"address":{"zip":"1","\\u007aip":"1"}}}', type: json }), 400, /"zip" twice/);
  problem(await api.call('POST', '/posts', { raw: `{"id":"lp-dup","project_id":"${project}","title":"D","meta":{"priority":1,"priority":2}}`, type: json }), 400, /"priority" twice/);
  problem(await api.call('POST', '/posts', { raw: `{"id":"lp-dup","project_id":"${project}","title":"D","title":"D"}`, type: json }), 400, /"title" twice/);
  assert.is((await api.get('/posts/lp-dup')).status, 404, 'nothing was written');
  assert.equal(dataOf(await api.get('/posts/lp1'), 200).meta, { a: 1 }, 'nothing was changed');
  assert.equal(api.serverErrors, []);
});

test('a 413 sent before the body was all received says Connection: close; an answered request keeps its connection', async () => {
  const token = await api.token();
  const head = (length: number) => `POST ${api.basePath}/posts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n`
    + `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  const early = await raw(`${head(50 * 1024 * 1024)}{"title":"${'x'.repeat(100_000)}`);
  assert.is(early.status, 413);
  assert.match(early.head, /\r\nConnection: close(\r\n|$)/i, early.head);
  const body = JSON.stringify({ id: 'lp-keep', project_id: project, title: 'Kept' });
  const whole = await raw(`${head(Buffer.byteLength(body))}${body}GET ${api.basePath}/posts/lp-keep HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  assert.match(whole.head, /\r\nConnection: keep-alive(\r\n|$)/i, 'the first answer keeps the connection');
});

test('a JSON body with an object or array past MAX_JSON_MEMBERS is 413 naming the limit, before any write', async () => {
  const meta = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
  problem(await api.patch('/posts/lp1', { meta }), 413, /51 members; at most 50 .*MAX_JSON_MEMBERS/);
  problem(await api.patch('/posts/lp1', { meta: { list: Array.from({ length: 60 }, (_, i) => i) } }), 413, /60 elements/);
  const ok = await api.patch('/posts/lp1', { meta: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) });
  expectStatus(ok, 200);
  assert.is(Object.keys(ok.body.data.meta).length, 51, 'at the limit: merged (50 new keys beside "a")');
});

test('more filters than MAX_FILTERS in a query string, or a search tree past MAX_FILTER_NODES, is 400', async () => {
  expectStatus(await api.get('/posts?title[ne]=a&title[like]=b&body[ne]=c&status[ne]=d&rating[gt]=1'), 200);
  problem(await api.get('/posts?title[ne]=a&title[like]=b&body[ne]=c&status[ne]=d&rating[gt]=1&word_count[gt]=1'), 400, /more than 5 filters \(MAX_FILTERS\)/);
  const or = Array.from({ length: 40 }, (_, i) => ({ title: `t${i}` }));
  problem(await api.post('/posts/search', { where: { or } }), 400, /more than 20 conditions and groups \(MAX_FILTER_NODES\)/);
  expectStatus(await api.post('/posts/search', { where: { or: or.slice(0, 8) } }), 200, 'the where node and 8 branches of one condition each: 17 of 20');
});

test('headers past MAX_HEADER_BYTES (a long token, a long URL) get a 431 problem document', async () => {
  const token = 'x'.repeat(100 * 1024);
  const long = await raw(`GET ${api.basePath}/posts HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  assert.is(long.status, 431);
  assert.is(long.type, 'application/problem+json');
  assert.equal([long.body.status, long.body.code], [431, 'E_HEADERS_TOO_LARGE']);
  assert.match(long.body.detail, /MAX_HEADER_BYTES/);
  assert.is(long.body.instance, `${api.basePath}/posts`, 'instance: the request path (spec 2.10), its request line having arrived whole');
  const url = await raw(`GET ${api.basePath}/posts?include=${'id,'.repeat(4000)}id HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  assert.equal([url.status, url.body?.status], [431, 431]);
  assert.ok(!('instance' in url.body) || url.body.instance === `${api.basePath}/posts`, `instance is the path or absent, never "": ${JSON.stringify(url.body)}`);
});

test('a Host header or request target no URL can be built from is a 400 problem document', async () => {
  const reply = await raw(`GET ${api.basePath}/tags HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n`);
  assert.is(reply.status, 400);
  assert.is(reply.type, 'application/problem+json');
  assert.equal([reply.body.status, reply.body.code], [400, 'E_BAD_REQUEST']);
  assert.not.ok('instance' in reply.body, `no path could be read, so no instance (never ""): ${JSON.stringify(reply.body)}`);
  // HTTP/1.1 requires Host (RFC 9112 3.2): without one, the same problem document, not Node's own empty 400.
  const hostless = await raw(`GET ${api.basePath}/tags HTTP/1.1\r\nConnection: close\r\n\r\n`);
  assert.equal([hostless.status, hostless.type], [400, 'application/problem+json'], hostless.head);
  assert.equal([hostless.body?.status, hostless.body?.code], [400, 'E_BAD_REQUEST']);
});

test('Expect: 100-continue with a Content-Length past every limit is 413 at once (no 100 Continue); within it, 100 then the answer', async () => {
  const token = await api.token();
  const ask = (length: number) => `POST ${api.basePath}/tags HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n`
    + `Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${length}\r\n\r\n`;
  const refused = await raw(ask(200 * 1024 * 1024));
  assert.is(refused.status, 413, refused.head);
  assert.equal([refused.body.code, refused.body.instance], ['E_PAYLOAD_TOO_LARGE', `${api.basePath}/tags`]);
  assert.match(refused.head, /\r\nConnection: close(\r\n|$)/i);
  const socket = connect(Number(new URL(api.origin).port), '127.0.0.1');
  let seen = '';
  socket.on('data', (d) => { seen += d.toString('utf8'); });
  const body = JSON.stringify({ slug: 'continued', label: 'Continued' });
  socket.write(ask(Buffer.byteLength(body)));
  while (!seen.includes('\r\n\r\n')) await new Promise((r) => setTimeout(r, 10));
  assert.match(seen, /^HTTP\/1\.1 100 Continue\r\n/);
  socket.write(body);
  while (!/HTTP\/1\.1 201/.test(seen)) await new Promise((r) => setTimeout(r, 10));
  socket.destroy();
});

test('an Expect other than 100-continue is a 417 problem document, and the connection closes', async () => {
  const reply = await raw(`POST ${api.basePath}/tags/search?x=1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}`);
  assert.equal([reply.status, reply.type], [417, 'application/problem+json'], reply.head);
  assert.equal([reply.body.code, reply.body.instance], ['E_EXPECTATION_FAILED', `${api.basePath}/tags/search`]);
  assert.match(reply.body.detail, /"foo" cannot be met/);
  assert.match(reply.head, /\r\nConnection: close(\r\n|$)/i);
});

test('CONNECT (a proxy\'s method) is a 405 problem document, not a silently closed socket', async () => {
  const reply = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
  assert.is(reply.status, 405);
  assert.is(reply.type, 'application/problem+json');
  assert.equal([reply.body.status, reply.body.code], [405, 'E_METHOD_NOT_ALLOWED']);
  assert.match(reply.head, /\r\nAllow: ?(\r\n|$)/i);
});

test('a compressed request body (Content-Encoding) is 415 saying so, with Accept-Encoding: identity; nothing is written', async () => {
  const body = gzipSync(JSON.stringify({ slug: 'gz', label: 'Gzipped' }));
  const reply = await api.call('POST', '/tags', { raw: body, type: 'application/json', headers: { 'Content-Encoding': 'gzip' } });
  problem(reply, 415, /without a Content-Encoding/);
  assert.is(reply.headers.get('accept-encoding'), 'identity');
  expectStatus(await api.get('/tags/gz'), 404);
  const plain = await api.call('POST', '/tags', { raw: JSON.stringify({ slug: 'gz', label: 'Plain' }), type: 'application/json', headers: { 'Content-Encoding': 'identity' } });
  expectStatus(plain, 201);
});

test('%2e%2e and .. in an id are ids: matched as sent, never resolved (404), not another route', async () => {
  for (const seg of ['%2e%2e', '%2E%2E', '..', '.']) {
    const reply = await raw(`GET ${api.basePath}/posts/${seg}/tags HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    assert.is(reply.status, 404, `${seg}: ${JSON.stringify(reply.body)}`);
    assert.is(reply.type, 'application/problem+json');
  }
});

test('a signed token whose sub, org or enterprise is longer than the 255 characters rows store is 401 invalid_token, naming it', async () => {
  for (const [claims, name] of [[{ sub: 'u'.repeat(256) }, 'sub'], [{ sub: 'u1', org: 'o'.repeat(300) }, 'org'], [{ sub: 'u1', enterprise: 'e'.repeat(256) }, 'enterprise']] as const) {
    const reply = await api.post('/projects', { name: 'long claim' }, { token: await api.token(claims) });
    expectStatus(reply, 401);
    assert.match(reply.headers.get('www-authenticate') ?? '', /invalid_token/);
    assert.match(reply.body.detail, `"${name}" claim is longer than 255 characters`);
  }
  // 255 characters, astral ones counted as PostgreSQL counts them (one each): stored.
  expectStatus(await api.post('/projects', { name: 'just fits' }, { token: await api.token({ sub: '\u{1F600}'.repeat(255), roles: ['admin'] }) }), 201);
});

test('a signed token whose claims hold a NUL character or a lone surrogate is 401 invalid_token', async () => {
  for (const claims of [{ sub: 'a\u0000b' }, { sub: 'u1', roles: ['x\u0000'] }, { sub: 'u1', extra: { nested: '\ud800' } }]) {
    const reply = await api.get('/posts', { token: await api.token(claims) });
    expectStatus(reply, 401);
    assert.match(reply.headers.get('www-authenticate') ?? '', /invalid_token/);
  }
});

test('a filter value past a String column\'s 255 characters is compared whole, never cut to the width (spec 8)', async () => {
  const [id, tag] = ['k'.repeat(255), 'e'.repeat(255)];
  dataOf(await api.post('/posts', { id, project_id: project, title: 'Wide', tags_cache: [tag] }), 201);
  const ids = async (query: string) => {
    const reply = await api.get(`/posts?${query}`);
    expectStatus(reply, 200, query);
    return (reply.body.data as Array<{ id: string }>).map((r) => r.id).sort();
  };
  const longer = encodeURIComponent(`${id}k`);
  assert.equal(await ids(`id=${longer}`), [], 'eq');
  assert.equal(await ids(`id[in]=${longer},none`), [], 'in');
  assert.ok((await ids(`id[ne]=${longer}`)).includes(id), 'ne');
  assert.ok((await ids(`id[nin]=${longer}`)).includes(id), 'nin');
  assert.equal(await ids(`id[lt]=${longer}`), [id], 'lt: the 255 characters sort before the 256');
  assert.equal(await ids(`tags_cache[contains]=${encodeURIComponent(`${tag}e`)}`), [], 'contains');
  assert.equal(await ids(`id=${encodeURIComponent(id)}`), [id], 'the value itself still matches');
  const search = await api.post('/posts/search', { where: { id: { eq: `${id}k` } } });
  assert.equal(dataOf(search), [], 'search');
  dataOf(await api.del(`/posts/${id}?permanent=true`), 204);
});

test('40 concurrent links of one pair: exactly one 201, the others 200, one row', async () => {
  const replies = await Promise.all(Array.from({ length: 40 }, () => api.put('/posts/lp1/tags/race')));
  const statuses = replies.map((r) => r.status).sort();
  assert.is(statuses.filter((s) => s === 201).length, 1, statuses.join(','));
  assert.is(statuses.filter((s) => s === 200).length, 39, statuses.join(','));
  const [row] = await api.db.sql`select count(*)::int as n from app.posts_tags where post_id = 'lp1' and tag_slug = 'race'`;
  assert.is(row!.n, 1);
});

test.run();
