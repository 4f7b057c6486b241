// The s3 driver when storage fails: s3rver stopped in the middle of an update that replaces a file and of a
// permanent delete. No record may point at a missing object, and old objects go once storage is back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertProblem } from '../e2e/support/problem.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import type { Storage } from '../../server/files/storage.ts';
import { dataOf, movableClock, startS3, storedBlock, upload, type FakeS3 } from './support.ts';

/** The s3 driver with a hook that runs once right after the next successful copy and its check (a head of the copy). */
class Hooked implements Storage {
  readonly driver = 's3' as const;
  afterCopy: (() => Promise<void>) | undefined;
  #copied: string | undefined;
  constructor(private readonly inner: Storage) {}
  signPut: Storage['signPut'] = (...a) => this.inner.signPut(...a);
  signGet: Storage['signGet'] = (...a) => this.inner.signGet(...a);
  delete: Storage['delete'] = (k) => this.inner.delete(k);
  async copy(from: string, to: string): Promise<void> {
    await this.inner.copy(from, to);
    this.#copied = to;
  }
  async head(key: string): ReturnType<Storage['head']> {
    const found = await this.inner.head(key);
    if (key === this.#copied) {
      this.#copied = undefined;
      const hook = this.afterCopy;
      this.afterCopy = undefined;
      await hook?.();
    }
    return found;
  }
}

let api: RunningApi;
let s3: FakeS3;
let storage: Hooked;
let project = '';
const clock = movableClock();
test.before(async () => {
  s3 = await startS3();
  storage = new Hooked(s3.storage);
  api = await startApi('examples/publishing.model.json', { storage, clock });
  project = dataOf(await api.post('/projects', { name: 'Faults' }), 201).id;
});
test.after(async () => {
  await api?.close();
  await s3?.close();
});

const outbox = async () => (await api.db.sql`select location, attempts from lib.file_outbox where token is null order by id`).map((r) => r.location as string);

/** Every file a post holds exists in storage (storage must be up). */
async function noDanglingFiles(): Promise<void> {
  const rows = await api.db.sql`select id, cover, attachment from app.posts`;
  for (const row of rows) {
    for (const block of [row.cover, row.attachment]) {
      if (block) assert.ok(await storage.head(block.location), `post ${row.id} points at ${block.location}, which exists`);
    }
  }
}

/** Storage back up: a drain later than any backoff deletes what waited. */
async function restartAndDrain(): Promise<void> {
  await s3.start();
  clock.advance(90);
  try {
    const report = await api.files.drain();
    assert.is(report.failed, 0);
  } finally {
    clock.reset();
  }
}

test('storage stops after the copy of a replacing update: the update commits, the old file waits, then goes', async () => {
  const first = await upload(api, { name: 'one.png' });
  dataOf(await api.post(`/projects/${project}/posts`, { id: 'f1', title: 'Faulty', cover: first.ref }), 201);
  await api.files.drain();
  const old = await storedBlock(api, 'posts', 'id', 'f1', 'cover');
  const second = await upload(api, { name: 'two.png' });
  storage.afterCopy = () => s3.stop();
  const reply = await api.patch('/posts/f1', { cover: second.ref });
  assert.is(dataOf(reply).cover.name, 'two.png');
  await api.files.drain();
  const [waiting] = await api.db.sql`select attempts, last_error, next_attempt_at > now() as later from lib.file_outbox where location = ${old.location}`;
  assert.ok(waiting && waiting.attempts >= 1, 'the deletion failed while storage was down and waits in the outbox');
  assert.ok(waiting.last_error && waiting.later, `the failure is recorded and the retry put off: ${JSON.stringify(waiting)}`);
  await restartAndDrain();
  assert.is(await storage.head(old.location), undefined, 'the old file is deleted once storage is back');
  assert.equal(await outbox(), []);
  await noDanglingFiles();
});

