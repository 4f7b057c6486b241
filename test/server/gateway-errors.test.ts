// The gateway's own refusals through app.request() on the publishing example: routing 404/405, body
// 415/413/400/422, tokens 401, query strings 400 (never 500), each as an application/problem+json.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Hono } from 'hono';
import { createApp } from '../../server/app.ts';
import { callerIp, compileTrust } from '../../server/request/caller.ts';
import { BASE, SECRET, call, startApi, token, type Api } from './setup.ts';

let api: Api;
let admin: string;
/** Tag create overrides the API's admin scenario: only editors create tags. */
let editor: string;
test.before(async () => {
  api = await startApi();
  admin = await token({ sub: 'u1', roles: ['admin'], email: 'a@example.com' });
  editor = await token({ sub: 'u2', roles: ['editor'], email: 'e@example.com' });
});
test.after(async () => api?.close());

function isProblem(r: { status: number; headers: Headers; json: any }, status: number, code: string) {
  assert.is(r.status, status, JSON.stringify(r.json));
  assert.is(r.headers.get('content-type'), 'application/problem+json');
  assert.is(r.json.status, status);
  assert.is(r.json.code, code);
  assert.ok(String(r.json.type).startsWith('https://docs.example.com/errors/'), r.json.type);
  assert.type(r.json.title, 'string');
  assert.type(r.json.detail, 'string');
}

test('unknown routes are 404 E_NOT_FOUND with the path as instance', async () => {
  for (const path of ['/nope', '/posts/p1/nope', '/posts/', '/api/other/v1/posts', '/', '/api/publishing/v2/posts']) {
    const r = await call(api.app, 'GET', path);
    isProblem(r, 404, 'E_NOT_FOUND');
  }
  const r = await call(api.app, 'GET', '/nope');
  assert.is(r.json.instance, `${BASE}/nope`);
  assert.is(r.json.type, 'https://docs.example.com/errors/not-found');
});

test('a known path with another method is 405 with Allow', async () => {
  const r = await call(api.app, 'DELETE', '/posts');
  isProblem(r, 405, 'E_METHOD_NOT_ALLOWED');
  assert.is(r.headers.get('allow'), 'GET, HEAD, POST');
  assert.is(r.json.type, 'https://docs.example.com/errors/method-not-allowed');
  assert.is((await call(api.app, 'POST', '/posts/p1/tags')).headers.get('allow'), 'GET, HEAD');
  assert.is((await call(api.app, 'GET', '/posts/p1/tags/t1')).headers.get('allow'), 'PUT, DELETE');
  assert.is((await call(api.app, 'PATCH', '/users/u1/profile')).status, 405);
  const head = await call(api.app, 'HEAD', '/tags');
  assert.equal([head.status, head.text], [200, '']);
  // The gateway's own documents and keys too, routes of their own outside the API's table.
  const outside = async (method: string, path: string) => { // `call` puts other paths below the base path
    const res = await api.app.request(path, { method });
    return { status: res.status, headers: res.headers, json: await res.json() };
  };
  for (const path of [`${BASE}/openapi.json`, `${BASE}/api.raml`, '/.well-known/jwks.json']) {
    const other = await outside('POST', path);
    isProblem(other, 405, 'E_METHOD_NOT_ALLOWED');
    assert.is(other.headers.get('allow'), 'GET, HEAD', path);
  }
  isProblem(await outside('POST', '/.well-known/nothing.json'), 404, 'E_NOT_FOUND');
});

