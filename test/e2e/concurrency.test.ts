// Spec 2.6, 3.2, 4.4 and part 7 over HTTP: strong ETags, If-Match (list, *), If-Unmodified-Since,
// the body version lock, 304, sub-resource PUTs advancing their owner's ETag, recovery, and races.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
let project: string;
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  project = (await api.call('POST', '/projects', { body: { name: 'Concurrency' } })).body.data.id;
});
test.after(async () => api?.close());

let n = 0;
/** A fresh record of each kind: Post has a Version property (ETag "<version>"), Project does not. */
const kinds = {
  post: {
    create: async () => api.call('POST', '/posts', { body: { id: `c${++n}`, title: 'T', project_id: project, version: 42 } }),
    path: (id: string) => `/posts/${id}`,
    put: (title: string) => ({ title }),
  },
  project: {
    create: async () => api.call('POST', '/projects', { body: { name: `P${++n}` } }),
    path: (id: string) => `/projects/${id}`,
    put: (name: string) => ({ name }),
  },
} as const;

const body = (kind: keyof typeof kinds, method: string, text: string) =>
  method === 'PUT' ? kinds[kind].put(text) : kind === 'post' ? { title: text } : { name: text };
const etagOf = (r: { headers: Headers }) => r.headers.get('etag')!;

function assertPrecondition(r: any, supplied: string) {
  assert.is(r.status, 412, r.text);
  assert.is(r.headers.get('content-type'), 'application/problem+json');
  assert.is(r.body.type, `${api.docsUrl}/errors/precondition-failed`);
  assert.is(r.body.title, 'Precondition Failed');
  assert.is(r.body.code, 'E_PRECONDITION_FAILED');
  assert.match(r.body.detail, supplied);
  assert.ok(r.body.hint && /fetch/i.test(r.body.hint), 'hint advises fetching the latest resource');
  assert.is(r.body.instance, r.path);
}

for (const kind of ['post', 'project'] as const) {
  test(`${kind}: create returns a strong ETag${kind === 'post' ? ' "1" (client version discarded)' : ''}; reads add Last-Modified; If-None-Match gives 304`, async () => {
    const created = await kinds[kind].create();
    assert.is(created.status, 201, created.text);
    const tag = etagOf(created);
    assert.match(tag, /^"[^"]+"$/);
    if (kind === 'post') assert.is(tag, '"1"');
    const read = await api.call('GET', kinds[kind].path(created.body.data.id));
    assert.is(etagOf(read), tag);
    assert.ok(!Number.isNaN(Date.parse(read.headers.get('last-modified')!)));
    const again = await api.call('GET', kinds[kind].path(created.body.data.id), { headers: { 'If-None-Match': tag } });
    assert.is(again.status, 304);
    assert.is(etagOf(again), tag);
  });

  for (const method of ['PATCH', 'PUT'] as const) {
    test(`${kind} ${method}: no If-Match or a matching one applies with a new ETag; a stale one is 412 and changes nothing`, async () => {
      const created = await kinds[kind].create();
      const path = kinds[kind].path(created.body.data.id);
      const first = await api.call(method, path, { body: body(kind, method, 'a') });
      assert.is(first.status, 200, first.text);
      assert.is.not(etagOf(first), etagOf(created));
      const second = await api.call(method, path, { body: body(kind, method, 'b'), headers: { 'If-Match': `"nope", ${etagOf(first)}` } });
      assert.is(second.status, 200, second.text);
      if (kind === 'post') assert.equal([etagOf(first), etagOf(second)], ['"2"', '"3"']);
      const stale = await api.call(method, path, { body: body(kind, method, 'lost'), headers: { 'If-Match': etagOf(first) } });
      assertPrecondition(stale, etagOf(second).slice(1, -1));
      const now = await api.call('GET', path);
      assert.is(etagOf(now), etagOf(second));
      // Recovery (part 7): fetch again, take the new ETag, resend.
      const retry = await api.call(method, path, { body: body(kind, method, 'c'), headers: { 'If-Match': etagOf(now) } });
      assert.is(retry.status, 200, retry.text);
    });

    test(`${kind} ${method}: If-Match * needs the record; If-Unmodified-Since before the change is 412, at Last-Modified applies`, async () => {
      const missing = await api.call(method, kinds[kind].path(kind === 'post' ? 'no-such' : 'no-such'), { body: body(kind, method, 'x'), headers: { 'If-Match': '*' } });
      assertPrecondition(missing, '*');
      const created = await kinds[kind].create();
      const path = kinds[kind].path(created.body.data.id);
      assert.is((await api.call(method, path, { body: body(kind, method, 'x'), headers: { 'If-Match': '*' } })).status, 200);
      const past = await api.call(method, path, { body: body(kind, method, 'y'), headers: { 'If-Unmodified-Since': 'Sat, 01 Jan 2000 00:00:00 GMT' } });
      assertPrecondition(past, '2000-01-01');
      const modified = (await api.call('GET', path)).headers.get('last-modified')!;
      const at = await api.call(method, path, { body: body(kind, method, 'z'), headers: { 'If-Unmodified-Since': modified } });
      assert.is(at.status, 200, at.text);
      // RFC 9110 13.2.2: ignored when If-Match is present.
      const both = await api.call(method, path, { body: body(kind, method, 'w'), headers: { 'If-Match': etagOf(at), 'If-Unmodified-Since': 'Sat, 01 Jan 2000 00:00:00 GMT' } });
      assert.is(both.status, 200, both.text);
    });
  }

  test(`${kind} DELETE: a stale If-Match is 412; the current one deletes`, async () => {
    const created = await kinds[kind].create();
    const path = kinds[kind].path(created.body.data.id);
    const moved = await api.call('PATCH', path, { body: body(kind, 'PATCH', 'm') });
    assertPrecondition(await api.call('DELETE', path, { headers: { 'If-Match': etagOf(created) } }), etagOf(moved).slice(1, -1));
    assert.is((await api.call('DELETE', path, { headers: { 'If-Match': etagOf(moved) } })).status, 204);
    assert.is((await api.call('GET', path)).status, 404);
  });
}