test('storage stops before or during the checks and copy: 503, the record keeps its file', async () => {
  const before = await storedBlock(api, 'posts', 'id', 'f1', 'cover');
  const third = await upload(api, { name: 'three.png' });
  await s3.stop();
  assertProblem(await api.put('/posts/f1', { title: 'Faulty', cover: third.ref }), 503, api.docsUrl, { code: 'E_UNAVAILABLE' });
  await s3.start();
  assert.equal(await storedBlock(api, 'posts', 'id', 'f1', 'cover'), before);
  await noDanglingFiles();
  assert.is((await api.db.sql`select used_at from lib.uploads where token = ${third.ref}`)[0]!.used_at, null, 'the reference can be used again');
  dataOf(await api.patch('/posts/f1', { cover: third.ref }));
  await api.files.drain();
  assert.is(await storage.head(before.location), undefined);
  api.serverErrors.length = 0; // the 503 was logged, as it should be
});

test('storage stops after the copy and the write fails: the copy is deleted once its reservation is due', async () => {
  const before = await storedBlock(api, 'posts', 'id', 'f1', 'cover');
  const fourth = await upload(api, { name: 'four.png' });
  storage.afterCopy = () => s3.stop();
  const stale = await api.patch('/posts/f1', { cover: fourth.ref }, { headers: { 'If-Match': '"999"' } });
  assertProblem(stale, 412, api.docsUrl);
  const [reserved] = await api.db.sql`select location from lib.file_outbox where token = ${fourth.ref}`;
  await s3.start();
  assert.equal(await storedBlock(api, 'posts', 'id', 'f1', 'cover'), before, 'the record is unchanged');
  assert.ok(await storage.head(reserved!.location), 'the copy could not be undone while storage was down');
  await api.files.drain();
  assert.ok(await storage.head(reserved!.location), 'a reservation is not due before its hour');
  await restartAndDrainLater();
  assert.is(await storage.head(reserved!.location), undefined, 'the orphan copy is gone');
  await noDanglingFiles();
});

async function restartAndDrainLater(): Promise<void> {
  await api.db.sql`update lib.file_outbox set next_attempt_at = now() - interval '1 second' where token is not null`;
  assert.is((await api.files.drain()).failed, 0);
}

test('storage stops before a permanent delete: 204, the files wait in the outbox, then go', async () => {
  const cover = await storedBlock(api, 'posts', 'id', 'f1', 'cover');
  await s3.stop();
  assert.is((await api.del('/posts/f1?permanent=true')).status, 204);
  await api.files.drain();
  assert.ok((await outbox()).includes(cover.location));
  await restartAndDrain();
  assert.is(await storage.head(cover.location), undefined);
  assert.is((await api.db.sql`select count(*)::int as n from app.posts where id = 'f1'`)[0]!.n, 0);
});

test('never-attached uploads are swept after their window: intent row and tmp/ object', async () => {
  const up = await upload(api, { name: 'forgotten.png' });
  const [row] = await api.db.sql`select tmp_key from lib.uploads where token = ${up.ref}`;
  assert.ok(await storage.head(row!.tmp_key));
  assert.is(await api.files.sweep(), 0, 'nothing is swept within the window');
  await api.db.sql`update lib.uploads set expires_at = now() - interval '61 minutes' where token = ${up.ref}`;
  assert.is(await api.files.sweep(), 1);
  assert.is((await api.db.sql`select count(*)::int as n from lib.uploads where token = ${up.ref}`)[0]!.n, 0);
  assert.is(await storage.head(row!.tmp_key), undefined);
});

test('s3: a PUT with another Content-Type than declared is caught on attach; an expired address is refused', async () => {
  const liar = await upload(api, { name: 'liar.png', type: 'image/png', putType: 'image/jpeg' });
  const reply = await api.post(`/projects/${project}/posts`, { id: 'f2', title: 'Liar', cover: liar.ref });
  assertProblem(reply, 422, api.docsUrl, { code: 'E_FILE_TYPE_NOT_ALLOWED', names: ['image/jpeg'] });
  clock.advance(-16);
  const late = dataOf(await api.post('/.well-known/upload', { filename: 'late.png', contentType: 'image/png' }), 201);
  clock.reset();
  const put = await fetch(late.upload_url, { method: 'PUT', body: 'x', headers: { 'Content-Type': 'image/png' } });
  assert.is(put.status, 403);
  assert.match(await put.text(), 'expired');
});

test('no request caused a server error', () => {
  assert.equal(api.serverErrors, []);
});

test.run();