test('bodies: 415 for non-JSON, 400 for malformed or non-object JSON', async () => {
  isProblem(await call(api.app, 'POST', '/tags', { raw: 'slug=a', type: 'application/x-www-form-urlencoded', bearer: editor }), 415, 'E_UNSUPPORTED_MEDIA_TYPE');
  isProblem(await call(api.app, 'POST', '/tags', { raw: '{"slug":"a"}', type: 'text/plain', bearer: editor }), 415, 'E_UNSUPPORTED_MEDIA_TYPE');
  isProblem(await call(api.app, 'POST', '/tags', { raw: '{"slug":"a"}', bearer: editor }), 415, 'E_UNSUPPORTED_MEDIA_TYPE');
  isProblem(await call(api.app, 'POST', '/tags', { raw: '{"slug":', type: 'application/json', bearer: editor }), 400, 'E_BAD_REQUEST');
  isProblem(await call(api.app, 'POST', '/tags', { raw: '[1,2]', type: 'application/json', bearer: editor }), 400, 'E_BAD_REQUEST');
  isProblem(await call(api.app, 'POST', '/tags', { raw: 'null', type: 'application/json; charset=utf-8', bearer: editor }), 400, 'E_BAD_REQUEST');
  isProblem(await call(api.app, 'POST', '/tags', { bearer: editor }), 400, 'E_BAD_REQUEST');
  const deep = '{"id":"d","title":"x","project_id":"p","meta":' + '[{"a":'.repeat(5000) + '1' + '}]'.repeat(5000) + '}';
  const tooDeep = await call(api.app, 'PATCH', '/posts/d', { raw: deep, type: 'application/json', bearer: admin });
  isProblem(tooDeep, 400, 'E_BAD_REQUEST');
  assert.match(tooDeep.json.detail, 'deeper than');
  const ok = await call(api.app, 'POST', '/tags', { raw: '{"slug":"merge","label":"M"}', type: 'application/merge-patch+json', bearer: editor });
  assert.is(ok.status, 201, ok.text);
});

test('bodies over the limit are 413, counted as they stream (no Content-Length needed)', async () => {
  const small = createApp({ sql: api.db.sql, manifest: api.manifest, jwtSecret: SECRET, maxBodyBytes: 100 });
  isProblem(await call(small, 'POST', '/tags', { body: { slug: 'x', label: 'y'.repeat(200) } }), 413, 'E_PAYLOAD_TOO_LARGE');
  const chunks = [new TextEncoder().encode('{"slug":"x","label":"'), new TextEncoder().encode('y'.repeat(150)), new TextEncoder().encode('"}')];
  const stream = new ReadableStream({ pull(c) { const n = chunks.shift(); if (n) c.enqueue(n); else c.close(); } });
  const res = await small.request(`${BASE}/tags`, { method: 'POST', body: stream, headers: { 'Content-Type': 'application/json' }, duplex: 'half' } as RequestInit);
  assert.is(res.status, 413);
  const lying = await small.request(`${BASE}/tags`, { method: 'POST', body: '{"slug":"x","label":"' + 'y'.repeat(150) + '"}', headers: { 'Content-Type': 'application/json', 'Content-Length': '10' } });
  assert.is(lying.status, 413, 'a small Content-Length is not trusted');
  assert.is((await call(small, 'POST', '/tags', { body: { slug: 'fits', label: 'y' }, bearer: editor })).status, 201);
});

test('readOnly and unknown properties are 400 naming them; schema errors are 422 with every error', async () => {
  const ro = await call(api.app, 'POST', '/posts', { body: { id: 'x', author_id: 'me', title: 'T', project_id: 'p' }, bearer: admin });
  isProblem(ro, 400, 'E_BAD_REQUEST');
  assert.match(ro.json.detail, '"author_id"');
  const unknown = await call(api.app, 'POST', '/posts', { body: { id: 'x', nope: 1 }, bearer: admin });
  isProblem(unknown, 400, 'E_BAD_REQUEST');
  assert.match(unknown.json.detail, '"nope"');
  const bad = await call(api.app, 'POST', '/posts', {
    body: { id: 'x', title: ' leading space', status: 'gone', rating: 'high', meta: { priority: -1 }, published_on: 'soon' }, bearer: admin,
  });
  isProblem(bad, 422, 'E_VALIDATION_ERROR');
  const rules = bad.json.errors.map((e: any) => `${e.property}:${e.rule}`).sort();
  assert.equal(rules, ['meta:minimum', 'project_id:required', 'published_on:format', 'rating:type', 'status:enum', 'title:pattern']);
  for (const e of bad.json.errors) assert.type(e.message, 'string');
  const patchRo = await call(api.app, 'PATCH', '/posts/x', { body: { created_at: '2020-01-01T00:00:00Z' }, bearer: admin });
  isProblem(patchRo, 400, 'E_BAD_REQUEST');
  const edge = await call(api.app, 'PUT', '/projects/x/members/u1', { body: { role: 'boss' }, bearer: admin });
  isProblem(edge, 422, 'E_VALIDATION_ERROR');
  assert.equal(edge.json.errors.map((e: any) => `${e.property}:${e.rule}`), ['role:enum']);
  isProblem(await call(api.app, 'PUT', '/projects/x/members/u1', { body: { rank: 1 }, bearer: admin }), 400, 'E_BAD_REQUEST');
});

