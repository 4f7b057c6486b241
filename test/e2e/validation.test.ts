// Validation over HTTP (spec 2.3-2.5): settings and JSON Schema violations are 422 with
// `errors: [{property, rule, message}]`; Email is normalized; unique duplicates are 409 naming it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { assertFieldError, assertProblem, fieldErrors } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let project = '';
let post = '';
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = dataOf(await api.post('/projects', { name: 'Main' }), 201).id;
  post = dataOf(await api.post('/posts', { project_id: project, title: 'Valid', meta: { address: { city: 'Rome', zip: '00100' }, priority: 1 } }), 201).id;
});
test.after(async () => api?.close());

/** [body additions, property, rule] for a post; every one must be 422 on POST, PUT and PATCH. */
const BAD: Array<[Record<string, unknown>, string, string?]> = [
  [{ title: ' leading space' }, 'title', 'pattern'],
  [{ title: 'x'.repeat(256) }, 'title', 'maxLength'],
  [{ rating: 5.5 }, 'rating', 'maximum'],
  [{ rating: -0.5 }, 'rating', 'minimum'],
  [{ rating: 0.3 }, 'rating', 'multipleOf'],
  [{ word_count: -1 }, 'word_count', 'minimum'],
  [{ word_count: 1.5 }, 'word_count', 'type'],
  [{ word_count: 3000000000 }, 'word_count'],
  [{ status: 'bogus' }, 'status', 'enum'],
  [{ featured: 'yes' }, 'featured', 'type'],
  [{ published_on: '2024-02-30' }, 'published_on'],
  [{ published_on: 'soon' }, 'published_on'],
  [{ reading_slot: '25:00' }, 'reading_slot'],
  [{ tags_cache: 'a' }, 'tags_cache', 'type'],
  [{ tags_cache: [1, 2] }, 'tags_cache'],
  [{ meta: { priority: 'high' } }, 'meta'],
  [{ meta: { priority: -1 } }, 'meta'],
  [{ meta: { labels: 'x' } }, 'meta'],
  [{ meta: { address: { city: 5 } } }, 'meta'],
  [{ meta: 'a string' }, 'meta'],
  [{ meta: [1, 2] }, 'meta'],
];

