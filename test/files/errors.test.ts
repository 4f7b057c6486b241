// Every 422 file error on POST, PUT and PATCH with both drivers; references used twice, by another caller
// or past their window; a valid copy beside a refused reference is undone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertProblem } from '../e2e/support/problem.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import type { Reply } from '../e2e/support/http.ts';
import { dataOf, intent, PDF, startS3, storedBlock, upload, type FakeS3 } from './support.ts';

const SLUG: Record<string, [string, string]> = {
  E_FILE_TOO_LARGE: ['file-too-large', 'File Too Large'],
  E_FILE_TYPE_NOT_ALLOWED: ['file-type-not-allowed', 'File Type Not Allowed'],
  E_FILE_NOT_UPLOADED: ['file-not-uploaded', 'File Not Uploaded'],
};

function errors(driver: 'local' | 's3') {
  const test = suite(`file errors (${driver})`);
  let api: RunningApi;
  let s3: FakeS3 | undefined;
  let project = '';
  let n = 0;
  test.before(async () => {
    s3 = driver === 's3' ? await startS3() : undefined;
    api = await startApi('examples/publishing.model.json', s3 ? { storage: s3.storage } : {});
    project = dataOf(await api.post('/projects', { name: 'Errors' }), 201).id;
    dataOf(await api.post(`/projects/${project}/posts`, { id: 'target', title: 'Target' }), 201);
  });
  test.after(async () => {
    await api?.close();
    await s3?.close();
  });

  /** Writes `ref` as the cover with each method: POST (a new post), PUT and PATCH of "target". */
  const writes: Array<[string, (ref: string, token?: string) => Promise<Reply>]> = [
    ['POST', (ref, token) => api.post('/posts', { id: `new-${++n}`, project_id: project, title: 'New', cover: ref }, token ? { token } : {})],
    ['PUT', (ref, token) => api.put('/posts/target', { title: 'Target', cover: ref }, token ? { token } : {})],
    ['PATCH', (ref, token) => api.patch('/posts/target', { cover: ref }, token ? { token } : {})],
  ];

  function assertFileProblem(reply: Reply, code: string, property = 'cover'): void {
    const body = assertProblem(reply, 422, api.docsUrl, { code, names: [property] });
    assert.equal([body.type, body.title], [`${api.docsUrl}/errors/${SLUG[code]![0]}`, SLUG[code]![1]]);
    assert.is(body.errors?.[0]?.property, property);
  }

  async function unchanged(): Promise<void> {
    assert.is(await storedBlock(api, 'posts', 'id', 'target', 'cover'), null, 'the record is unchanged');
    assert.is((await api.db.sql`select count(*)::int as n from app.posts where id like 'new-%'`)[0]!.n, 0, 'no post was created');
  }

  test('E_FILE_TOO_LARGE on POST, PUT and PATCH: a file over maxSizeInBytes (2 MiB for cover)', async () => {
    const big = new Uint8Array(2 * 1024 * 1024 + 1);
    for (const [method, write] of writes) {
      const up = await upload(api, { bytes: big });
      const reply = await write(up.ref);
      assertFileProblem(reply, 'E_FILE_TOO_LARGE');
      assert.match(reply.body.detail, '2097152', method);
    }
    await unchanged();
  });

  test('E_FILE_TYPE_NOT_ALLOWED on POST, PUT and PATCH: a type outside allowedMimeTypes', async () => {
    for (const [method, write] of writes) {
      const up = await upload(api, { name: 'doc.pdf', type: 'application/pdf', bytes: PDF });
      const reply = await write(up.ref);
      assertFileProblem(reply, 'E_FILE_TYPE_NOT_ALLOWED');
      assert.match(reply.body.detail, 'application/pdf', method);
    }
    await unchanged();
  });

  test('E_FILE_NOT_UPLOADED on POST, PUT and PATCH: no bytes were PUT, or the reference is unknown', async () => {
    for (const [method, write] of writes) {
      const ref = dataOf(await intent(api, 'never.png', 'image/png'), 201).file_reference;
      assertFileProblem(await write(ref), 'E_FILE_NOT_UPLOADED');
      assertFileProblem(await write(`unknown-${method}`), 'E_FILE_NOT_UPLOADED');
    }
    await unchanged();
  });

  test('a reference attached twice is refused (POST, PUT, PATCH), also twice in one body', async () => {
    const up = await upload(api);
    dataOf(await api.post(`/projects/${project}/posts`, { id: 'first', title: 'First', cover: up.ref }), 201);
    for (const [, write] of writes) assertFileProblem(await write(up.ref), 'E_FILE_NOT_UPLOADED');
    const both = await upload(api, { type: 'image/png' });
    const twice = await api.post(`/projects/${project}/posts`, { id: 'twice', title: 'Twice', cover: both.ref, attachment: both.ref });
    assertFileProblem(twice, 'E_FILE_NOT_UPLOADED', 'attachment');
    await api.db.sql`delete from app.posts where id = 'first'`;
    await unchanged();
  });

  test('a reference of another caller is refused on POST, PUT and PATCH; nothing is left copied', async () => {
    const other = await api.token({ sub: 'u-other', roles: ['admin'] });
    for (const [, write] of writes) {
      const up = await upload(api);
      assertFileProblem(await write(up.ref, other), 'E_FILE_NOT_UPLOADED');
      assert.is((await api.db.sql`select used_at from lib.uploads where token = ${up.ref}`)[0]!.used_at, null);
    }
    // A valid file beside a refused one: its copy is removed when the write fails.
    const mine = await upload(api, { token: other });
    const theirs = await upload(api);
    const reply = await api.patch('/posts/target', { cover: mine.ref, attachment: theirs.ref }, { token: other });
    assertFileProblem(reply, 'E_FILE_NOT_UPLOADED', 'attachment');
    const [reserved] = await api.db.sql`select location from lib.file_outbox where token = ${mine.ref}`;
    assert.ok(reserved, 'the copy target stays reserved (deleted later if nothing claims it)');
    assert.is(await api.files.storage.head(reserved!.location), undefined, 'the copy was undone');
    await unchanged();
  });

  test('a reference past its attach window (upload address expired over an hour ago) is refused', async () => {
    const up = await upload(api);
    await api.db.sql`update lib.uploads set expires_at = now() - interval '61 minutes' where token = ${up.ref}`;
    for (const [, write] of writes) assertFileProblem(await write(up.ref), 'E_FILE_NOT_UPLOADED');
  });

  test('no request caused a server error', () => {
    assert.equal(api.serverErrors, []);
  });
  return test;
}

