// A storage service that accepts connections and never answers: a write attaching a file is 503 at
// STATEMENT_TIMEOUT_MS, a batch doing so rolls back and frees its row locks, and the outbox worker stops.
// (The SDK only logged a request past its timeout: a single write waited for ever, a batch held its locks.)
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Socket } from 'node:net';
import { S3Storage } from '../../server/files/s3.ts';
import { dataOf, expectStatus } from '../e2e/support/http.ts';
import { startApi, type RunningApi } from '../e2e/support/server.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const STATEMENT_TIMEOUT_MS = 1500;
const sockets: Socket[] = [];
const hole = createServer((s) => { sockets.push(s); s.on('data', () => {}); });
let storage: S3Storage;
let api: RunningApi;
let project = '';

test.before(async () => {
  await new Promise<void>((r) => hole.listen(0, '127.0.0.1', () => r()));
  const { port } = hole.address() as { port: number };
  storage = new S3Storage({ bucket: 'stalled', region: 'us-east-1', endpoint: `http://127.0.0.1:${port}`, forcePathStyle: true,
    credentials: { accessKeyId: 'x', secretAccessKey: 'y' }, maxAttempts: 1, callTimeoutMs: 60_000 });
  api = await startApi('examples/publishing.model.json', { storage, limits: { statementTimeoutMs: STATEMENT_TIMEOUT_MS } });
  project = dataOf(await api.post('/projects', { name: 'Stalled' }), 201).id;
  dataOf(await api.post('/posts', { id: 'stalled', project_id: project, title: 'T' }), 201);
});
test.after(async () => {
  sockets.forEach((s) => s.destroy());
  hole.close();
  storage?.client.destroy();
  await api?.close();
});

const reference = async () => dataOf(await api.post('/.well-known/upload', { filename: 'a.png', contentType: 'image/png' }), 201).file_reference as string;
const timed = async <T>(work: Promise<T>) => { const started = Date.now(); const value = await work; return { value, ms: Date.now() - started }; };

test('a write attaching a file: 503 at STATEMENT_TIMEOUT_MS, with Retry-After, and the record unchanged', async () => {
  const { value: reply, ms } = await timed(api.patch('/posts/stalled', { cover: await reference(), title: 'Changed' }));
  expectStatus(reply, 503);
  assert.is(reply.body.code, 'E_UNAVAILABLE');
  assert.ok(ms >= STATEMENT_TIMEOUT_MS - 100 && ms < STATEMENT_TIMEOUT_MS * 3, `answered after ${ms} ms`);
  assert.is(dataOf(await api.get('/posts/stalled')).title, 'T');
});

test('a batch attaching a file: 503 within its time, rolled back, its row locks freed', async () => {
  const { value: reply, ms } = await timed(api.post('/batch', { operations: [
    { method: 'PATCH', path: `/projects/${project}`, body: { name: 'Locked by the batch' } },
    { method: 'PATCH', path: '/posts/stalled', body: { cover: await reference() } },
  ] }));
  expectStatus(reply, 503);
  assert.ok(ms < STATEMENT_TIMEOUT_MS * 3, `answered after ${ms} ms`);
  const after = await timed(api.patch(`/projects/${project}`, { name: 'Free' }));
  expectStatus(after.value, 200);
  assert.ok(after.ms < 1000, `the project's row was free (${after.ms} ms)`);
});

test('the outbox worker stops within the time it is given while a delete stalls', async () => {
  await api.db.sql`insert into lib.file_outbox (location) values ('uploads/stalled-object')`;
  const draining = api.files.drain().catch(() => undefined);
  await new Promise((r) => setTimeout(r, 200));
  const { ms } = await timed(api.files.stop(300));
  assert.ok(ms < 1000, `stopped after ${ms} ms`);
  sockets.forEach((s) => s.destroy()); // the stalled delete fails now, and the drain ends
  await draining;
});

test.run();