test('validation settings and JSON Schema violations: 422 on POST, naming property and rule', async () => {
  for (const [extra, property, rule] of BAD) {
    const reply = await api.post('/posts', { project_id: project, title: 'ok', ...extra });
    assert.is(reply.status, 422, `POST ${JSON.stringify(extra).slice(0, 80)}: ${reply.text.slice(0, 300)}`);
    assertProblem(reply, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
    assertFieldError(reply, property, rule);
  }
});

test('the same violations on PUT and PATCH: 422, and the record is unchanged', async () => {
  const before = dataOf(await api.get(`/posts/${post}`));
  for (const [extra, property] of BAD) {
    const put = await api.put(`/posts/${post}`, { title: 'ok', ...extra });
    assert.is(put.status, 422, `PUT ${JSON.stringify(extra).slice(0, 80)}: ${put.text.slice(0, 300)}`);
    assertFieldError(put, property);
    const patch = await api.patch(`/posts/${post}`, extra);
    assert.is(patch.status, 422, `PATCH ${JSON.stringify(extra).slice(0, 80)}: ${patch.text.slice(0, 300)}`);
    assertFieldError(patch, property);
  }
  assert.equal(dataOf(await api.get(`/posts/${post}`)), before);
});

test('a fraction a double rounds away is still a fraction: 422 naming the integer it breaks, on POST, PUT, PATCH and in a document', async () => {
  const before = dataOf(await api.get(`/posts/${post}`));
  // 1.0000000000000000001 and 1e-400 read as the integers 1 and 0 in JavaScript; the text is what is stored.
  const cases: Array<[string, string, string]> = [
    ['"word_count": 1.0000000000000000001', 'word_count', 'type'],
    ['"word_count": 1e-400', 'word_count', 'type'],
    ['"meta": {"priority": 2.00000000000000000001}', 'meta', 'type'],
  ];
  for (const [member, property, rule] of cases) {
    for (const [method, path, body] of [['POST', '/posts', `{"project_id": "${project}", "title": "ok", ${member}}`],
      ['PUT', `/posts/${post}`, `{"title": "ok", ${member}}`], ['PATCH', `/posts/${post}`, `{${member}}`]] as const) {
      const reply = await api.call(method, path, { raw: body, type: 'application/json' });
      assert.is(reply.status, 422, `${method} ${member}: ${reply.text.slice(0, 300)}`);
      assertProblem(reply, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
      assertFieldError(reply, property, rule);
    }
  }
  assert.equal(dataOf(await api.get(`/posts/${post}`)), before);
  // Whole numbers written with a fraction or an exponent stay whole; a Number property keeps every digit.
  const whole = await api.call('PATCH', `/posts/${post}`, { raw: '{"word_count": 12.000000000000000000, "meta": {"priority": 300e-2}}', type: 'application/json' });
  assert.is(whole.status, 200, whole.text);
  assert.is(dataOf(whole).word_count, 12);
  assert.is((dataOf(whole).meta as { priority: number }).priority, 3);
});

test('several violations at once are all listed', async () => {
  const reply = await api.post('/posts', { project_id: project, title: ' x', rating: 9, status: 'nope', featured: 1 });
  const errors = fieldErrors(reply);
  for (const p of ['title', 'rating', 'status', 'featured']) assert.ok(errors.some((e) => e.property === p), `${p}: ${reply.text}`);
});

test('initialStatuses: a new post cannot start published (422), an update may move there', async () => {
  const reply = await api.post('/posts', { project_id: project, title: 'Early', status: 'published' });
  assertProblem(reply, 422, api.docsUrl);
  assertFieldError(reply, 'status', 'initialStatuses');
  assert.is(dataOf(await api.post('/posts', { project_id: project, title: 'Review', status: 'in_review' }), 201).status, 'in_review');
});

test('PATCH of JSON merges per RFC 7396 and validates the merged document', async () => {
  const merged = dataOf(await api.patch(`/posts/${post}`, { meta: { priority: 7, labels: ['a'] } }));
  assert.equal(merged.meta, { address: { city: 'Rome', zip: '00100' }, priority: 7, labels: ['a'] });
  const removed = dataOf(await api.patch(`/posts/${post}`, { meta: { address: null, labels: null } }));
  assert.equal(removed.meta, { priority: 7 }, 'null removes a member even where the schema wants an object');
  const nested = dataOf(await api.patch(`/posts/${post}`, { meta: { address: { zip: '00118' } } }));
  assert.equal(nested.meta, { priority: 7, address: { zip: '00118' } });
  const cleared = dataOf(await api.patch(`/posts/${post}`, { meta: { address: { zip: null, city: 'Pisa' } } }));
  assert.equal(cleared.meta, { priority: 7, address: { city: 'Pisa' } }, 'a nested null deletes even where the schema wants a string');
  const back = dataOf(await api.patch(`/posts/${post}`, { meta: { address: { city: null, zip: '00118' } } }));
  assert.equal(back.meta, nested.meta);
  const bad = await api.patch(`/posts/${post}`, { meta: { address: { zip: 118 } } });
  assertProblem(bad, 422, api.docsUrl);
  assertFieldError(bad, 'meta');
  assert.equal(dataOf(await api.get(`/posts/${post}`)).meta, nested.meta);
});

test('a merged document keeps numbers a double cannot hold, and its schema judges them as the create did', async () => {
  const raw = (method: string, path: string, text: string) => api.call(method, path, { raw: text, type: 'application/json' });
  const big = dataOf(await raw('POST', '/posts', `{"project_id": "${project}", "title": "Big", "meta": {"priority": 100000000000000000000, "address": {"city": "A"}}}`), 201);
  const patched = await raw('PATCH', `/posts/${big.id}`, '{"meta": {"address": {"city": "B"}}}');
  assert.is(patched.status, 200, patched.text);
  assert.match(patched.text, '"priority":100000000000000000000');
  const exact = await raw('PATCH', `/posts/${big.id}`, '{"meta": {"priority": 9007199254740993}}');
  assert.is(exact.status, 200, exact.text);
  assert.match((await api.get(`/posts/${big.id}`)).text, /"priority": ?9007199254740993[,}]/);
  const fraction = await raw('PATCH', `/posts/${big.id}`, '{"meta": {"priority": 9007199254740993.5}}');
  assertProblem(fraction, 422, api.docsUrl);
  assertFieldError(fraction, 'meta');
  const batch = await raw('POST', '/batch', JSON.stringify({ operations: [{ method: 'PATCH', path: `/posts/${big.id}`, body: { meta: { address: { city: 'C' } } } }] }));
  assert.is(batch.status, 200, batch.text);
  assert.match((await api.get(`/posts/${big.id}`)).text, /"priority": ?9007199254740993[,}]/);
});