test('reads judge their preconditions too (RFC 9110 13.2.2): If-Match, If-Unmodified-Since (412), If-Modified-Since (304)', async () => {
  const created = await kinds.post.create();
  const path = kinds.post.path(created.body.data.id);
  const tag = etagOf(created);
  const read = await api.call('GET', path);
  const modified = read.headers.get('last-modified')!;
  assert.is((await api.call('GET', path, { headers: { 'If-Match': tag } })).status, 200);
  assert.is((await api.call('GET', path, { headers: { 'If-Match': '*' } })).status, 200);
  assertPrecondition(await api.call('GET', path, { headers: { 'If-Match': '"7"' } }), '"7"');
  assertPrecondition(await api.call('GET', path, { headers: { 'If-Match': `W/${tag}` } }), `the request supplied W/${tag}`); // named as sent
  const earlier = new Date(Date.parse(modified) - 60_000).toUTCString();
  assertPrecondition(await api.call('GET', path, { headers: { 'If-Unmodified-Since': earlier } }), 'If-Unmodified-Since');
  assert.is((await api.call('GET', path, { headers: { 'If-Unmodified-Since': modified } })).status, 200);
  assert.is((await api.call('GET', path, { headers: { 'If-Match': tag, 'If-Unmodified-Since': earlier } })).status, 200, 'If-Match decides alone');
  const since = await api.call('GET', path, { headers: { 'If-Modified-Since': modified } });
  assert.is(since.status, 304);
  assert.is(etagOf(since), tag);
  assert.is((await api.call('GET', path, { headers: { 'If-Modified-Since': earlier } })).status, 200);
  assert.is((await api.call('GET', path, { headers: { 'If-None-Match': '"other"', 'If-Modified-Since': modified } })).status, 200, 'If-None-Match decides alone');  for (const invalid of ['0000-01-01', 'not a date', '+010000-01-01T00:00:00Z']) { // an invalid date is ignored (13.1.4)
    assert.is((await api.call('GET', path, { headers: { 'If-Unmodified-Since': invalid } })).status, 200, invalid);
    assert.is((await api.call('PATCH', path, { body: { title: 'Same' }, headers: { 'If-Unmodified-Since': invalid } })).status, 200, invalid);
  }
});

