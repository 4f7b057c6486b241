// Two `serve` processes on one database and one S3 bucket (s3rver here) under concurrent load: no 5xx, and the
// shared file outbox deletes every replaced, removed or temporary object exactly once, and nothing still in use.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { IncomingMessage } from 'node:http';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { testApi } from '../harness/fixtures.ts';
import { startS3, type FakeS3 } from '../files/support.ts';
import { startServe, type ServedGateway } from '../harness/serve.ts';
import { dataOf, expectStatus, type Reply } from '../e2e/support/http.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';

const BUCKET = 'fleet-files';
const PDF = new TextEncoder().encode('%PDF-1.4\n% two gateways\n%%EOF\n');
const MODEL = {
  api: testApi('fleet'),
  entities: { Doc: { collection: 'docs', properties: { id: { type: 'String', primary: true }, scan: { type: 'Binary', modules: { FileURL: {} } } } } },
};
const DOCS = 16; // each: created with a file, its file replaced 3 times through alternating gateways; a third deleted

let db: TestDatabase;
let s3: FakeS3 | undefined;
const gateways: ServedGateway[] = [];
/**
 * Requests the bucket received, by object key: what was written (PUT: uploads and copies) and deleted. A
 * call the AWS SDK retried (a reset connection under load) reaches the bucket twice with one
 * `amz-sdk-invocation-id`: it counts once, as the one deletion the gateway asked for.
 */
const written = new Map<string, number>();
const deleted = new Map<string, number>();
const seen = new Set<string>();

function count(req: IncomingMessage): void {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://s3').pathname);
  if (!path.startsWith(`/${BUCKET}/`) || path.length <= BUCKET.length + 2) return;
  const key = path.slice(BUCKET.length + 2);
  const into = req.method === 'PUT' ? written : req.method === 'DELETE' ? deleted : undefined;
  const invocation = req.headers['amz-sdk-invocation-id'];
  if (typeof invocation === 'string') {
    if (seen.has(`${req.method} ${invocation}`)) return;
    seen.add(`${req.method} ${invocation}`);
  }
  into?.set(key, (into.get(key) ?? 0) + 1);
}