test('a JSON property that is not required takes null on POST, PUT and PATCH (no document: its schema does not judge it)', async () => {
  // meta has a JSON Schema of type object: null was 422 everywhere, so a PATCH could never clear it (RFC 7396: null removes).
  const created = await api.post('/posts', { project_id: project, title: 'No meta', meta: null });
  const id = dataOf(created, 201).id;
  assert.is(created.body.data.meta, null);
  dataOf(await api.patch(`/posts/${id}`, { meta: { priority: 2 } }));
  assert.is(dataOf(await api.patch(`/posts/${id}`, { meta: null })).meta, null, 'PATCH null clears it');
  dataOf(await api.patch(`/posts/${id}`, { meta: { priority: 3 } }));
  assert.is(dataOf(await api.put(`/posts/${id}`, { title: 'No meta', meta: null })).meta, null, 'PUT null clears it');
  assert.is((await api.db.sql`select meta from app.posts where id = ${id}`)[0]!.meta, null, 'stored as SQL NULL');
  // A value that is neither null nor a document of the schema is still 422, naming only the document's error.
  for (const meta of [5, 'text', [1], { priority: 'high' }]) {
    const bad = await api.patch(`/posts/${id}`, { meta });
    assertProblem(bad, 422, api.docsUrl);
    assert.equal(fieldErrors(bad).map((e) => [e.property, e.rule]), [['meta', 'type']], JSON.stringify(meta));
  }
  assert.equal(api.serverErrors, []);
});

test('Email: stored lowercase on POST, PUT and PATCH; a bad address is 422', async () => {
  const user = dataOf(await api.post('/users', { email: 'Mixed.Case@Example.COM' }), 201);
  assert.is(user.email, 'mixed.case@example.com');
  assert.is(dataOf(await api.get('/users?email=mixed.case@example.com')).length, 1);
  // Users update themselves only ("Users manage themselves"): the token's sub is the user.
  const token = await api.token({ sub: user.id });
  assert.is(dataOf(await api.put(`/users/${user.id}`, { email: 'PUT@Example.com' }, { token })).email, 'put@example.com');
  assert.is(dataOf(await api.patch(`/users/${user.id}`, { email: 'Patch@EXAMPLE.com' }, { token })).email, 'patch@example.com');
  for (const email of ['no-at-sign', 'two@@example.com', 'spaces in@example.com', `${'a'.repeat(65)}@example.com`, 'x@-bad-.com']) {
    const reply = await api.post('/users', { email });
    assert.is(reply.status, 422, `${email}: ${reply.text.slice(0, 200)}`);
    assertFieldError(reply, 'email');
  }
});

test('Email: a filter value is normalized as the stored value was, so the address as it was sent finds its record', async () => {
  const user = dataOf(await api.post('/users', { email: 'Find.Me@Example.COM' }), 201);
  const ids = async (query: string) => dataOf(await api.get(`/users?${query}`)).map((u: { id: string }) => u.id);
  assert.equal(await ids('email=Find.Me@Example.COM'), [user.id], 'eq by default');
  assert.equal(await ids('email[in]=nobody@example.com,FIND.ME@EXAMPLE.COM'), [user.id], 'in');
  assert.equal(await ids('email[like]=FIND.*'), [user.id], 'like');
  assert.not.ok((await ids('email[ne]=FIND.ME@example.com')).includes(user.id), 'ne');
  const found = await api.post('/users/search', { where: { email: { eq: 'FIND.me@example.COM' } } });
  assert.equal(dataOf(found).map((u: { id: string }) => u.id), [user.id], 'a search body too');
});