test('only a valid HTTP-date is a date (RFC 9110 5.6.7, 13.1.3, 13.1.4): what Date.parse reads leniently is ignored, the obsolete forms and years below 100 are read', async () => {
  const created = await kinds.post.create();
  const path = kinds.post.path(created.body.data.id);
  const modified = (await api.call('GET', path)).headers.get('last-modified')!;
  // Date.parse reads these as 2000, 2001 (twice), 2001-02 and 3000: a 412 for each on a write, a 304 for the last.
  for (const invalid of ['0', '-1', '1', 'Version 2', 'Sat, 01 Jan 2000 00:00:00 gmt', 'Sat, 1 Jan 2000 00:00:00 GMT']) {
    assert.is((await api.call('PATCH', path, { body: { title: 'Same' }, headers: { 'If-Unmodified-Since': invalid } })).status, 200, invalid);
    assert.is((await api.call('GET', path, { headers: { 'If-Unmodified-Since': invalid } })).status, 200, invalid);
  }
  assert.is((await api.call('GET', path, { headers: { 'If-Modified-Since': '3000' } })).status, 200);
  assert.is((await api.call('GET', path, { headers: { 'If-Modified-Since': 'Thu, 01 Jan 3000 00:00:00 GMT' } })).status, 304);
  // Year 1 is year 1, not 2001 (Date.UTC's reading of 0-99); its 412 names it.
  const year1 = await api.call('PATCH', path, { body: { title: 'x' }, headers: { 'If-Unmodified-Since': 'Mon, 01 Jan 0001 00:00:00 GMT' } });
  assertPrecondition(year1, 'If-Unmodified-Since 0001-01-01');
  // The RFC 850 and asctime forms of an earlier time are dates too (412); of a later one, they let the write through.
  const earlier = new Date(Date.parse(modified) - 60_000);
  const longDay: Record<string, string> = { Sun: 'Sunday', Mon: 'Monday', Tue: 'Tuesday', Wed: 'Wednesday', Thu: 'Thursday', Fri: 'Friday', Sat: 'Saturday' };
  const parts = (d: Date) => d.toUTCString().replace(',', '').split(' ') as [string, string, string, string, string, string];
  const rfc850 = (d: Date) => { const [day, dd, mon, yyyy, time] = parts(d); return `${longDay[day]}, ${dd}-${mon}-${yyyy.slice(2)} ${time} GMT`; };
  const asctime = (d: Date) => { const [day, dd, mon, yyyy, time] = parts(d); return `${day} ${mon} ${dd.replace(/^0/, ' ')} ${time} ${yyyy}`; };
  for (const form of [rfc850, asctime]) {
    assertPrecondition(await api.call('PATCH', path, { body: { title: 'x' }, headers: { 'If-Unmodified-Since': form(earlier) } }), 'If-Unmodified-Since');
    const later = form(new Date(Date.now() + 3_600_000));
    assert.is((await api.call('PATCH', path, { body: { title: 'Same' }, headers: { 'If-Unmodified-Since': later } })).status, 200, later);
  }
  // A batch operation's header is read by the same rule.
  const batch = await api.call('POST', '/batch', { body: { operations: [{ method: 'PATCH', path, headers: { 'If-Unmodified-Since': '0' }, body: { title: 'Batch' } }] } });
  assert.is(batch.status, 200, batch.text);
  assert.is(batch.body.results[0].status, 200);
});

test('If-Match * on a soft-deleted record is 412: it no longer exists for the API', async () => {
  const created = await kinds.post.create();
  const path = kinds.post.path(created.body.data.id);
  assert.is((await api.call('DELETE', path)).status, 204);
  assertPrecondition(await api.call('PATCH', path, { body: { title: 'x' }, headers: { 'If-Match': '*' } }), '*');
  assert.is((await api.call('PATCH', path, { body: { title: 'x' } })).status, 404);
});

test('restore judges If-Match and If-Unmodified-Since as any write (spec 7: a stale If-Match is 412); nothing is restored on a 412', async () => {
  const created = await kinds.post.create();
  const path = kinds.post.path(created.body.data.id);
  const tag = etagOf(created);
  const read = await api.call('GET', path);
  assert.is((await api.call('DELETE', path, { headers: { 'If-Match': tag } })).status, 204);
  assertPrecondition(await api.call('POST', `${path}/restore`, { headers: { 'If-Match': '"7"' } }), `its current ETag is ${tag}`);
  const earlier = new Date(Date.parse(read.headers.get('last-modified')!) - 60_000).toUTCString();
  assertPrecondition(await api.call('POST', `${path}/restore`, { headers: { 'If-Unmodified-Since': earlier } }), 'If-Unmodified-Since');
  assert.is((await api.call('GET', path)).status, 404, 'still deleted after the 412s');
  assertPrecondition(await api.call('POST', `${kinds.post.path('no-such')}/restore`, { headers: { 'If-Match': '*' } }), '*');
  const restored = await api.call('POST', `${path}/restore`, { headers: { 'If-Match': tag } });
  assert.is(restored.status, 200, restored.text);
  const now = etagOf(restored);
  assert.is.not(now, tag, 'a restore is a write: a new ETag');
  // A live record is answered as it is, and judged as a read: a stale If-Match is 412, the current one 200.
  assertPrecondition(await api.call('POST', `${path}/restore`, { headers: { 'If-Match': tag } }), `its current ETag is ${now}`);
  assert.is((await api.call('POST', `${path}/restore`, { headers: { 'If-Match': now } })).status, 200);
  assert.is((await api.call('POST', `${path}/restore`, { headers: { 'If-Match': '*' } })).status, 200);
});

