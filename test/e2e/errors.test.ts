// Each error row of design.md's table that exists today, over HTTP: 400, 401, 404, 405, 409, 413,
// 415 and 422, every one an application/problem+json document with type, title, code and instance.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf } from './support/http.ts';
import { assertFieldError, assertProblem, fieldErrors } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

const MAX_BODY = 4096;
let api: RunningApi;
let project = '';
let post = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json', { maxBodyBytes: MAX_BODY });
  project = dataOf(await api.post('/projects', { name: 'Main' }), 201).id;
  post = dataOf(await api.post('/posts', { project_id: project, title: 'Hello' }), 201).id;
});
test.after(async () => api?.close());

const raw = (method: string, path: string, text: string | Uint8Array, type?: string) =>
  api.call(method, path, { raw: text, ...(type ? { type } : {}) });

test('400 malformed JSON bodies, and JSON that is not an object', async () => {
  const bodies = ['{"name":', '{name: "x"}', "{'name':'x'}", '{"name":"x"} trailing', '{"name":"x",}', 'NaN', '[]', '"text"', '42', 'null', 'true'];
  for (const text of bodies) {
    const reply = await raw('POST', '/projects', text, 'application/json');
    assert.is(reply.status, 400, `${text}: ${reply.text.slice(0, 200)}`);
    assertProblem(reply, 400, api.docsUrl, { code: 'E_BAD_REQUEST' });
  }
  assertProblem(await raw('POST', '/projects', new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 'application/json'), 400, api.docsUrl);
  assertProblem(await raw('PATCH', `/posts/${post}`, '{"title": "x"', 'application/json'), 400, api.docsUrl);
  assertProblem(await raw('POST', '/posts/search', '{"where": {', 'application/json'), 400, api.docsUrl);
  assertProblem(await api.call('POST', '/projects', { type: 'application/json' }), 400, api.docsUrl);
});

test('400 unknown filter, operator, sort and projection; per_page over 100', async () => {
  assertProblem(await api.get('/posts?colour=red'), 400, api.docsUrl, { names: ['colour'] });
  assertProblem(await api.get('/posts?title[regex]=x'), 400, api.docsUrl, { names: ['regex'] });
  assertProblem(await api.get('/posts?sort=colour'), 400, api.docsUrl, { names: ['colour'] });
  assertProblem(await api.get('/posts?include=colour'), 400, api.docsUrl, { names: ['colour'] });
  assertProblem(await api.get('/posts?exclude=colour'), 400, api.docsUrl, { names: ['colour'] });
  assertProblem(await api.get('/posts?per_page=101'), 400, api.docsUrl, { names: ['per_page'] });
  assertProblem(await api.get(`/posts/${post}?include=colour`), 400, api.docsUrl, { names: ['colour'] });
  assertProblem(await api.get(`/posts/${post}?title=x`), 400, api.docsUrl, { names: ['title'] });
});

test('400 a query parameter on the routes that take none: batch, upload intents, sign-in', async () => {
  const before = await api.db.sql`select (select count(*) from app.projects)::int as projects, (select count(*) from lib.uploads)::int as uploads`;
  assertProblem(await api.post('/batch?atomic=false', { operations: [{ method: 'POST', path: '/projects', body: { name: 'B' } }] }), 400, api.docsUrl, { names: ['atomic'] });
  assertProblem(await api.post('/.well-known/upload?x=1', { filename: 'a.png', contentType: 'image/png' }), 400, api.docsUrl, { names: ['x'] });
  assertProblem(await api.post('/auth/token?email=a@example.com', { email: 'a@example.com', password: 'nope' }, { token: null }), 400, api.docsUrl, { names: ['email'] });
  assert.equal(await api.db.sql`select (select count(*) from app.projects)::int as projects, (select count(*) from lib.uploads)::int as uploads`, before);
});

test('400 readOnly supplied and immutable changed name the property', async () => {
  assertProblem(await api.post('/posts', { project_id: project, title: 'x', author_id: 'me' }), 400, api.docsUrl, { names: ['author_id'] });
  assertProblem(await api.patch(`/posts/${post}`, { created_at: '2020-01-01T00:00:00Z' }), 400, api.docsUrl, { names: ['created_at'] });
  const other = dataOf(await api.post('/projects', { name: 'Other' }), 201).id;
  assertProblem(await api.patch(`/posts/${post}`, { project_id: other }), 400, api.docsUrl, { names: ['project_id'] });
});