errors('local').run();
errors('s3').run();

// Spec 2.3 and 8: web.fileTypes is a list of accepted types, not only a document's hint. A property that sets it
// without allowedMimeTypes took any type; with both, the narrower fileTypes holds.
const typed = suite('file errors: web.fileTypes is enforced on attach');
let typedApi: RunningApi;
typed.before(async () => {
  typedApi = await startApi({
    api: { slug: 'typed', version: 'v1', title: 'Typed files', docsUrl: 'https://typed.example.com/docs', strategy: 'RBAC',
      scenarios: [{ label: 'Admins', predicate: { style: 'and', children: [{ type: 'matchUserRole', roles: ['admin'] }] } }] },
    entities: {
      Doc: {
        collection: 'docs',
        properties: {
          id: { type: 'String', primary: true, immutable: true },
          scan: { type: 'Binary', modules: { FileURL: {} }, web: { fileTypes: ['application/pdf'] } },
          picture: { type: 'String', modules: { ImageURL: { allowedMimeTypes: ['image/png', 'image/jpeg'] } }, web: { fileTypes: ['image/png'] } },
          photo: { type: 'Binary', modules: { ImageURL: { allowedMimeTypes: ['image/*'] } } },
          thumb: { type: 'Binary', modules: { ImageURL: { allowedMimeTypes: ['image/*'] } }, web: { fileTypes: ['image/png', 'image/webp'] } },
          icon: { type: 'String', modules: { ImageURL: {} } },
          any: { type: 'String', modules: { FileURL: {} } },
        },
      },
    },
  });
});
typed.after(async () => typedApi?.close());