test('post body version: the current one applies (not written as the version); a stale one is 409; others 422', async () => {
  const created = await kinds.post.create();
  const path = kinds.post.path(created.body.data.id);
  for (const method of ['PATCH', 'PUT'] as const) {
    const current = Number(etagOf(await api.call('GET', path)).slice(1, -1));
    const ok = await api.call(method, path, { body: { title: method, version: current } });
    assert.is(ok.status, 200, ok.text);
    assert.is(ok.body.data.version, current + 1);
    const stale = await api.call(method, path, { body: { title: 'lost', version: current } });
    assert.is(stale.status, 409, stale.text);
    assert.is(stale.body.type, `${api.docsUrl}/errors/conflict`);
    assert.is(stale.body.title, 'Conflict');
    assert.is(stale.body.code, 'E_CONCURRENCY_CONFLICT');
    assert.match(stale.body.detail, 'modified by another user');
    for (const bad of ['3', 1.5, 0, -1, true, null, [2], {}]) { // null is no positive integer either (spec 7, 8)
      const r = await api.call(method, path, { body: { title: 'bad', version: bad } });
      assert.is(r.status, 422, `${method} version ${JSON.stringify(bad)}: ${r.text}`);
      assert.is(r.body.code, 'E_VALIDATION_ERROR');
    }
  }
  assert.is((await api.call('GET', path)).body.data.title, 'PUT');
});

test('post create: any version in the body is discarded, whatever its value (spec 2.6, 3.2): 201 at version 1', async () => {
  // A value that is no integer the column holds (1.5, 2^40, true, an object) was cast with the body and was 400.
  for (const version of [7, -1, '2', 1.5, 2 ** 40, true, {}, [1], null]) {
    const r = await api.call('POST', '/posts', { body: { id: `v${++n}`, title: 'T', project_id: project, version } });
    assert.is(r.status, 201, `version ${JSON.stringify(version)}: ${r.text}`);
    assert.is(r.body.data.version, 1);
    assert.is(etagOf(r), '"1"');
  }
  const bulk = await api.call('POST', '/posts', { body: [{ id: `v${++n}`, title: 'T', project_id: project, version: 1.5 }] });
  assert.is(bulk.status, 201, bulk.text);
  assert.is(bulk.body.data[0].version, 1);
  assert.equal(api.serverErrors, []);
});

test('a sub-resource PUT advances its owner\'s ETag; a stale owner ETag is 412', async () => {
  const user = await api.call('POST', '/users', { body: { email: `sub${++n}@example.com` } });
  // A profile PUT is its user's update ("Users manage themselves"): the token's sub is the user.
  const token = await api.token({ sub: user.body.data.id });
  const before = etagOf(await api.call('GET', `/users/${user.body.data.id}`));
  const put = await api.call('PUT', `/users/${user.body.data.id}/profile`, { body: { bio: 'hello' }, token, headers: { 'If-Match': before } });
  assert.is(put.status, 200, put.text);
  const after = etagOf(await api.call('GET', `/users/${user.body.data.id}`));
  assert.is.not(after, before);
  assert.is(etagOf(put), after);
  assertPrecondition(await api.call('PUT', `/users/${user.body.data.id}/profile`, { body: { bio: 'again' }, token, headers: { 'If-Match': before } }),
    after.slice(1, -1));
  // Its read judges the same ETag: the owner's.
  const profile = `/users/${user.body.data.id}/profile`;
  assert.is((await api.call('GET', profile, { token, headers: { 'If-Match': after } })).status, 200);
  assertPrecondition(await api.call('GET', profile, { token, headers: { 'If-Match': before } }), before);
  assert.is((await api.call('GET', profile, { token, headers: { 'If-None-Match': after } })).status, 304);
});

test('race: 20 concurrent PATCHes with the same If-Match: one 200, nineteen 412, version +1; without: +20', async () => {
  const created = await kinds.post.create();
  const path = kinds.post.path(created.body.data.id);
  const raced = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    api.call('PATCH', path, { body: { title: `r${i}` }, headers: { 'If-Match': '"1"' } })));
  assert.is(raced.filter((r) => r.status === 200).length, 1);
  assert.is(raced.filter((r) => r.status === 412).length, 19);
  assert.is((await api.call('GET', path)).body.data.version, 2);
  const free = await Promise.all(Array.from({ length: 20 }, (_, i) => api.call('PATCH', path, { body: { title: `f${i}` } })));
  assert.ok(free.every((r) => r.status === 200));
  assert.is((await api.call('GET', path)).body.data.version, 22);
  assert.equal(api.serverErrors, []);
});

test.run();
