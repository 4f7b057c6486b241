// Record history (design 9) over the real gateway: versions after create, patch, PUT, soft delete and restore,
// newest first; one version; the GET's refusal for a caller who may not read the record; nested paths; going back
// with If-Match; `history: false`; and keepDays against the log's retention when the log is pruned.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { testApi } from '../harness/fixtures.ts';
import { dataOf, expectStatus } from './support/http.ts';
import { assertProblem } from './support/problem.ts';
import { startApi, type RunningApi } from './support/server.ts';
import { download, upload } from '../files/support.ts';

let pub: RunningApi;
let own: RunningApi;
let project = '';
test.before(async () => {
  pub = await startApi('examples/publishing.model.json');
  project = dataOf(await pub.post('/projects', { name: 'Main' }), 201).id;
  own = await startApi({
    api: testApi('history'),
    entities: {
      Memo: {
        collection: 'memos',
        history: { keepDays: 2 },
        properties: { id: { type: 'String', primary: true }, text: { type: 'String' }, version: { type: 'Number', modules: { Version: {} } } },
      },
      Draft: {
        collection: 'drafts',
        history: false,
        properties: { id: { type: 'String', primary: true }, text: { type: 'String' }, version: { type: 'Number', modules: { Version: {} } } },
      },
      Note: {
        collection: 'notes',
        properties: { id: { type: 'String', primary: true }, text: { type: 'String' }, version: { type: 'Number', modules: { Version: {} } } },
      },
      Label: { collection: 'labels', properties: { id: { type: 'String', primary: true }, text: { type: 'String' } } },
    },
  });
});
test.after(async () => {
  await pub?.close();
  await own?.close();
});

/** A Post's data as a PUT takes it back: without its read-only members and its version (a body version is a lock). */
const writable = ({ author_id: _a, created_at: _c, updated_at: _u, version: _v, ...rest }: Record<string, unknown>) => rest;

test('create, PATCH and PUT: one version each, newest first, with version, etag, action, at, by and the record as a GET shows it', async () => {
  const created = dataOf(await pub.post('/posts', { id: 'h1', project_id: project, title: 'One', legacyCode: 'L1' }), 201);
  dataOf(await pub.patch('/posts/h1', { title: 'Two' }));
  const editor = await pub.token({ sub: 'u-ed', roles: ['admin'] });
  const now = dataOf(await pub.put('/posts/h1', writable({ ...created, title: 'Three' }), { token: editor }));
  const reply = await pub.get('/posts/h1/history');
  const versions = dataOf(reply);
  assert.equal(versions.map((v: any) => [v.version, v.etag, v.action, v.by, v.data.title]),
    [[3, '3', 'updated', 'u-ed', 'Three'], [2, '2', 'updated', 'u-admin', 'Two'], [1, '1', 'created', 'u-admin', 'One']]);
  assert.equal(reply.body.meta, { total: 3, count: 'exact', page: 1, per_page: 25 });
  assert.equal(versions[0].data, now, 'the newest version is the record as a GET shows it (wire names: legacyCode)');
  assert.equal(versions[2].data, created);
  assert.ok(versions.every((v: any) => !Number.isNaN(Date.parse(v.at))), 'at is a time');
  assert.equal(Object.keys(versions[0]), ['version', 'etag', 'action', 'at', 'by', 'data']);
  const paged = await pub.get('/posts/h1/history?page=2&per_page=2');
  assert.equal(dataOf(paged).map((v: any) => v.version), [1]);
  assert.equal(paged.body.meta, { total: 3, count: 'exact', page: 2, per_page: 2 });
  assert.equal(pub.serverErrors, []);
});

test('one version: the write that made it; 404 for a version the record never had', async () => {
  const one = dataOf(await pub.get('/posts/h1/history/2'));
  assert.is(one.version, 2);
  assert.is(one.data.title, 'Two');
  for (const v of ['9', '0', 'abc', '-1']) assertProblem(await pub.get(`/posts/h1/history/${v}`), 404, pub.docsUrl);
  assertProblem(await pub.get('/posts/no-such/history'), 404, pub.docsUrl);
  assertProblem(await pub.get('/posts/no-such/history/1'), 404, pub.docsUrl);
  expectStatus(await pub.post('/posts/h1/history', {}), 405);
});

