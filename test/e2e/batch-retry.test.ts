// Batches, and bulk creates, that deadlock with each other: PostgreSQL rolls one back (40P01) and the gateway runs
// it once more; the file copies of a batch's failed attempt are removed before the second makes its own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../../server/files/local.ts';
import { upload } from '../files/support.ts';
import { startApi, type RunningApi } from './support/server.ts';

const PAUSE_S = 0.3;
let api: RunningApi;
let dir = '';
test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'modelapi-batch-retry-'));
  const storage = new LocalStorage({ dir, secret: 'batch-retry-secret', basePath: '/api/publishing/v1' });
  api = await startApi('examples/publishing.model.json', { storage });
  // A post's update to a title starting "first" holds its row lock a moment longer, and is counted (a sequence
  // is not rolled back): two batches each take their first row before either asks for the other's.
  await api.db.sql.unsafe(`
    create sequence public.first_updates;
    create function public.pause_first_update() returns trigger language plpgsql security definer as $$
      begin perform nextval('public.first_updates'); perform pg_sleep(${PAUSE_S}); return null; end $$;
    create trigger pause_first_update after update on app.posts for each row
      when (new.title like 'first %') execute function public.pause_first_update();
    create trigger pause_first_insert after insert on app.posts for each row
      when (new.title like 'first %') execute function public.pause_first_update();`);
});
test.after(async () => {
  const errors = api?.serverErrors ?? [];
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
  assert.equal(errors, [], 'no request caused a 5xx');
});

let n = 0;
const unique = (prefix: string) => `${prefix}-${++n}-${Date.now().toString(36)}`;
const firstUpdates = async () => Number((await api.db.sql`select coalesce(last_value, 0)::int as n from pg_sequences where sequencename = 'first_updates'`)[0]!.n);

/** Two posts of a new project. */
async function twoPosts(): Promise<[string, string]> {
  const project = (await api.post('/projects', { name: unique('Deadlock') })).body.data.id;
  const ids: [string, string] = [unique('x'), unique('y')];
  for (const id of ids) assert.is((await api.post(`/projects/${project}/posts`, { id, title: 'T' })).status, 201);
  return ids;
}

/** Both batches at once: one updates x then y, the other y then x, each pausing after its first row. */
async function crossed(x: string, y: string, extra: { a?: object; b?: object } = {}) {
  const before = await firstUpdates();
  const [a, b] = await Promise.all([
    api.post('/batch', { operations: [
      { method: 'PATCH', path: `/posts/${x}`, body: { title: 'first A', ...extra.a } },
      { method: 'PATCH', path: `/posts/${y}`, body: { title: 'second A' } },
    ] }),
    api.post('/batch', { operations: [
      { method: 'PATCH', path: `/posts/${y}`, body: { title: 'first B', ...extra.b } },
      { method: 'PATCH', path: `/posts/${x}`, body: { title: 'second B' } },
    ] }),
  ]);
  assert.is(a.status, 200, a.text);
  assert.is(b.status, 200, b.text);
  assert.is(await firstUpdates() - before, 3, 'the first updates of both batches, and of the one run again');
  // The batch run again committed last: both rows hold its titles.
  const titles = (await api.db.sql`select id, title from app.posts where id in (${x}, ${y})`).map((r) => `${r.id}=${r.title}`).sort();
  const aLast = [`${x}=first A`, `${y}=second A`].sort(), bLast = [`${x}=second B`, `${y}=first B`].sort();
  assert.ok([aLast, bLast].some((t) => t.join() === titles.join()), titles.join());
}

test('two batches updating the same two rows in opposite order deadlock: the one rolled back runs again, and both answer 200', async () => {
  const [x, y] = await twoPosts();
  await crossed(x, y);
});

test('a deadlocked batch that attached a file runs again without leaving the first attempt\'s copy behind', async () => {
  const [x, y] = await twoPosts();
  const [fileA, fileB] = [await upload(api, { name: 'a.png' }), await upload(api, { name: 'b.png' })];
  await crossed(x, y, { a: { cover: fileA.ref }, b: { cover: fileB.ref } });
  const covers = await api.db.sql`select id, cover->>'name' as name, cover->>'location' as location from app.posts where id in (${x}, ${y}) order by id`;
  assert.equal(covers.map((r) => r.name), ['a.png', 'b.png']);
  const stored = readdirSync(join(dir, 'uploads')).filter((f) => !f.endsWith('.json')).map((f) => `uploads/${f}`).sort();
  assert.equal(stored, covers.map((r) => r.location).sort(), 'uploads/ holds the two attached copies only');
});

test('two bulk creates inserting the same two keys in opposite order deadlock: the one rolled back runs again and meets the other\'s rows (409, not 503)', async () => {
  const project = (await api.post('/projects', { name: unique('Bulk deadlock') })).body.data.id;
  const [x, y] = [unique('bx'), unique('by')];
  const [a, b] = await Promise.all([
    api.post(`/projects/${project}/posts`, [{ id: x, title: 'first A' }, { id: y, title: 'second A' }]),
    api.post(`/projects/${project}/posts`, [{ id: y, title: 'first B' }, { id: x, title: 'second B' }]),
  ]);
  assert.equal([a.status, b.status].sort(), [201, 409], `${a.text}\n${b.text}`);
  const loser = a.status === 409 ? a : b;
  assert.is(loser.body.code, 'E_UNIQUE_VIOLATION');
  const titles = (await api.db.sql`select title from app.posts where id in (${x}, ${y}) order by title`).map((r) => r.title);
  assert.ok(['first A,second A', 'first B,second B'].includes(titles.join()), titles.join());
});

test.run();
