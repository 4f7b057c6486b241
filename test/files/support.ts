// Helpers of the file suites: an s3rver started in the test process (stoppable and restartable on the same
// port), a movable clock, and the two-phase upload (intent, then PUT of the bytes) done as a client.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { S3Storage } from '../../server/files/s3.ts';
import { freePort } from '../harness/net.ts';
import { dataOf, expectStatus, type Reply } from '../e2e/support/http.ts';
import type { RunningApi } from '../e2e/support/server.ts';

export const BUCKET = 'modelapi-test';
// The SDK's notice that later versions need Node 22 is not a test result.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

export interface FakeS3 {
  storage: S3Storage;
  endpoint: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops for good and removes its folder. */
  close(): Promise<void>;
}

/**
 * The key prefixes the gateway writes under (`tmp/<uuid>`, `uploads/<uuid>`). s3rver keeps a prefix as a
 * folder and removes the folder when a DELETE leaves it empty, racing a concurrent PUT into it that has made
 * the folder but not yet opened its file (ENOENT, thrown from a stream nobody listens to: the test process
 * dies). A file s3rver does not list as an object keeps each folder from ever being empty.
 */
const PINNED_PREFIXES = ['tmp', 'uploads'];

export interface S3Options {
  bucket?: string;
  /** Sees every request the bucket receives, before s3rver handles it. */
  onRequest?: (req: IncomingMessage) => void;
}

/** s3rver on a free loopback port with one bucket; its credentials are s3rver's defaults. */
export async function startS3(options: S3Options = {}): Promise<FakeS3> {
  const bucket = options.bucket ?? BUCKET;
  const directory = mkdtempSync(join(tmpdir(), 'modelapi-s3-'));
  for (const prefix of PINNED_PREFIXES) {
    mkdirSync(join(directory, bucket, prefix), { recursive: true });
    writeFileSync(join(directory, bucket, prefix, '.pinned'), '');
  }
  const port = await freePort();
  let server: S3rver | undefined;
  const start = async () => {
    server = new S3rver({ port, address: '127.0.0.1', directory, silent: true, configureBuckets: [{ name: bucket, configs: [] }] });
    await server.run();
    if (options.onRequest) (server as unknown as { httpServer: Server }).httpServer.prependListener('request', options.onRequest);
  };
  const stop = async () => {
    const s = server;
    server = undefined;
    if (!s) return;
    const http = (s as unknown as { httpServer?: { closeAllConnections?: () => void } }).httpServer;
    http?.closeAllConnections?.();
    await s.close();
  };
  await start();
  const endpoint = `http://127.0.0.1:${port}`;
  const storage = new S3Storage({
    bucket, region: 'us-east-1', endpoint, forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return { storage, endpoint, start, stop, async close() { await stop(); storage.client.destroy(); rmSync(directory, { recursive: true, force: true }); } };
}

/** A clock the gateway reads; `advance` moves it forward (minutes). */
export function movableClock() {
  let offset = 0;
  const now = () => Date.now() + offset;
  return Object.assign(now, { advance: (minutes: number) => { offset += minutes * 60_000; }, reset: () => { offset = 0; } });
}

export const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4, 5, 6, 7, 8]);
export const PDF = new TextEncoder().encode('%PDF-1.4\n% a tiny test document\n%%EOF\n');

export interface Uploaded { ref: string; url: string; intent: Reply }

/** POST /.well-known/upload as `token`'s caller (default: the suite's). */
export async function intent(api: RunningApi, filename: string, contentType: string, token?: string | null): Promise<Reply> {
  return api.post('/.well-known/upload', { filename, contentType }, token === undefined ? {} : { token });
}

/** PUT raw bytes to an upload address (no Authorization: the signature is the permission). */
export async function putBytes(url: string, bytes: Uint8Array, contentType: string | undefined): Promise<Response> {
  const headers: Record<string, string> = contentType === undefined ? {} : { 'Content-Type': contentType };
  return fetch(url, { method: 'PUT', body: bytes as BodyInit, headers });
}

/** Intent plus upload: `putType` is the Content-Type of the PUT (default: the declared one). */
export async function upload(api: RunningApi, o: { name?: string; type?: string; bytes?: Uint8Array; putType?: string; token?: string | null } = {}): Promise<Uploaded> {
  const type = o.type ?? 'image/png';
  const reply = await intent(api, o.name ?? 'picture.png', type, o.token);
  const data = dataOf(reply, 201);
  const put = await putBytes(data.upload_url, o.bytes ?? PNG, o.putType ?? type);
  if (put.status !== 200) throw new Error(`upload PUT answered ${put.status}: ${await put.text()}`);
  return { ref: data.file_reference, url: data.upload_url, intent: reply };
}

/** The stored block of a file column, read as the superuser. */
export async function storedBlock(api: RunningApi, table: string, key: string, keyValue: string, column: string): Promise<any> {
  const rows = await api.db.sql.unsafe(`select ${column} as v from app.${table} where ${key} = $1`, [keyValue]);
  return rows[0]?.v ?? null;
}

/** Fetches a signed download address: status, type and bytes. */
export async function download(url: string): Promise<{ status: number; type: string | null; bytes: Uint8Array }> {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), bytes: new Uint8Array(await res.arrayBuffer()) };
}

export { dataOf, expectStatus };