test('a soft delete and a restore are versions too; a soft-deleted record has no history to read, as it has no GET', async () => {
  expectStatus(await pub.del('/posts/h1'), 204);
  assertProblem(await pub.get('/posts/h1/history'), 404, pub.docsUrl);
  dataOf(await pub.post('/posts/h1/restore'));
  const versions = dataOf(await pub.get('/posts/h1/history'));
  assert.equal(versions.map((v: any) => `${v.version} ${v.action}`), ['4 restored', '3 deleted', '3 updated', '2 updated', '1 created']);
  assert.is(versions[1].data.title, 'Three', 'a deleted entry holds the record as it was');
  assert.is(dataOf(await pub.get('/posts/h1/history/3')).action, 'updated', 'version 3 is the write that made it');
});

test('a caller who may not read the record gets what its GET answers; the nested path scopes it to the parent', async () => {
  dataOf(await pub.post('/posts', { id: 'h-draft', project_id: project, title: 'Secret' }), 201);
  const stranger = await pub.token({ sub: 'u-stranger', roles: [] });
  for (const record of ['/posts/h-draft', `/projects/${project}/posts/h-draft`]) {
    const get = await pub.get(record, { token: stranger });
    assert.ok(get.status === 404 || get.status === 403, `the GET refuses (${get.status})`);
    for (const path of [`${record}/history`, `${record}/history/1`]) {
      const reply = await pub.get(path, { token: stranger });
      assert.is(reply.status, get.status, path);
      assert.is(reply.body.code, get.body.code, path);
      assert.is(reply.body.detail, get.body.detail, path);
    }
  }
  // A published post is the readers': its history too (the definer that reads the log judges as the read's policy).
  dataOf(await pub.patch('/posts/h-draft', { status: 'published' }));
  const reader = await pub.token({ sub: 'u-reader', roles: [] });
  dataOf(await pub.get('/posts/h-draft', { token: reader }));
  assert.equal(dataOf(await pub.get('/posts/h-draft/history', { token: reader })).map((v: any) => v.data.status), ['published', 'draft']);
  const anonymous = await pub.get('/posts/h-draft', { token: null });
  assert.is((await pub.get('/posts/h-draft/history', { token: null })).status, anonymous.status, 'anonymous: as its GET');
  // Under its project, as the read: the history; under another project, 404.
  assert.is(dataOf(await pub.get(`/projects/${project}/posts/h1/history`)).length, 5);
  assert.is(dataOf(await pub.get(`/projects/${project}/posts/h1/history/1`)).action, 'created');
  const other = dataOf(await pub.post('/projects', { name: 'Other' }), 201).id;
  assertProblem(await pub.get(`/projects/${other}/posts/h1/history`), 404, pub.docsUrl);
  assert.equal(pub.serverErrors, []);
});

test('going back: a PUT of an old version\'s data with If-Match of the current ETag; a stale one is 412', async () => {
  const current = await pub.get('/posts/h1');
  assert.is(current.headers.get('etag'), '"4"');
  const old = dataOf(await pub.get('/posts/h1/history/1')).data;
  assertProblem(await pub.put('/posts/h1', writable(old), { headers: { 'If-Match': '"3"' } }), 412, pub.docsUrl);
  const back = await pub.put('/posts/h1', writable(old), { headers: { 'If-Match': '"4"' } });
  assert.is(back.headers.get('etag'), '"5"');
  assert.equal(writable(dataOf(back)), writable(old), 'the record holds version 1\'s data again');
  const newest = dataOf(await pub.get('/posts/h1/history/5'));
  assert.equal([newest.action, newest.data.title], ['updated', 'One']);
});

test('files: a link while a record holds the file; once replaced and deleted, {id, name, mime} without one; going back keeps only a held file', async () => {
  const first = await upload(pub, { name: 'first.png' });
  const created = dataOf(await pub.post('/posts', { id: 'h-file', project_id: project, title: 'Covered', cover: first.ref }), 201);
  const v1 = dataOf(await pub.get('/posts/h-file/history/1')).data;
  assert.equal(Object.keys(v1.cover).sort(), ['id', 'mime', 'name', 'url']);
  assert.is((await download(v1.cover.url)).status, 200, 'a signed link, as a GET gives');
  const second = await upload(pub, { name: 'second.png' });
  dataOf(await pub.patch('/posts/h-file', { cover: second.ref }));
  await pub.files.drain();
  const [newest, oldest] = dataOf(await pub.get('/posts/h-file/history'));
  assert.equal(newest.data.cover.name, 'second.png');
  assert.ok(newest.data.cover.url, 'the held file is a link');
  assert.equal(oldest.data.cover, { id: created.cover.id, name: 'first.png', mime: 'image/png' }, 'the replaced file: no link');
  // Going back: a file goes as its id; the one the record no longer holds cannot come back.
  const body = (data: any) => ({ ...writable(data), cover: data.cover?.id ?? null });
  const gone = await pub.put('/posts/h-file', body(oldest.data), { headers: { 'If-Match': '"2"' } });
  assertProblem(gone, 422, pub.docsUrl, { code: 'E_FILE_NOT_UPLOADED' });
  const kept = dataOf(await pub.put('/posts/h-file', { ...body(oldest.data), cover: newest.data.cover.id }, { headers: { 'If-Match': '"2"' } }));
  assert.is(kept.cover.name, 'second.png');
  assert.equal(pub.serverErrors, []);
});