typed('a type outside web.fileTypes is E_FILE_TYPE_NOT_ALLOWED, alone or narrowing allowedMimeTypes; a listed one attaches', async () => {
  const refused = async (body: Record<string, string>, property: string) => {
    const reply = await typedApi.post('/docs', { id: `d${Object.values(body)[0]}`, ...body });
    const problem = assertProblem(reply, 422, typedApi.docsUrl, { code: 'E_FILE_TYPE_NOT_ALLOWED', names: [property] });
    assert.equal(problem.errors?.[0], { property, rule: 'fileTypes', message: problem.detail });
  };
  await refused({ scan: (await upload(typedApi, { name: 'p.png', type: 'image/png' })).ref }, 'scan');
  await refused({ picture: (await upload(typedApi, { name: 'p.jpg', type: 'image/jpeg' })).ref }, 'picture');
  const pdf = await upload(typedApi, { name: 'scan.pdf', type: 'application/pdf', bytes: PDF });
  const png = await upload(typedApi, { name: 'p.png', type: 'image/png' });
  const doc = dataOf(await typedApi.post('/docs', { id: 'ok', scan: pdf.ref, picture: png.ref }), 201);
  assert.equal([doc.scan.mime, doc.picture.mime], ['application/pdf', 'image/png']);
  assert.equal(typedApi.serverErrors, []);
});

typed('a type/* pattern (which the model accepts) admits every type under it, also when fileTypes narrows it', async () => {
  const png = await upload(typedApi, { name: 'p.png', type: 'image/png' });
  const gif = await upload(typedApi, { name: 'p.gif', type: 'image/gif' });
  const doc = dataOf(await typedApi.post('/docs', { id: 'wild', photo: gif.ref, thumb: png.ref }), 201);
  assert.equal([doc.photo.mime, doc.thumb.mime], ['image/gif', 'image/png']);
  const text = await upload(typedApi, { name: 't.txt', type: 'text/plain', bytes: PDF });
  const refused = await typedApi.patch('/docs/wild', { photo: text.ref });
  const problem = assertProblem(refused, 422, typedApi.docsUrl, { code: 'E_FILE_TYPE_NOT_ALLOWED', names: ['photo'] });
  assert.is(problem.errors?.[0]?.rule, 'allowedMimeTypes');
  const jpeg = await upload(typedApi, { name: 'p.jpg', type: 'image/jpeg' });
  assert.is(assertProblem(await typedApi.patch('/docs/wild', { thumb: jpeg.ref }), 422, typedApi.docsUrl,
    { code: 'E_FILE_TYPE_NOT_ALLOWED', names: ['thumb'] }).errors?.[0]?.rule, 'fileTypes');
  assert.equal(typedApi.serverErrors, []);
});

typed('an ImageURL that lists no types takes images only; a FileURL that lists none takes any type', async () => {
  const gif = await upload(typedApi, { name: 'i.gif', type: 'image/gif' });
  const text = await upload(typedApi, { name: 't.txt', type: 'text/plain', bytes: PDF });
  const doc = dataOf(await typedApi.post('/docs', { id: 'icons', icon: gif.ref, any: text.ref }), 201);
  assert.equal([doc.icon.mime, doc.any.mime], ['image/gif', 'text/plain']);
  const pdf = await upload(typedApi, { name: 's.pdf', type: 'application/pdf', bytes: PDF });
  const refused = await typedApi.patch('/docs/icons', { icon: pdf.ref });
  const problem = assertProblem(refused, 422, typedApi.docsUrl, { code: 'E_FILE_TYPE_NOT_ALLOWED', names: ['icon'] });
  assert.match(problem.detail, 'image/*');
  const openapi = (await typedApi.get('/openapi.json')).body;
  assert.equal(openapi.components.schemas.Doc.properties.icon['x-fileTypes'], ['image/*'], 'and the API document says so');
  assert.equal(typedApi.serverErrors, []);
});

typed.run();