test('bad tokens are 401 with WWW-Authenticate; no header is anonymous', async () => {
  const expired = await token({ sub: 'u1' }, SECRET, Math.floor(Date.now() / 1000) - 60);
  const forged = await token({ sub: 'u1', roles: ['admin'] }, 'another-secret-another-secret-another-secret');
  const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"u1","roles":["admin"]}').toString('base64url')}.`;
  const badClaims = await token({ sub: 'u1', roles: 'admin' });
  for (const [header, why] of [[`Bearer ${expired}`, 'expired'], [`Bearer ${forged}`, 'signature'], [`Bearer ${none}`, ''],
    ['Bearer not.a.jwt', 'malformed'], ['Basic dXNlcjpwdw==', 'Bearer'], ['Bearer', 'Bearer'], [`Bearer ${badClaims}`, 'roles']] as const) {
    const r = await call(api.app, 'GET', '/tags', { headers: { Authorization: header } });
    isProblem(r, 401, 'E_UNAUTHENTICATED');
    assert.is(r.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
    assert.match(r.json.detail, why);
  }
  assert.is((await call(api.app, 'GET', '/tags')).status, 200);
  assert.is((await call(api.app, 'GET', '/tags', { bearer: admin })).status, 200);
});

test('query strings: unknown or misplaced parameters are 400 naming them', async () => {
  const cases: Array<[string, string, string]> = [
    ['GET', '/posts?nope=1', '"nope"'], ['GET', '/posts?title[between]=a', '"between"'], ['GET', '/posts?per_page=101', 'per_page'],
    ['GET', '/posts?featured[gt]=true', '"gt"'], ['GET', '/posts?sort=password', 'Unknown'], ['GET', '/users?password=x', 'writeOnly'],
    ['GET', '/posts?include=secret', '"secret"'], ['GET', '/posts/p1?page=2', '"page"'], ['GET', '/posts/p1?title=x', '"title"'],
    ['DELETE', '/posts/p1?permanent=maybe', 'permanent'], ['DELETE', '/posts/p1?sort=title', '"sort"'],
    ['POST', '/posts/search?include=id', '"include"'], ['GET', '/posts?page=1&page=2', 'more than once'],
    ['GET', '/posts/p1/tags?title=x', '"title"'],
  ];
  for (const [method, path, mentions] of cases) {
    const r = await call(api.app, method, path, { bearer: admin });
    isProblem(r, 400, 'E_BAD_REQUEST');
    assert.match(r.json.detail, mentions, `${method} ${path}: ${r.json.detail}`);
  }
});

test('hostile ids and values are 400/404, never 500', async () => {
  for (const path of ['/posts/%27%3B%20drop%20table%20app.posts%3B--', '/posts/%22x%22', '/comments/1.5', '/comments/99999999999999999999999']) {
    const r = await call(api.app, 'GET', path, { bearer: admin });
    isProblem(r, 404, 'E_NOT_FOUND');
  }
  isProblem(await call(api.app, 'GET', '/posts/%00', { bearer: admin }), 400, 'E_BAD_REQUEST');
  isProblem(await call(api.app, 'POST', '/tags', { raw: '{"slug":"nul","label":"a\\u0000b"}', type: 'application/json', bearer: editor }), 400, 'E_BAD_REQUEST');
  assert.equal(api.logged, []);
});

