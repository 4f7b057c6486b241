// Atomic batches and bulk create (issue 12 item 1) over the real gateway and PostgreSQL: everything commits
// or nothing does (checked by reading afterwards), preconditions and access rules inside a batch,
// references between operations, the MAX_BATCH_OPERATIONS and MAX_BATCH_RESPONSE_BYTES caps, and bulk create's all-or-nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type RunningApi } from './support/server.ts';

const MAX = 5;
/** MAX_BATCH_RESPONSE_BYTES: one read of the big post fits, two do not. */
const MAX_ANSWER = 1536 * 1024;
let api: RunningApi;
test.before(async () => {
  api = await startApi('examples/publishing.model.json', { limits: { maxBatchOperations: MAX, maxBatchResponseBytes: MAX_ANSWER } });
});
test.after(async () => {
  const errors = api?.serverErrors ?? [];
  await api?.close();
  assert.equal(errors, [], 'no request caused a 5xx');
});

let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}-${Date.now().toString(36)}`;
const batch = (operations: unknown[], token?: string | null) => api.post('/batch', { operations }, token === undefined ? {} : { token });
/** A post of about 1 MB (the body limit is 1 MiB), made once. */
let bigPost: Promise<string> | undefined;
const big = () => bigPost ??= (async () => {
  const project = (await api.post('/projects', { name: unique('Big') })).body.data.id;
  const r = await api.post(`/projects/${project}/posts`, { id: unique('big'), title: 'Big', body: 'x'.repeat(1_000_000) });
  assert.is(r.status, 201, r.text);
  return r.body.data.id as string;
})();
const projectsNamed = async (name: string) => Number((await api.db.sql`select count(*)::int as n from app.projects where name = ${name}`)[0]!.n);

test('a batch runs every operation in order and answers each one\'s status, headers and body', async () => {
  const name = unique('Batch');
  const r = await batch([
    { method: 'POST', path: '/projects', body: { name } },
    { method: 'POST', path: '/projects/$1.data.id/posts', body: { id: unique('p'), title: 'First' } },
    { method: 'PATCH', path: '/posts/$2.data.id', headers: { 'If-Match': '"1"' }, body: { title: 'Changed' } },
    { method: 'GET', path: '/posts/$2.data.id?include=id,title,version' },
    { method: 'DELETE', path: '/posts/$2.data.id', headers: { 'If-Match': '"2"' } },
  ]);
  assert.is(r.status, 200, r.text);
  const results = r.body.results;
  assert.equal(results.map((x: any) => x.status), [201, 201, 200, 200, 204]);
  const project = results[0].body.data, post = results[1].body.data;
  assert.is(project.name, name);
  assert.is(results[0].headers.Location, `${api.basePath}/projects/${project.id}`);
  assert.is(post.project_id, project.id, 'the path reference put the post under the new project');
  assert.is(results[1].headers.ETag, '"1"');
  assert.is(results[2].headers.ETag, '"2"');
  assert.equal(results[3].body.data, { id: post.id, title: 'Changed', version: 2 }, 'a read sees the batch\'s own writes, projected');
  assert.ok(results[3].headers['Last-Modified']);
  assert.is(results[4].body, null);
  // Committed: the project is there, the post soft-deleted.
  assert.is((await api.get(`/projects/${project.id}`)).status, 200);
  assert.is((await api.get(`/posts/${post.id}`)).status, 404);
  assert.is(Number((await api.db.sql`select count(*)::int as n from app.posts where id = ${post.id} and deleted_at is not null`)[0]!.n), 1);
});

test('a failing operation rolls back the whole batch: its number and problem are answered, no row is written', async () => {
  const name = unique('Rollback');
  const r = await batch([
    { method: 'POST', path: '/projects', body: { name } },
    { method: 'POST', path: '/projects/$1.data.id/posts', body: { id: unique('p'), title: 'Kept?' } },
    { method: 'POST', path: '/projects/$1.data.id/posts', body: { id: unique('p'), title: ' breaks the pattern' } },
  ]);
  assert.is(r.status, 422, r.text);
  assert.is(r.headers.get('content-type'), 'application/problem+json');
  assert.is(r.body.code, 'E_VALIDATION_ERROR');
  assert.is(r.body.operation, 3);
  assert.equal(r.body.errors.map((e: any) => e.property), ['title']);
  assert.match(r.body.instance, new RegExp(`^${api.basePath}/projects/[^/]+/posts$`));
  assert.is(await projectsNamed(name), 0, 'the project of operation 1 was rolled back');
  const listed = await api.get(`/projects?name=${encodeURIComponent(name)}`);
  assert.equal(listed.body.data, []);
});

test('a database refusal late in a batch (unique key taken) also leaves nothing behind', async () => {
  const slug = unique('tag');
  const name = unique('Dup');
  const r = await batch([
    { method: 'POST', path: '/projects', body: { name } },
    { method: 'POST', path: '/tags', body: { slug, label: 'One' } },
    { method: 'POST', path: '/tags', body: { slug, label: 'Two' } },
  ]);
  assert.is(r.status, 409, r.text);
  assert.is(r.body.code, 'E_UNIQUE_VIOLATION');
  assert.is(r.body.operation, 3);
  assert.is(await projectsNamed(name), 0);
  assert.is((await api.get(`/tags/${slug}`)).status, 404);
});

test('preconditions inside a batch: a stale If-Match is 412 for that operation and nothing is written', async () => {
  const project = (await api.post('/projects', { name: unique('Pre') })).body.data.id;
  const post = (await api.post(`/projects/${project}/posts`, { id: unique('p'), title: 'Original' })).body.data.id;
  const r = await batch([
    { method: 'PATCH', path: `/posts/${post}`, headers: { 'If-Match': '"1"' }, body: { title: 'First edit' } },
    { method: 'PATCH', path: `/posts/${post}`, headers: { 'if-match': '"1"' }, body: { title: 'Lost update' } },
  ]);
  assert.is(r.status, 412, r.text);
  assert.is(r.body.code, 'E_PRECONDITION_FAILED');
  assert.is(r.body.operation, 2);
  assert.match(r.body.detail, '2');
  assert.is(r.body.instance, `${api.basePath}/posts/${post}`);
  const now = await api.get(`/posts/${post}`);
  assert.is(now.body.data.title, 'Original', 'the first edit was rolled back too');
  assert.is(now.headers.get('etag'), '"1"');
  // If-Match * on a missing record, and If-Unmodified-Since, are preconditions as well.
  const star = await batch([{ method: 'DELETE', path: '/posts/no-such-post', headers: { 'If-Match': '*' } }]);
  assert.is(star.status, 412, star.text);
  const since = await batch([{ method: 'PATCH', path: `/posts/${post}`, headers: { 'If-Unmodified-Since': 'Sat, 01 Jan 2000 00:00:00 GMT' }, body: { title: 'x' } }]);
  assert.is(since.status, 412, since.text);
  // The body version lock too (409).
  const lock = await batch([{ method: 'PATCH', path: `/posts/${post}`, body: { title: 'x', version: 7 } }]);
  assert.is(lock.status, 409, lock.text);
  assert.is(lock.body.code, 'E_CONCURRENCY_CONFLICT');
});

test('access rules apply to each operation as the caller: 403 and 401 roll back, 404 for a hidden or missing record', async () => {
  const author = await api.token({ sub: unique('author'), roles: ['author'] });
  const name = unique('Mine');
  const forbidden = await batch([
    { method: 'POST', path: '/projects', body: { name } },
    { method: 'POST', path: '/tags', body: { slug: unique('t'), label: 'Editors only' } },
  ], author);
  assert.is(forbidden.status, 403, forbidden.text);
  assert.is(forbidden.body.operation, 2);
  assert.is(await projectsNamed(name), 0);
  const anonymous = await batch([{ method: 'GET', path: '/tags' }, { method: 'POST', path: '/projects', body: { name } }], null);
  assert.is(anonymous.status, 401, anonymous.text);
  assert.is(anonymous.body.operation, 2);
  const missing = await batch([{ method: 'GET', path: '/posts/never-was' }]);
  assert.is(missing.status, 404, missing.text);
  assert.is(missing.body.operation, 1);
  // Another caller's project is not visible to the author: her post under it is refused.
  const other = (await api.post('/projects', { name: unique('Other') })).body.data.id;
  const hidden = await batch([{ method: 'POST', path: `/projects/${other}/posts`, body: { id: unique('p'), title: 'Sneak' } }], author);
  assert.ok([403, 404].includes(hidden.status), hidden.text);
  assert.is(hidden.body.operation, 1);
});

test('references: values keep their JSON type, reach into arrays, $$ escapes; bad references are 400 for their operation', async () => {
  const a = unique('ref-a'), b = unique('ref-b');
  const r = await batch([
    { method: 'POST', path: '/tags', body: [{ slug: a, label: 'A' }, { slug: b, label: '$$literal' }] },
    { method: 'GET', path: '/tags?slug[in]=$1.data.0.slug&sort=slug' },
    { method: 'POST', path: '/projects', body: { name: '$1.data.1.slug' } },
    { method: 'POST', path: '/projects/$3.data.id/posts', body: { id: unique('p'), title: 'Typed', rating: '$4.data.0' } },
  ]);
  // rating refers to operation 4 from operation 4 itself: refused, and the batch with it.
  assert.is(r.status, 400, r.text);
  assert.is(r.body.operation, 4);
  assert.match(r.body.detail, 'only operations 1 to 3');
  assert.is((await api.get(`/tags/${a}`)).status, 404);

  const ok = await batch([
    { method: 'POST', path: '/tags', body: [{ slug: a, label: 'A' }, { slug: b, label: '$$literal' }] },
    { method: 'GET', path: '/tags?slug[in]=$1.data.0.slug' },
    { method: 'POST', path: '/projects', body: { name: '$1.data.1.slug' } },
    { method: 'POST', path: '/projects/$3.data.id/posts', body: { id: unique('p'), title: 'Typed', rating: 4.5 } },
    { method: 'PATCH', path: '/posts/$4.data.id', body: { word_count: '$2.meta.total', meta: { from: '$4.data.rating', tags: '$1.data' } } },
  ]);
  assert.is(ok.status, 200, ok.text);
  const [tags, listed, project, , patched] = ok.body.results;
  assert.is(tags.body.data[1].label, '$literal', '$$ is a literal $');
  assert.equal(listed.body.data.map((t: any) => t.slug), [a]);
  assert.is(project.body.data.name, b);
  assert.is(patched.body.data.word_count, 1, 'a number stays a number');
  assert.is(patched.body.data.meta.from, 4.5);
  assert.equal(patched.body.data.meta.tags.map((t: any) => t.slug), [a, b], 'objects and arrays are copied whole');

  const nothing = await batch([{ method: 'POST', path: '/tags', body: { slug: unique('t'), label: 'x' } }, { method: 'GET', path: '/tags/$1.data.nope' }]);
  assert.is(nothing.status, 400, nothing.text);
  assert.is(nothing.body.operation, 2);
  assert.match(nothing.body.detail, 'names nothing');
  const noBody = await batch([
    { method: 'POST', path: '/tags', body: { slug: unique('t'), label: 'x' } },
    { method: 'DELETE', path: '/tags/$1.data.slug' },
    { method: 'GET', path: '/tags/$2.data.slug' },
  ]);
  assert.is(noBody.status, 400, noBody.text);
  assert.is(noBody.body.operation, 3);
  assert.match(noBody.body.detail, 'without a body');
  const objectInPath = await batch([{ method: 'POST', path: '/tags', body: { slug: unique('t'), label: 'x' } }, { method: 'GET', path: '/tags/$1.data' }]);
  assert.is(objectInPath.status, 400, objectInPath.text);
});

test('references repeating a large value are refused for their operation as soon as its body passes MAX_BODY_BYTES (413) or its path MAX_HEADER_BYTES (431)', async () => {
  // 600 copies of a 1 MB response were written out before the body was measured: a 600 MB text, a RangeError (500).
  const post = await big();
  const name = unique('Amplified');
  const started = performance.now();
  const r = await batch([
    { method: 'POST', path: '/projects', body: { name } },
    { method: 'GET', path: `/posts/${post}` },
    { method: 'PATCH', path: '/projects/$1.data.id', body: { name: Array.from({ length: 600 }, () => '$2') } },
  ]);
  const ms = performance.now() - started;
  assert.is(r.status, 413, r.text.slice(0, 300));
  assert.is(r.body.code, 'E_PAYLOAD_TOO_LARGE');
  assert.is(r.body.operation, 3);
  assert.match(r.body.detail, /references resolved.*MAX_BODY_BYTES/);
  assert.is(await projectsNamed(name), 0);
  assert.ok(ms < 5_000, `answered in ${Math.round(ms)} ms`);
  // In a path, a 1 MB text is more than any request line holds: 2,000 of them made a path of 2 GB.
  const path = await batch([{ method: 'GET', path: `/posts/${post}` }, { method: 'GET', path: '/tags?slug[in]=$1.data.body' }]);
  assert.is(path.status, 431, path.text.slice(0, 300));
  assert.is(path.body.code, 'E_HEADERS_TOO_LARGE');
  assert.is(path.body.operation, 2);
  assert.match(path.body.detail, /references resolved.*MAX_HEADER_BYTES/);
  // Within the limit references still resolve, however many: 200 copies of a short text.
  const within = await batch([
    { method: 'POST', path: '/projects', body: { name } },
    { method: 'POST', path: '/projects/$1.data.id/posts', body: { id: unique('p'), title: '$1.data.name', meta: { labels: Array.from({ length: 200 }, () => '$1.data.name') } } },
  ]);
  assert.is(within.status, 200, within.text);
  assert.equal(within.body.results[1].body.data.meta.labels, Array.from({ length: 200 }, () => name));
});

test('a batch whose operations\' response bodies pass MAX_BATCH_RESPONSE_BYTES is 413 and rolled back; its Idempotency-Key keeps nothing', async () => {
  const post = await big();
  const name = unique('Answers');
  const key = unique('answer-key');
  const ops = [
    { method: 'POST', path: '/projects', body: { name } },
    { method: 'GET', path: `/posts/${post}` },
    { method: 'GET', path: `/posts/${post}?include=id,body` },
  ];
  const r = await api.post('/batch', { operations: ops }, { headers: { 'Idempotency-Key': key } });
  assert.is(r.status, 413, r.text.slice(0, 300));
  assert.is(r.headers.get('content-type'), 'application/problem+json');
  assert.is(r.body.code, 'E_PAYLOAD_TOO_LARGE');
  assert.match(r.body.detail, `more than ${MAX_ANSWER} bytes at operation 3 (MAX_BATCH_RESPONSE_BYTES)`);
  assert.match(r.body.hint, /split the batch/i);
  assert.is(r.body.instance, `${api.basePath}/batch`);
  assert.is(await projectsNamed(name), 0, 'the project of operation 1 was rolled back');
  assert.is(Number((await api.db.sql`select count(*)::int as n from lib.idempotency where key = ${key}`)[0]!.n), 0, 'no answer kept for the key');
  // The same key may carry the smaller batch, which is answered and kept.
  const smaller = await api.post('/batch', { operations: ops.slice(0, 2) }, { headers: { 'Idempotency-Key': key } });
  assert.is(smaller.status, 200, smaller.text.slice(0, 300));
  assert.is(await projectsNamed(name), 1);
});

test('the cap: more than MAX_BATCH_OPERATIONS operations is 413, before anything runs', async () => {
  const name = unique('Cap');
  const ops = Array.from({ length: MAX + 1 }, (_, i) => ({ method: 'POST', path: '/projects', body: { name: `${name}-${i}` } }));
  const r = await batch(ops);
  assert.is(r.status, 413, r.text);
  assert.is(r.body.code, 'E_PAYLOAD_TOO_LARGE');
  assert.match(r.body.detail, 'MAX_BATCH_OPERATIONS');
  assert.is(Number((await api.db.sql`select count(*)::int as n from app.projects where name like ${name + '%'}`)[0]!.n), 0);
  const atCap = await batch(ops.slice(0, MAX));
  assert.is(atCap.status, 200, atCap.text);
});

test('what is not an operation of a batch is 400 naming it; a malformed batch body is 400', async () => {
  const cases: Array<[unknown, number | undefined, RegExp]> = [
    [{ method: 'POST', path: '/.well-known/upload', body: { filename: 'a.png', contentType: 'image/png' } }, 1, /batch holds API operations/],
    [{ method: 'POST', path: '/batch', body: { operations: [] } }, 1, /batch holds API operations/],
    [{ method: 'GET', path: '/openapi.json' }, 1, /batch holds API operations/],
    [{ method: 'DELETE', path: '/tags/x', body: {} }, 1, /takes no body/],
    [{ method: 'HEAD', path: '/tags' }, 1, /method/],
    [{ method: 'GET', path: 'tags' }, 1, /path/],
    [{ method: 'GET', path: '/tags', headers: { Authorization: 'Bearer x' } }, 1, /Authorization/],
    [{ method: 'GET', path: '/tags', extra: 1 }, 1, /extra/],
  ];
  for (const [op, operation, detail] of cases) {
    const r = await batch([{ method: 'GET', path: '/tags' }, op].slice(operation === 1 ? 1 : 0));
    assert.is(r.status, 400, `${JSON.stringify(op)}: ${r.text}`);
    assert.is(r.body.operation, operation, JSON.stringify(op));
    assert.match(r.body.detail, detail);
  }
  assert.is((await batch([])).status, 400);
  assert.is((await api.post('/batch', { operations: {} })).status, 400);
  assert.is((await api.post('/batch', { ops: [] })).status, 400);
  assert.is((await api.post('/batch')).status, 400);
  const get = await api.get('/batch');
  assert.is(get.status, 405);
  assert.is(get.headers.get('allow'), 'POST');
  assert.is((await batch([{ method: 'PUT', path: '/tags' }])).status, 405);
  assert.is((await batch([{ method: 'GET', path: '/nothing-here' }])).status, 404);
});

test('an operation header value no HTTP header can carry is 400 naming the operation; Latin-1 text is a value like any other', async () => {
  const project = (await api.post('/projects', { name: unique('Headers') })).body.data.id;
  const post = (await api.post(`/projects/${project}/posts`, { id: unique('p'), title: 'Original' })).body.data.id;
  const values: Array<[string, string]> = [
    ['If-Match', '"\u0100"'], ['If-Match', '"1"\r\nX-Evil: 1'], ['If-Match', '"\n"'], ['If-Match', '"\u0000"'], ['If-Match', '"\u{1F600}"'],
    ['If-Unmodified-Since', '\u0100'], ['If-Unmodified-Since', 'garbage\u0001'], ['if-unmodified-since', 'Sat, 01 Jan 2000 00:00:00 GMT\u007f'],
  ];
  for (const [header, value] of values) {
    const r = await batch([
      { method: 'GET', path: `/posts/${post}` },
      { method: 'PATCH', path: `/posts/${post}`, headers: { [header]: value }, body: { title: 'Changed' } },
    ]);
    assert.is(r.status, 400, `${header}: ${JSON.stringify(value)}: ${r.text}`);
    assert.is(r.body.operation, 2);
    assert.match(r.body.detail, new RegExp(`^Header "${header}"`));
  }
  // obs-text (\u0080-\u00ff) is a header byte: judged as its own request would be, a tag that matches nothing.
  const latin1 = await batch([{ method: 'PATCH', path: `/posts/${post}`, headers: { 'If-Match': '"\u00e9"' }, body: { title: 'Changed' } }]);
  assert.is(latin1.status, 412, latin1.text);
  assert.is((await api.get(`/posts/${post}`)).body.data.title, 'Original');
});

test('bulk create: an array body creates every record, in order, under the same rules', async () => {
  const project = (await api.post('/projects', { name: unique('Bulk') })).body.data.id;
  const ids = [unique('b'), unique('b'), unique('b')];
  const r = await api.post(`/projects/${project}/posts?include=id,project_id,version,status`, ids.map((id, i) => ({ id, title: `Post ${i}`, version: 9 })));
  assert.is(r.status, 201, r.text);
  assert.equal(r.body.data, ids.map((id) => ({ id, project_id: project, version: 1, status: 'draft' })));
  for (const id of ids) assert.is((await api.get(`/posts/${id}`)).status, 200);
  // One element's rule (an author may not create tags) refuses the whole request.
  const author = await api.token({ sub: unique('author'), roles: ['author'] });
  const refused = await api.post('/tags', [{ slug: unique('t'), label: 'x' }], { token: author });
  assert.is(refused.status, 403, refused.text);
});

test('bulk create is all or nothing: the failing element\'s index and problem, no record written', async () => {
  const slugs = [unique('bt'), unique('bt'), unique('bt')];
  const dup = await api.post('/tags', [{ slug: slugs[0], label: 'A' }, { slug: slugs[1], label: 'B' }, { slug: slugs[0], label: 'again' }]);
  assert.is(dup.status, 409, dup.text);
  assert.is(dup.body.code, 'E_UNIQUE_VIOLATION');
  assert.is(dup.body.index, 2);
  const invalid = await api.post('/tags', [{ slug: slugs[0], label: 'A' }, { slug: 'Not A Slug', label: 'B' }]);
  assert.is(invalid.status, 422, invalid.text);
  assert.is(invalid.body.index, 1);
  const missing = await api.post('/tags', [{ slug: slugs[2], label: 'A' }, { slug: slugs[1] }]);
  assert.is(missing.status, 422, missing.text);
  assert.is(missing.body.index, 1);
  assert.equal(missing.body.errors.map((e: any) => e.property), ['label']);
  const project = (await api.post('/projects', { name: unique('Status') })).body.data.id;
  const status = await api.post(`/projects/${project}/posts`, [{ id: unique('s'), title: 'ok' }, { id: unique('s'), title: 'no', status: 'published' }]);
  assert.is(status.status, 422, status.text);
  assert.is(status.body.index, 1, 'initialStatuses is checked in SQL, per element');
  const rows = await api.db.sql`select slug from app.tags where slug in ${api.db.sql(slugs)}`;
  assert.is(rows.length, 0, 'no element of a failed bulk create was written');
  assert.is(Number((await api.db.sql`select count(*)::int as n from app.posts where project_id = ${project}`)[0]!.n), 0);
});

test('bulk create: the cap, an empty array and non-object elements are refused', async () => {
  const over = await api.post('/tags', Array.from({ length: MAX + 1 }, (_, i) => ({ slug: unique(`c${i}`), label: 'x' })));
  assert.is(over.status, 413, over.text);
  assert.match(over.body.detail, 'MAX_BATCH_OPERATIONS');
  assert.is((await api.post('/tags', [])).status, 400);
  const mixed = await api.post('/tags', [{ slug: unique('m'), label: 'x' }, 'nope']);
  assert.is(mixed.status, 400, mixed.text);
  assert.match(mixed.body.detail, 'Element 1');
  assert.is((await api.put('/tags/x', [{ label: 'x' }])).status, 400, 'only create takes an array');
});

test.run();