test('history: false and an entity without a Version keep none: the path is no route (404)', async () => {
  dataOf(await own.post('/drafts', { id: 'd1', text: 'a' }), 201);
  dataOf(await own.post('/labels', { id: 'l1', text: 'a' }), 201);
  assertProblem(await own.get('/drafts/d1/history'), 404, own.docsUrl);
  assertProblem(await own.get('/drafts/d1/history/1'), 404, own.docsUrl);
  assertProblem(await own.get('/labels/l1/history'), 404, own.docsUrl);
  assert.not.ok(own.manifest.resources.Draft!.functions.history);
  assert.ok(own.manifest.resources.Note!.functions.history, 'on by default with a Version');
});

test('pruning: keepDays keeps a history past the log\'s retention, a history without bound stays, others follow the retention', async () => {
  for (const c of ['memos', 'drafts', 'notes', 'labels']) {
    dataOf(await own.post(`/${c}`, { id: 'p1', text: 'a' }), 201);
    dataOf(await own.patch(`/${c}/p1`, { text: 'b' }));
  }
  const age = (table: string, days: number) => own.db.sql`update lib.changes set at = now() - make_interval(days => ${days}) where table_name = ${table} and record_key = 'p1'`;
  for (const t of ['memos', 'drafts', 'notes', 'labels']) await age(t, 1);
  const [mark] = await own.db.sql`select max(id)::text as id from lib.changes`;
  const left = async () => Object.fromEntries((await own.db.sql`select table_name, count(*)::int as n from lib.changes where record_key = 'p1' group by 1`)
    .map((r) => [r.table_name, r.n]));
  const prune = async () => Number((await own.db.sql`select lib.changes_prune(3600, 1000) as n`)[0]!.n);
  assert.is(await prune(), 4, 'a day old, past an hour\'s retention: the drafts\' and labels\' rows');
  assert.equal(await left(), { memos: 2, notes: 2 });
  assert.is(dataOf(await own.get('/memos/p1/history')).length, 2, 'kept for 2 days');
  const [horizon] = await own.db.sql`select pruned_id::text as id from lib.changes_horizon`;
  assert.ok(BigInt(horizon!.id) <= BigInt(mark!.id), 'the horizon is the highest position pruned');
  await age('memos', 3);
  await age('notes', 3650);
  assert.is(await prune(), 2, 'past keepDays: the memos\' rows');
  assert.equal(await left(), { notes: 2 });
  assertProblem(await own.get('/memos/p1/history/1'), 404, own.docsUrl);
  assert.equal(dataOf(await own.get('/memos/p1/history')), []);
  assert.is(dataOf(await own.get('/notes/p1/history')).length, 2, 'a history without keepDays is kept as long as the record');
  assert.equal(own.serverErrors, []);
});

test('in a batch: a history read after a write in the same transaction holds that write; HEAD answers as GET', async () => {
  dataOf(await own.post('/notes', { id: 'b1', text: 'one' }), 201);
  const batch = await own.post('/batch', { operations: [
    { method: 'PATCH', path: '/notes/b1', body: { text: 'two' } },
    { method: 'GET', path: '/notes/b1/history' },
    { method: 'GET', path: '/notes/b1/history/2' },
  ] });
  expectStatus(batch, 200);
  const [, list, one] = batch.body.results;
  assert.equal(list.body.data.map((v: any) => `${v.version} ${v.data.text}`), ['2 two', '1 one']);
  assert.is(one.body.data.action, 'updated');
  const head = await own.call('HEAD', '/notes/b1/history');
  assert.is(head.status, 200);
  assert.is(head.text, '');
});

test('a key used again after a permanent delete starts a new history', async () => {
  dataOf(await own.post('/notes', { id: 'again', text: 'first life' }), 201);
  dataOf(await own.patch('/notes/again', { text: 'first life, edited' }));
  expectStatus(await own.del('/notes/again'), 204);
  assertProblem(await own.get('/notes/again/history'), 404, own.docsUrl);
  dataOf(await own.post('/notes', { id: 'again', text: 'second life' }), 201);
  const versions = dataOf(await own.get('/notes/again/history'));
  assert.equal(versions.map((v: any) => `${v.version} ${v.action} ${v.data.text}`), ['1 created second life']);
});

test.run();
