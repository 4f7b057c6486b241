// Batches attaching files on the gateway's own pools (openPools, Files on the primary as ops/cli/gateway.ts
// wires them): a batch holds a connection for its transaction, and its attach must not wait for a second one.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../server/app.ts';
import { Files } from '../../server/files/service.ts';
import { LocalStorage } from '../../server/files/local.ts';
import { gatewayUrl } from '../../ops/pg/gateway-role.ts';
import { openPools, type Pools } from '../../server/pg/pools.ts';
import { DEFAULT_LIMITS } from '../../server/request/limits.ts';
import { JWT_SECRET, startApi, type RunningApi } from '../e2e/support/server.ts';
import { PNG } from './support.ts';

const POOL_MAX = 2;
const POOL_TIMEOUT_MS = 2_000;

let api: RunningApi;
let pools: Pools;
let files: Files;
let gateway: ReturnType<typeof createApp>;
let dir = '';
const logged: string[] = [];
test.before(async () => {
  api = await startApi('examples/publishing.model.json');
  const limits = { ...DEFAULT_LIMITS, poolMax: POOL_MAX, poolTimeoutMs: POOL_TIMEOUT_MS };
  pools = openPools({ primaryUrl: await gatewayUrl(api.db.url, { SET_AUTHENTICATOR_PASSWORD: 'true' }), limits });
  dir = mkdtempSync(join(tmpdir(), 'modelapi-batch-pool-'));
  const { manifest } = api;
  const log = (m: string, err: unknown) => void logged.push(`${m}: ${(err as Error)?.stack ?? String(err)}`);
  const storage = new LocalStorage({ dir, secret: 'batch-pool-secret', basePath: manifest.api.basePath });
  files = new Files({ sql: pools.primary.sql, pool: pools.primary, manifest, storage, log });
  gateway = createApp({ sql: pools.primary.sql, pools, manifest, limits, jwtSecret: JWT_SECRET, files, log });
});
test.after(async () => {
  await files?.stop();
  await pools?.end(1);
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A request to the pooled gateway as the suite's caller: status and parsed body. */
async function call(method: string, path: string, body?: unknown, type = 'application/json'): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${await api.token()}` };
  if (body !== undefined) headers['content-type'] = type;
  const url = path.startsWith('/api/') ? path : api.basePath + path;
  const sent = body instanceof Uint8Array ? body as BodyInit : JSON.stringify(body);
  const res = await gateway.request(url, { method, headers, ...(body === undefined ? {} : { body: sent }) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

test(`POOL_MAX + 1 concurrent batches, each attaching its own upload, all answer 200 at once (POOL_MAX ${POOL_MAX})`, async () => {
  const project = (await call('POST', '/projects', { name: 'Pooled batches' })).body.data.id;
  const refs: string[] = [];
  for (let i = 0; i <= POOL_MAX; i++) {
    const intent = (await call('POST', '/.well-known/upload', { filename: `b${i}.png`, contentType: 'image/png' })).body.data;
    const url = new URL(intent.upload_url);
    assert.is((await call('PUT', url.pathname + url.search, PNG, 'image/png')).status, 200);
    refs.push(intent.file_reference);
    assert.is((await call('POST', `/projects/${project}/posts`, { id: `pool-${i}`, title: 'T' })).status, 201);
  }
  const started = performance.now();
  const replies = await Promise.all(refs.map((ref, i) => call('POST', '/batch', { operations: [{ method: 'PATCH', path: `/posts/pool-${i}`, body: { cover: ref } }] })));
  const ms = performance.now() - started;
  assert.equal(replies.map((r) => r.status), refs.map(() => 200), JSON.stringify(replies.find((r) => r.status !== 200)?.body));
  assert.ok(ms < POOL_TIMEOUT_MS, `answered in ${Math.round(ms)} ms, before POOL_TIMEOUT_MS (${POOL_TIMEOUT_MS})`);
  for (const [i, reply] of replies.entries()) assert.is(reply.body.results[0].body.data.cover.name, `b${i}.png`);
  assert.equal(logged, []);
});

test.run();
