// One caller cannot stall the others: a request that waits on a row lock another transaction holds gets a
// 503 problem document with Retry-After once LOCK_TIMEOUT_MS runs out, while other requests are served.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dataOf, expectStatus } from './support/http.ts';
import { problemIssues } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';

let api: RunningApi;
test.before(async () => {
  api = await startApi('examples/publishing.model.json', { limits: { lockTimeoutMs: 200 } });
  const project = dataOf(await api.post('/projects', { name: 'Locks' }), 201).id;
  dataOf(await api.post('/posts', { id: 'locked', project_id: project, title: 'Held' }), 201);
  dataOf(await api.post('/posts', { id: 'free', project_id: project, title: 'Free' }), 201);
});
test.after(async () => api?.close());

test('a PATCH on a row locked elsewhere answers 503 with Retry-After while the lock is still held; other requests go on', async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => { locked = r; });
  const holder = api.db.sql.begin(async (tx) => {
    await tx`select 1 from app.posts where id = 'locked' for update`;
    locked();
    // A safety net, never the test's clock; unref'd, so it does not keep the test process alive 15 s after the run.
    await Promise.race([held, new Promise((r) => setTimeout(r, 15_000).unref())]);
  });
  await isLocked;
  try {
    const asked = Date.now();
    const reply = await api.patch('/posts/locked', { title: 'Waiting' });
    const ms = Date.now() - asked;
    expectStatus(reply, 503);
    assert.ok(ms >= 180 && ms < 2200, `answered after ${ms} ms with LOCK_TIMEOUT_MS 200: it waited for the lock, then no longer`);
    assert.equal(problemIssues(reply, api.docsUrl, 'E_UNAVAILABLE'), []);
    assert.match(reply.body.detail, /LOCK_TIMEOUT_MS/);
    assert.is(reply.headers.get('retry-after'), '1');
    expectStatus(await api.patch('/posts/free', { title: 'Not waiting' }), 200);
    expectStatus(await api.get('/posts/locked'), 200);
  } finally {
    release();
    await holder;
  }
  expectStatus(await api.patch('/posts/locked', { title: 'After' }), 200);
  assert.equal(api.serverErrors.filter((e) => !/failed with 503/.test(e)), [], 'the timeout is logged as a 503, nothing else');
});

test.run();
