// One real listening gateway per end-to-end suite: a fresh database with an example model installed,
// `createApp` served by @hono/node-server on a free port, and the superuser client kept for checks.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import postgres from 'postgres';
import type { Manifest } from '../../../compiler/manifest/types.ts';
import { createApp, type AppOptions } from '../../../server/app.ts';
import { loadManifest } from '../../../server/query/manifest.ts';
import { freshDatabase, installModel, type TestDatabase } from '../../harness/db.ts';
import { freePort } from '../../harness/net.ts';
import { Client } from './http.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Files } from '../../../server/files/service.ts';
import { DEFAULT_LIMITS, type RequestLimits } from '../../../server/request/limits.ts';
import { listen } from '../../../server/http/listen.ts';
import { compileTrust, trustedPeer } from '../../../server/request/caller.ts';
import { LocalStorage } from '../../../server/files/local.ts';
import type { Storage } from '../../../server/files/storage.ts';
import { ChangeStreams, streamTimings } from '../../../server/events/streams.ts';

export const JWT_SECRET = 'e2e-test-secret-0123456789abcdef-0123456789abcdef';

export interface StartOptions {
  maxBodyBytes?: number;
  /** Request limits (server/request/limits.ts), as the environment would set them. */
  limits?: Partial<RequestLimits>;
  /** Answer with an Access-Scenario header naming the winning scenario (EXPLAIN_ACCESS). */
  explainAccess?: boolean;
  /** Take the caller's IP from X-Forwarded-For (TRUST_PROXY); without the header, the socket's. */
  trustProxy?: boolean;
  /** File storage (default: the local driver in a temporary folder, removed on close). */
  storage?: Storage;
  /** The clock of file signatures and expiries (default Date.now). */
  clock?: () => number;
  /** Identity options of the app as the environment would set them (signing key, /auth settings, claim paths). */
  identity?: Pick<AppOptions, 'signingKey' | 'auth' | 'claimPaths' | 'jwksUrl'>;
}

export interface RunningApi extends Client {
  db: TestDatabase;
  manifest: Manifest;
  /** The gateway's file handling: drain() and sweep() run the outbox now. */
  files: Files;
  /** The gateway's change-stream hub. */
  streams: ChangeStreams;
  /** 5xx causes the gateway logged while the suite ran (each a bug: no input may cause one). */
  serverErrors: string[];
  close(): Promise<void>;
}

/** Installs a model (a file relative to the project root, or the model itself) into a fresh database and serves its API. */
export async function startApi(model: string | object, options: StartOptions = {}): Promise<RunningApi> {
  const db = await freshDatabase();
  try {
    await installModel(db, model);
    const gateway = await serveDatabase(db, options);
    const stop = gateway.close.bind(gateway);
    return Object.assign(gateway, {
      async close() {
        await stop();
        await db.close();
      },
    });
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
}

/** Another gateway on the database `api` serves (its own connections, LISTEN and change-stream hub). */
export function anotherGateway(api: RunningApi, options: StartOptions = {}): Promise<RunningApi> {
  return serveDatabase(api.db, options);
}

/** A gateway on `db`, which already holds a model; closing it leaves the database. */
async function serveDatabase(db: TestDatabase, options: StartOptions): Promise<RunningApi> {
  let gatewaySql: postgres.Sql | undefined;
  const fileDir = options.storage ? undefined : mkdtempSync(join(tmpdir(), 'modelapi-files-'));
  const removeFiles = () => fileDir && rmSync(fileDir, { recursive: true, force: true });
  try {
    gatewaySql = postgres(db.url, { onnotice: () => {}, max: 4 });
    const manifest = await loadManifest(gatewaySql);
    const serverErrors: string[] = [];
    const log = (message: string, err: unknown, request?: { method: string; path: string; status: number }) =>
      serverErrors.push(`${request ? `${request.method} ${request.path} failed with ${request.status}, ` : ''}${message}: ${(err as Error)?.stack ?? String(err)}`);
    const storage = options.storage ?? new LocalStorage({ dir: fileDir!, secret: 'e2e-file-secret', basePath: manifest.api.basePath });
    const files = new Files({ sql: gatewaySql, manifest, storage, log, ...(options.clock ? { clock: options.clock } : {}),
      ...(options.limits?.statementTimeoutMs ? { attachTimeoutMs: options.limits.statementTimeoutMs } : {}) });
    const limits = { ...DEFAULT_LIMITS, ...options.limits };
    const streams = new ChangeStreams({ pool: gatewaySql, listener: gatewaySql, log, ...streamTimings(limits) });
    const app = createApp({
      files,
      sql: gatewaySql,
      manifest,
      jwtSecret: JWT_SECRET,
      streams,
      ...(options.maxBodyBytes ? { maxBodyBytes: options.maxBodyBytes } : {}),
      ...(options.limits ? { limits: options.limits } : {}),
      ...(options.explainAccess ? { explainAccess: true } : {}),
      ...(options.trustProxy ? { trustProxy: true } : {}),
      ...options.identity,
      log,
    });
    const port = await freePort();
    const server = await new Promise<Server>((resolve, reject) => {
      const trusted = options.trustProxy ? { trusted: trustedPeer(compileTrust(true)) } : {};
      const largestBody = Math.max(limits.maxBodyBytes, files.storage.driver === 'local' ? files.maxUploadBytes : 0);
      const s = listen(app.fetch, { port, hostname: '127.0.0.1', limits, docsUrl: manifest.api.docsUrl, largestBody, ...trusted }, () => resolve(s));
      s.once('error', reject);
    });
    const address = server.address() as AddressInfo;
    const origin = `http://127.0.0.1:${address.port}`;
    const client = new Client(origin, manifest.api.basePath, manifest.api.docsUrl, JWT_SECRET);
    const sqlForGateway = gatewaySql;
    return Object.assign(client, {
      db,
      manifest,
      files,
      streams,
      serverErrors,
      async close() {
        await streams.close();
        await files.stop();
        await new Promise<void>((resolve) => {
          (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
          server.close(() => resolve());
        });
        await sqlForGateway.end({ timeout: 5 });
        removeFiles();
      },
    });
  } catch (err) {
    await gatewaySql?.end({ timeout: 5 }).catch(() => {});
    removeFiles();
    throw err;
  }
}