test('unique: a duplicate is 409 E_UNIQUE_VIOLATION naming the property (case-insensitive Email too)', async () => {
  const a = dataOf(await api.post('/users', { email: 'taken@example.com' }), 201);
  const dup = await api.post('/users', { email: 'TAKEN@example.com' });
  const body = assertProblem(dup, 409, api.docsUrl, { code: 'E_UNIQUE_VIOLATION', names: ['email'] });
  assert.is(body.type, `${api.docsUrl}/errors/unique-violation`);
  const b = dataOf(await api.post('/users', { email: 'free@example.com' }), 201);
  assertProblem(await api.patch(`/users/${b.id}`, { email: 'taken@example.com' }, { token: await api.token({ sub: b.id }) }), 409, api.docsUrl, { code: 'E_UNIQUE_VIOLATION', names: ['email'] });
  assertProblem(await api.post('/tags', { slug: 'dup', label: 'x' }).then(() => api.post('/tags', { slug: 'dup', label: 'y' })), 409, api.docsUrl, { code: 'E_UNIQUE_VIOLATION', names: ['slug'] });
  assert.is(dataOf(await api.get(`/users/${a.id}`)).email, 'taken@example.com');
  const [row] = await api.db.sql`select count(*)::int as n from app.users where email = 'taken@example.com'`;
  assert.is(row!.n, 1);
});

test('a client key that is empty, "." or "..": 422 naming it (no URL could reach the record), on create, bulk and batch; nothing kept', async () => {
  // `.` and `..` are dot segments to every URL parser, `%2E` and `%2E%2E` too (WHATWG; RFC 3986 normalizes them):
  // fetch sends /posts/%2E as /posts/, so no Location could name such a record.
  assert.is(new URL('http://h/posts/%2E').pathname, '/posts/');
  for (const [id, rule] of [['', 'minLength'], ['.', 'dotSegment'], ['..', 'dotSegment']] as const) {
    const reply = await api.post('/posts', { id, project_id: project, title: 'odd' });
    assertProblem(reply, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
    assertFieldError(reply, 'id', rule);
    const bulk = await api.post('/posts', [{ project_id: project, title: 'fine' }, { id, project_id: project, title: 'odd' }]);
    assertProblem(bulk, 422, api.docsUrl, { code: 'E_VALIDATION_ERROR' });
    assertFieldError(bulk, 'id', rule);
    const batch = await api.post('/batch', { operations: [{ method: 'POST', path: `/projects/${project}/posts`, body: { id, title: 'odd' } }] });
    assert.equal([batch.status, batch.body.code, batch.body.operation], [422, 'E_VALIDATION_ERROR', 1], batch.text);
    assertFieldError(batch, 'id', rule);
  }
  const [row] = await api.db.sql`select count(*)::int as n from app.posts where id in ('', '.', '..') or title in ('odd', 'fine')`;
  assert.is(row!.n, 0);
  const doc = (await api.get('/openapi.json')).body;
  assert.is(doc.components.schemas.Post.properties.id.minLength, 1, 'the API document says so');
});

test('a key with dots that is no dot segment ("...", "a.b") is a key like any other: its Location reads, patches and deletes it', async () => {
  for (const id of ['...', 'a.b', '.x']) {
    const created = await api.post('/posts', { id, project_id: project, title: 'dotted' });
    expectStatus(created, 201, id);
    const location = created.headers.get('location')!.slice(api.basePath.length);
    assert.is(location, `/posts/${encodeURIComponent(id)}`);
    assert.is(dataOf(await api.get(location)).id, id);
    assert.is(dataOf(await api.patch(location, { title: 'dotted again' })).title, 'dotted again');
    expectStatus(await api.del(`${location}?permanent=true`), 204, id);
    expectStatus(await api.get(location), 404, id);
  }
});

test.run();