test.before(async () => {
  try {
    db = await freshDatabase();
    await installModel(db, MODEL);
    s3 = await startS3({ bucket: BUCKET, onRequest: count });
    const env = {
      GATEWAY_DATABASE_URL: await gatewayUrl(db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' }), STORAGE_DRIVER: 's3', S3_BUCKET: BUCKET, S3_ENDPOINT: s3.endpoint, S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_FORCE_PATH_STYLE: 'true', FILES_SECRET: '', LOG_LEVEL: 'error',
    };
    gateways.push(await startServe(env), await startServe(env));
  } catch (err) {
    console.error('set-up failed:', err); // uvu reports a failed hook without its error
    throw err;
  }
});

test.after(async () => {
  for (const g of gateways) await g.stop();
  await s3?.close();
  await db?.close();
});

test('two gateways, one database, one bucket: concurrent writes with files, no 5xx, each object deleted exactly once', async () => {
  const [a, b] = gateways.map((g) => g.client('/api/fleet/v1')) as [ReturnType<ServedGateway['client']>, ReturnType<ServedGateway['client']>];
  const on = (n: number) => (n % 2 === 0 ? a : b);
  const replies: Reply[] = [];
  const keep = (r: Reply) => (replies.push(r), r);
  /** An intent on one gateway, the bytes straight to the bucket: the reference another gateway may attach. */
  const uploaded = async (n: number): Promise<string> => {
    const intent = dataOf(keep(await on(n).post('/.well-known/upload', { filename: 'scan.pdf', contentType: 'application/pdf' })), 201);
    const put = await fetch(intent.upload_url, { method: 'PUT', body: PDF, headers: { 'Content-Type': 'application/pdf' } });
    assert.is(put.status, 200, await put.text());
    return intent.file_reference as string;
  };
  const life = async (i: number) => {
    const id = `d${i}`;
    dataOf(keep(await on(i + 1).post('/docs', { id, scan: await uploaded(i) })), 201);
    for (let step = 1; step <= 3; step++) dataOf(keep(await on(i + step + 1).patch(`/docs/${id}`, { scan: await uploaded(i + step) })), 200);
    if (i % 3 === 0) expectStatus(keep(await on(i).del(`/docs/${id}`)), 204);
  };
  const readers = Array.from({ length: 40 }, async (_, n) => keep(await on(n).get('/docs?per_page=100')));
  await Promise.all([...Array.from({ length: DOCS }, (_, i) => life(i)), ...readers]);
  const statuses = replies.map((r) => r.status);
  assert.equal(statuses.filter((s) => s >= 500), [], replies.filter((r) => r.status >= 500).map((r) => `${r.status} ${r.path} ${r.text}`).join('\n'));

  // Both gateways drain the shared outbox after their writes (and on their interval): wait until nothing due is
  // left. What stays is each attached upload's tmp/ key, due again once its attach window closes (a late PUT).
  const until = Date.now() + 30_000;
  for (;;) {
    const [row] = await db.sql`select count(*)::int as n from lib.file_outbox where next_attempt_at <= now()`;
    if (row!.n === 0) break;
    if (Date.now() > until) assert.unreachable(`the outbox still holds ${row!.n} rows: ${JSON.stringify(await db.sql`select location, attempts, last_error from lib.file_outbox`)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const later = await db.sql`select location from lib.file_outbox where next_attempt_at > now() + interval '50 minutes'`;
  assert.ok(later.every((r) => String(r.location).startsWith('tmp/')), 'only tmp/ keys wait for their attach window');
  assert.is(later.length, DOCS * 4, 'one per attached upload');
  await new Promise((r) => setTimeout(r, 300)); // a second claim of a row, if any, would delete now

  const live = new Set((await db.sql`select scan ->> 'location' as location from app.docs`).map((r) => r.location as string));
  const removedDocs = Array.from({ length: DOCS }, (_, i) => i).filter((i) => i % 3 === 0).length;
  assert.is(live.size, DOCS - removedDocs, 'one live object per remaining doc');
  const twice = [...deleted].filter(([, n]) => n !== 1);
  assert.equal(twice, [], 'no object is deleted twice');
  const created = [...written.keys()];
  assert.is(created.filter((k) => k.startsWith('tmp/')).length, DOCS * 4, 'every upload went to tmp/');
  assert.is(created.filter((k) => k.startsWith('uploads/')).length, DOCS * 4, 'and was copied to uploads/');
  for (const key of created) {
    const exists = (await s3!.storage.head(key)) !== undefined;
    assert.is(exists, live.has(key), `${key}: ${live.has(key) ? 'in use, must stay' : 'unused, must be gone'}`);
    assert.is(deleted.get(key) ?? 0, live.has(key) ? 0 : 1, `${key}: deleted ${deleted.get(key) ?? 0} times`);
  }
  for (const g of gateways) assert.equal(g.output().match(/"msg":"request failed"|outbox drain failed/g), null, g.output());
});

test('a due outbox row another gateway is claiming is skipped (FOR UPDATE SKIP LOCKED), never waited for', async () => {
  await db.sql`insert into lib.file_outbox (location) values ('uploads/skip-held'), ('uploads/skip-free')`;
  let release!: () => void;
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => { locked = r; });
  const holder = db.sql.begin(async (tx) => {
    await tx`select 1 from lib.file_outbox where location = 'uploads/skip-held' for update`;
    locked();
    await new Promise<void>((r) => { release = r; });
  });
  await isLocked;
  try {
    const claimed = await db.sql.begin(async (tx) => {
      await tx`set local lock_timeout = '2s'`; // waiting on the held row would fail here (55P03)
      return tx`select location from lib.files_due(now(), 50)`;
    });
    assert.equal(claimed.map((r) => r.location), ['uploads/skip-free'], 'the free row is claimed, the held one left to its holder');
  } finally {
    release();
    await holder;
    await db.sql`delete from lib.file_outbox where location like 'uploads/skip-%'`;
  }
});

test.run();