test('no query string answers 500, hostile ones included', async () => {
  const hostile = [
    "title=' or 1=1 --", 'title[like]=\\', 'title[ilike]=%25%25%25', 'published_on=2024-13-45', 'published_on[gt]=yesterday',
    'reading_slot[lt]=25:99', 'rating=1e400', 'rating[in]=1,x', 'meta.priority[gt]=abc', 'meta.address.city[gt]=%00',
    'title=%00', 'title[search]=%22unbalanced', 'title[search]=!!!', 'meta.a"b=1', "meta.a'b[exists]=true", 'sort=meta.x"y',
    'meta[contains]=[1,2', 'meta[contains]="x"', 'meta.labels[contains]=["a"]', 'created_at[gte]=2024-01-01T00:00:00Z',
    'tags_cache[contains]=' + 'x'.repeat(5000), 'id[in]=', 'include=meta.a-b.c', '%5B%5D=1', 'a[]=1', '[eq]=1',
    'page=' + '9'.repeat(30), 'status[nin]=draft,,', 'featured[ne]=false', 'word_count[lte]=2147483648',
  ];
  for (const qs of hostile) {
    const r = await call(api.app, 'GET', `/posts?${qs}`, { bearer: admin });
    assert.ok(r.status === 200 || r.status === 400, `${qs}: ${r.status} ${r.text}`);
    if (r.status === 400) isProblem(r, 400, 'E_BAD_REQUEST');
  }
  assert.equal(api.logged, [], 'nothing was logged as a 500');
});

test('caller IP: the socket address, or behind trusted proxies (TRUST_PROXY hops or addresses) the address the last one saw', async () => {
  const probe = (setting: boolean | number | string) => {
    const trust = compileTrust(setting);
    return new Hono().get('/ip', (c) => c.text(String(callerIp(c, trust))));
  };
  const env = { incoming: { socket: { remoteAddress: '::ffff:10.1.2.3', remotePort: 1, remoteFamily: 'IPv6' } } };
  // 203.0.113.7 is what the client wrote itself; the proxy at 10.1.2.3 appended 10.0.0.1, the peer it saw.
  const xff = { 'X-Forwarded-For': '203.0.113.7, 10.0.0.1' };
  const ip = async (setting: boolean | number | string, headers: Record<string, string> = xff) =>
    (await probe(setting).request('/ip', { headers }, env)).text();
  assert.is(await ip(false), '10.1.2.3', 'no proxy trusted: the socket');
  assert.is(await ip(0), '10.1.2.3');
  assert.is(await ip(1), '10.0.0.1', 'one hop: what the proxy saw, never the client-written first entry');
  assert.is(await ip(true), '10.0.0.1', 'true (tests, the old boolean) is one hop');
  assert.is(await ip(2), '203.0.113.7', 'two trusted hops');
  assert.is(await ip('10.1.2.3'), '10.0.0.1', 'a trusted address');
  assert.is(await ip('10.0.0.0/8'), '203.0.113.7', 'a CIDR trusting both proxies');
  assert.is(await ip('loopback'), '10.1.2.3', 'the socket is not a trusted proxy');
  assert.is(await ip(1, { 'X-Forwarded-For': 'junk' }), 'null', 'a trusted proxy that names no address: no caller IP (IP rules fail closed)');
  assert.is(await (await probe(false).request('/ip')).text(), 'null');
  // Shapes inet refuses as written: a zone id, brackets, a port; IPv4-mapped IPv6 is IPv4. What is no address is none.
  const shapes: Array<[string, string]> = [['fe80::1%eth0', 'fe80::1'], ['[fe80::1%eth0]:443', 'fe80::1'], ['[2001:db8::1]', '2001:db8::1'],
    ['[2001:db8::1]:8443', '2001:db8::1'], ['192.0.2.1:443', '192.0.2.1'], ['::ffff:192.0.2.1', '192.0.2.1'], ['::FFFF:192.0.2.1', '192.0.2.1'],
    ['fe80::1%', 'null'], ['1.2.3.4%eth0', 'null'], ['[1.2.3.4]', 'null'], ['[::1', 'null'], ['::ffff:999.1.1.1', 'null'], ['', '10.1.2.3']];
  for (const [sent, seen] of shapes) assert.is(await ip(1, { 'X-Forwarded-For': sent }), seen, sent);
  const zoned = { incoming: { socket: { remoteAddress: 'fe80::9%eth0', remotePort: 1, remoteFamily: 'IPv6' } } };
  assert.is(await (await probe(false).request('/ip', {}, zoned)).text(), 'fe80::9', 'a link-local peer: the socket, without its zone');
  assert.throws(() => compileTrust('true'), /TRUST_PROXY=true/);
  assert.throws(() => compileTrust('not-an-address'), /TRUST_PROXY/);
});

test.run();
