// Attaches racing other requests, with both drivers; each race is made to come out one way by holding the
// real driver's copies: one reference attached by several writes at once, a re-PUT during an attach, a PUT after.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalStorage } from '../../server/files/local.ts';
import type { Storage } from '../../server/files/storage.ts';
import { assertProblem } from '../e2e/support/problem.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import { dataOf, movableClock, putBytes, startS3, storedBlock, upload, type FakeS3 } from './support.ts';

/** Each copy of `storage` (the real driver, changed in place so the gateway still serves local addresses) waits for `before`. */
function holdCopies(storage: Storage): { before: (() => Promise<void>) | undefined } {
  const held: { before: (() => Promise<void>) | undefined } = { before: undefined };
  const copy = storage.copy.bind(storage);
  storage.copy = async (from, to) => {
    await held.before?.();
    return copy(from, to);
  };
  return held;
}

/** A promise and the function that settles it. */
function signal(): { promise: Promise<void>; settle: () => void } {
  let settle!: () => void;
  const promise = new Promise<void>((r) => { settle = r; });
  return { promise, settle };
}

/** Over cover's maxSizeInBytes (2 MiB), within the upload cap (10 MiB). */
const TOO_LARGE = new Uint8Array(2 * 1024 * 1024 + 1);

function races(driver: 'local' | 's3') {
  const test = suite(`file races (${driver})`);
  let api: RunningApi;
  let s3: FakeS3 | undefined;
  let dir = '';
  let copies: ReturnType<typeof holdCopies>;
  let project = '';
  let n = 0;
  const clock = movableClock();
  const newPost = async () => dataOf(await api.post(`/projects/${project}/posts`, { id: `race-${++n}`, title: 'Race' }), 201).id as string;
  const tmpKey = async (ref: string) => (await api.db.sql`select tmp_key from lib.uploads where token = ${ref}`)[0]!.tmp_key as string;
  const reserved = async (ref: string) => (await api.db.sql`select location from lib.file_outbox where token = ${ref}`).map((r) => r.location as string);

  test.before(async () => {
    s3 = driver === 's3' ? await startS3() : undefined;
    dir = mkdtempSync(join(tmpdir(), 'modelapi-races-'));
    const storage = s3?.storage ?? new LocalStorage({ dir, secret: 'races-secret', basePath: '/api/publishing/v1' });
    copies = holdCopies(storage);
    api = await startApi('examples/publishing.model.json', { storage, clock });
    project = dataOf(await api.post('/projects', { name: 'Races' }), 201).id;
  });
  test.after(async () => {
    await api?.close();
    await s3?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  test.after.each(() => { copies.before = undefined; });

  test('one reference attached by four PATCHes at once: one 200, three 422 E_FILE_NOT_UPLOADED, never 503', async () => {
    const up = await upload(api);
    const posts = [await newPost(), await newPost(), await newPost(), await newPost()];
    // Every attach has its intent before any copies; the first then copies and commits, and its tmp/ object
    // is deleted before the others copy.
    const prepared = signal(), winnerDone = signal();
    let arrived = 0;
    copies.before = async () => {
      if (++arrived === posts.length) prepared.settle();
      await (arrived === 1 ? prepared.promise : winnerDone.promise);
    };
    const replies = posts.map((id) => api.patch(`/posts/${id}`, { cover: up.ref }));
    const winner = await Promise.race(replies);
    assert.is(winner.status, 200, winner.text);
    await api.files.drain();
    assert.is(await api.files.storage.head(await tmpKey(up.ref)), undefined, 'the winner\'s commit removed the tmp/ object');
    winnerDone.settle();
    const all = await Promise.all(replies);
    assert.equal(all.map((r) => r.status).sort(), [200, 422, 422, 422], all.map((r) => r.text).join('\n'));
    for (const r of all.filter((x) => x.status !== 200)) assertProblem(r, 422, api.docsUrl, { code: 'E_FILE_NOT_UPLOADED', names: ['cover'] });
    const holders = await api.db.sql`select id from app.posts where cover ->> 'id' = ${up.ref}`;
    assert.is(holders.length, 1, 'one record holds the file');
    for (const location of await reserved(up.ref)) assert.is(await api.files.storage.head(location), undefined, `the losers' copies were undone (${location})`);
  });

  test('a re-PUT of an oversized file while the attach runs: the copy is what is checked (422 E_FILE_TOO_LARGE), and it is removed', async () => {
    const up = await upload(api);
    const post = await newPost();
    copies.before = async () => {
      copies.before = undefined;
      const put = await putBytes(up.url, TOO_LARGE, 'image/png');
      assert.is(put.status, 200, 'the upload address still takes PUTs');
    };
    assertProblem(await api.patch(`/posts/${post}`, { cover: up.ref }), 422, api.docsUrl, { code: 'E_FILE_TOO_LARGE', names: ['cover'] });
    assert.is(await storedBlock(api, 'posts', 'id', post, 'cover'), null, 'the record holds no file');
    const [copy] = await reserved(up.ref);
    assert.ok(copy, 'the copy target stays reserved');
    assert.is(await api.files.storage.head(copy), undefined, 'the refused copy was removed');
  });

  test('a PUT to the upload address after the attach: its tmp/ object is deleted once the attach window closed', async () => {
    const up = await upload(api);
    const tmp = await tmpKey(up.ref);
    dataOf(await api.patch(`/posts/${await newPost()}`, { cover: up.ref }));
    await api.files.drain();
    assert.is(await api.files.storage.head(tmp), undefined, 'deleted after the attach');
    assert.is((await putBytes(up.url, TOO_LARGE, 'image/png')).status, 200, 'the upload address still takes PUTs');
    assert.ok(await api.files.storage.head(tmp), 'the late PUT made the tmp/ object again');
    await api.files.drain();
    clock.advance(15 + 60 + 1); // the upload address expired, and its attach window (an hour more) closed
    try {
      await api.files.drain();
    } finally {
      clock.reset();
    }
    assert.is(await api.files.storage.head(tmp), undefined, 'no tmp/ object outlives the attach window');
  });

  test('no request caused a server error', () => {
    assert.equal(api.serverErrors, []);
  });
  return test;
}

races('local').run();
races('s3').run();
