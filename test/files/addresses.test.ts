// The addresses themselves (local driver, movable clock): the upload intent's body and caller, the signed
// PUT (expiry, Content-Type, signature, size cap) and the signed download link that works, then expires.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertProblem } from '../e2e/support/problem.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';
import { dataOf, download, intent, movableClock, PNG, putBytes, upload } from './support.ts';

let api: RunningApi;
const clock = movableClock();
test.before(async () => {
  api = await startApi('examples/publishing.model.json', { clock });
  const project = dataOf(await api.post('/projects', { name: 'Addresses' }), 201).id;
  dataOf(await api.post(`/projects/${project}/posts`, { id: 'target', title: 'Target' }), 201);
});
test.after(async () => api?.close());

test('an expired upload address is refused (403); the reference then has no file', async () => {
  const data = dataOf(await intent(api, 'late.png', 'image/png'), 201);
  clock.advance(16);
  try {
    const put = await putBytes(data.upload_url, PNG, 'image/png');
    assert.is(put.status, 403);
    assert.match(await put.text(), 'expired');
  } finally {
    clock.reset();
  }
  const attach = await api.patch('/posts/target', { cover: data.file_reference });
  assertProblem(attach, 422, api.docsUrl, { code: 'E_FILE_NOT_UPLOADED', names: ['cover'] });
});

test('the upload PUT needs the declared Content-Type (415), a valid signature (403) and a size within the cap (413)', async () => {
  const data = dataOf(await intent(api, 'x.png', 'image/png'), 201);
  for (const type of ['image/jpeg', undefined, 'application/json']) {
    const put = await putBytes(data.upload_url, PNG, type);
    assert.is(put.status, 415, String(type));
    assert.is(put.headers.get('content-type'), 'application/problem+json');
  }
  assert.is((await putBytes(data.upload_url, PNG, 'Image/PNG')).status, 200, 'media types compare case-insensitively');
  const url = new URL(data.upload_url);
  for (const [param, value] of [['sig', 'x'], ['type', 'image/jpeg'], ['expires', String(Number(url.searchParams.get('expires')) + 3600)]]) {
    const tampered = new URL(url);
    tampered.searchParams.set(param!, value!);
    assert.is((await putBytes(tampered.toString(), PNG, tampered.searchParams.get('type')!)).status, 403, param);
  }
  const cap = api.files.maxUploadBytes;
  assert.is(cap, 10 * 1024 * 1024, 'the cap is the largest maxSizeInBytes of the model');
  const big = await putBytes(data.upload_url, new Uint8Array(cap + 1), 'image/png');
  assert.is(big.status, 413);
  assert.is((await big.json()).code, 'E_PAYLOAD_TOO_LARGE');
});

test('a download link works, then expires after 15 minutes; a tampered one never works', async () => {
  const up = await upload(api, { name: 'link.png' });
  const url = dataOf(await api.patch('/posts/target', { cover: up.ref })).cover.url;
  const ok = await download(url);
  assert.equal([ok.status, ok.type, ok.bytes], [200, 'image/png', PNG]);
  const head = await fetch(url, { method: 'HEAD' });
  assert.equal([head.status, head.headers.get('content-length'), head.headers.get('x-content-type-options')], [200, String(PNG.length), 'nosniff']);
  assert.match(head.headers.get('content-disposition') ?? '', "filename*=UTF-8''link.png");
  clock.advance(14);
  assert.is((await download(url)).status, 200, 'still valid after 14 minutes');
  clock.advance(2);
  try {
    assert.is((await download(url)).status, 403, 'expired after 16 minutes');
    const fresh = dataOf(await api.get('/posts/target')).cover.url;
    assert.is((await download(fresh)).status, 200, 'a new read signs a new link');
  } finally {
    clock.reset();
  }
  assert.is((await download(url.replace(/sig=[^&]+/, 'sig=AAAA'))).status, 403);
  assert.is((await download(url.replace(/name=[^&]+/, 'name=other.html'))).status, 403);
  await api.patch('/posts/target', { cover: null });
});

test('upload intent: anonymous 401, bad bodies 400/422, other methods 405', async () => {
  const anon = await intent(api, 'a.png', 'image/png', null);
  assertProblem(anon, 401, api.docsUrl);
  assert.ok(anon.headers.get('www-authenticate'));
  const missing = await api.post('/.well-known/upload', { filename: 'a.png' });
  assertProblem(missing, 422, api.docsUrl);
  assert.equal(missing.body.errors.map((e: { property: string }) => e.property), ['contentType']);
  assertProblem(await api.post('/.well-known/upload', { filename: '', contentType: 'png' }), 422, api.docsUrl);
  assertProblem(await api.post('/.well-known/upload', { filename: 'a', contentType: 'image/png', extra: 1 }), 400, api.docsUrl);
  assertProblem(await api.call('POST', '/.well-known/upload', { raw: 'x', type: 'text/plain' }), 415, api.docsUrl);
  const get = await api.get('/.well-known/upload');
  assertProblem(get, 405, api.docsUrl, { code: 'E_METHOD_NOT_ALLOWED' });
  assert.is(get.headers.get('allow'), 'POST');
});

test('no request caused a server error', () => {
  assert.equal(api.serverErrors, []);
});

test.run();