test('401 for bad, expired, unsigned or malformed tokens, with WWW-Authenticate', async () => {
  const now = Math.floor(Date.now() / 1000);
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'u1', roles: ['admin'], exp: now + 3600 })}.`;
  const signedWith = (alg: string) => api.token({ sub: 'u1' }, { secret: api.secret }).then((t) => {
    const [, payload, sig] = t.split('.');
    return `${b64({ alg, typ: 'JWT' })}.${payload}.${sig}`;
  });
  const tokens: Record<string, string> = {
    'wrong secret': await api.token({ sub: 'u1', roles: ['admin'] }, { secret: 'another-secret-of-enough-length-0123456789' }),
    expired: await api.token({ sub: 'u1' }, { exp: now - 60 }),
    'alg none': unsigned,
    'header says HS512': await signedWith('HS512'),
    garbage: 'not-a-jwt',
    'roles not an array': await api.token({ sub: 'u1', roles: 'admin' }),
    'tampered payload': (await api.token({ sub: 'u1' })).replace(/\.([^.]+)\./, `.${b64({ sub: 'root', roles: ['admin'] })}.`),
  };
  for (const [what, token] of Object.entries(tokens)) {
    const reply = await api.get('/posts', { token });
    assert.is(reply.status, 401, `${what}: ${reply.text.slice(0, 200)}`);
    assertProblem(reply, 401, api.docsUrl, { code: 'E_UNAUTHENTICATED' });
    const header = reply.headers.get('www-authenticate') ?? '';
    assert.match(header, /^Bearer\b/, `${what}: WWW-Authenticate "${header}"`);
    assert.match(header, /error="invalid_token"/, `${what}: WWW-Authenticate "${header}"`);
  }
  for (const header of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ', 'Token abc']) {
    const reply = await api.get('/posts', { token: null, headers: { Authorization: header } });
    assertProblem(reply, 401, api.docsUrl, { code: 'E_UNAUTHENTICATED' });
    assert.match(reply.headers.get('www-authenticate') ?? '', /^Bearer\b/);
  }
  assertProblem(await api.post('/projects', { name: 'x' }, { token: tokens.expired! }), 401, api.docsUrl);
  assert.is((await api.get('/posts', { token: null })).status, 200, 'no header at all is anonymous, not 401');
});

test('404 for unknown records, parents and routes', async () => {
  assertProblem(await api.get('/posts/missing'), 404, api.docsUrl, { code: 'E_NOT_FOUND' });
  assertProblem(await api.get('/projects/missing/posts'), 404, api.docsUrl, { code: 'E_NOT_FOUND' });
  assertProblem(await api.get('/nothing'), 404, api.docsUrl);
  assertProblem(await api.get(`/posts/${post}/nothing`), 404, api.docsUrl);
  assertProblem(await api.get(`/posts/${post}/tags/news/more`), 404, api.docsUrl);
  for (const path of ['/nothing', '/api/publishing/v2/posts', '/api/other/v1/posts', '/api/publishing', '/api/publishing/v1/']) {
    assertProblem(await api.callAbsolute('GET', path), 404, api.docsUrl);
  }
});

test('405 for a wrong method on a known route, with Allow', async () => {
  const cases: Array<[string, string, string[]]> = [
    ['DELETE', '/posts', ['GET', 'POST']],
    ['PATCH', '/posts', ['GET', 'POST']],
    ['PUT', '/posts', ['GET', 'POST']],
    ['POST', `/posts/${post}`, ['GET', 'PUT', 'PATCH', 'DELETE']],
    ['GET', `/posts/${post}/restore`, ['POST']],
    ['PATCH', `/posts/${post}/tags/news`, ['PUT', 'DELETE']],
    ['DELETE', `/posts/${post}/tags`, ['GET']],
    ['DELETE', '/users/u1/profile', ['GET', 'PUT']],
  ];
  for (const [method, path, allow] of cases) {
    const reply = await api.call(method, path, method === 'GET' || method === 'DELETE' ? {} : { body: {} });
    assert.is(reply.status, 405, `${method} ${path}: ${reply.text.slice(0, 200)}`);
    assertProblem(reply, 405, api.docsUrl);
    const header = (reply.headers.get('allow') ?? '').split(',').map((m) => m.trim());
    for (const m of allow) assert.ok(header.includes(m), `${method} ${path}: Allow "${header}" lacks ${m}`);
    assert.not.ok(header.includes(method), `${method} ${path}: Allow lists the refused method`);
  }
});

test('409 unique violation names the property', async () => {
  dataOf(await api.post('/users', { email: 'one@example.com' }), 201);
  const reply = await api.post('/users', { email: 'one@example.com' });
  assertProblem(reply, 409, api.docsUrl, { code: 'E_UNIQUE_VIOLATION', names: ['email'] });
});

test('413 for a body over the limit, with or without Content-Length', async () => {
  const big = JSON.stringify({ name: 'x'.repeat(MAX_BODY) });
  assertProblem(await raw('POST', '/projects', big, 'application/json'), 413, api.docsUrl, { code: 'E_PAYLOAD_TOO_LARGE' });
  assertProblem(await raw('PUT', `/posts/${post}`, big, 'application/json'), 413, api.docsUrl);
  const chunk = new TextEncoder().encode(big);
  const stream = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(chunk.slice(0, 100));
      c.enqueue(chunk.slice(100));
      c.close();
    },
  });
  assertProblem(await api.call('POST', '/projects', { raw: stream, type: 'application/json' }), 413, api.docsUrl);
  const fits = JSON.stringify({ name: 'y'.repeat(200) });
  assert.is((await raw('POST', '/projects', fits, 'application/json')).status, 201);
});

test('415 for a body that is not JSON', async () => {
  const cases: Array<[string, string | undefined]> = [
    ['name=x', 'application/x-www-form-urlencoded'],
    ['{"name":"x"}', 'text/plain'],
    ['<name>x</name>', 'application/xml'],
    ['--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--', 'multipart/form-data; boundary=b'],
    ['{"name":"x"}', undefined],
  ];
  for (const [text, type] of cases) {
    const body = type === undefined ? new TextEncoder().encode(text) : text;
    const reply = await raw('POST', '/projects', body, type);
    assert.is(reply.status, 415, `${type}: ${reply.text.slice(0, 200)}`);
    assertProblem(reply, 415, api.docsUrl, { code: 'E_UNSUPPORTED_MEDIA_TYPE' });
  }
  assertProblem(await raw('PATCH', `/posts/${post}`, 'title=x', 'application/x-www-form-urlencoded'), 415, api.docsUrl);
  assertProblem(await raw('POST', '/posts/search', 'where', 'text/plain'), 415, api.docsUrl);
  const mergePatch = await raw('PATCH', `/posts/${post}`, '{"body":"merge"}', 'application/merge-patch+json');
  assert.is(mergePatch.status, 200, 'application/merge-patch+json is JSON');
});

test('415 for JSON declared in another charset than UTF-8 (RFC 8259 8.1), on every route that reads a JSON body; nothing written', async () => {
  const count = async () => api.db.sql`select (select count(*) from app.projects)::int as projects, (select count(*) from lib.uploads)::int as uploads`;
  const before = await count();
  // "Ã©" in latin1 is the bytes C3 A9, which UTF-8 reads as "é": the name was stored changed, answered 201.
  const latin1 = new Uint8Array([...'{"name":"Caf\u00c3\u00a9"}'].map((ch) => ch.charCodeAt(0)));
  const utf16 = new Uint8Array(new Uint16Array([...'{"name":"x"}'].map((ch) => ch.charCodeAt(0))).buffer);
  const refused: Array<[string, string, string | Uint8Array, string]> = [
    ['POST', '/projects', latin1, 'application/json; charset=latin1'],
    ['POST', '/projects', latin1, 'application/json;charset="ISO-8859-1"'],
    ['POST', '/projects', utf16, 'application/json; charset=utf-16'],
    ['POST', '/projects', '{"name":"x"}', 'application/json; CHARSET=us-ascii'],
    ['POST', '/projects', '{"name":"x"}', 'application/json; charset=no-such-charset'],
    ['POST', '/projects', '{"name":"x"}', 'application/json; charset=utf-8; charset=latin1'],
    ['PATCH', `/posts/${post}`, '{"body":"x"}', 'application/merge-patch+json; charset=windows-1252'],
    ['POST', '/posts/search', '{"where":{}}', 'application/json; charset=latin1'],
    ['POST', '/batch', JSON.stringify({ operations: [{ method: 'POST', path: '/projects', body: { name: 'B' } }] }), 'application/json; charset=latin1'],
    ['POST', '/.well-known/upload', JSON.stringify({ filename: 'a.png', contentType: 'image/png' }), 'application/json; charset=latin1'],
    ['POST', '/auth/token', JSON.stringify({ email: 'a@example.com', password: 'nope' }), 'application/json; charset=latin1'],
  ];
  for (const [method, path, text, type] of refused) {
    const reply = await raw(method, path, text, type);
    assertProblem(reply, 415, api.docsUrl, { code: 'E_UNSUPPORTED_MEDIA_TYPE' });
    assert.match(reply.body.detail, 'UTF-8', `${method} ${path} ${type}`);
  }
  assert.equal(await count(), before);
  for (const type of ['application/json; charset=utf-8', 'application/json; charset="UTF-8"', 'application/json;charset=utf8', 'application/json; foo="a;charset=latin1"']) {
    assert.is((await raw('POST', '/projects', JSON.stringify({ name: `Caf\u00e9 ${type}` }), type)).status, 201, type);
  }
});

test('422 lists errors as {property, rule, message}', async () => {
  const reply = await api.post('/posts', { project_id: project, title: ' bad', rating: 7 });
  const body = assertProblem(reply, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
  assert.is(body.type, `${api.docsUrl}/errors/validation-error`);
  const errors = fieldErrors(reply);
  assertFieldError(reply, 'title', 'pattern');
  assertFieldError(reply, 'rating', 'maximum');
  for (const e of errors) assert.ok(e.message.length > 0);
});

test('problem documents carry type, title, status, code, detail and instance = the request path', async () => {
  const reply = await api.get('/posts/missing?include=id');
  const body = assertProblem(reply, 404, api.docsUrl);
  assert.is(body.type, 'https://docs.example.com/errors/not-found');
  assert.is(body.instance, `${api.basePath}/posts/missing`);
  assert.is(body.status, 404);
  assert.is(body.code, 'E_NOT_FOUND');
  const bad = await api.get('/posts?per_page=500');
  assert.is(assertProblem(bad, 400, api.docsUrl).type, 'https://docs.example.com/errors/bad-request');
});

test('no request in this suite made the gateway log a 5xx', () => {
  assert.equal(api.serverErrors, []);
});

test.run();
