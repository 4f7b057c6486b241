// Shared setup of the gateway suites: a fresh database with a model installed, the app built from
// the manifest that database serves, tokens signed with the test secret, and a small request helper.
import { SignJWT } from 'jose';
import { join } from 'node:path';
import type { Hono } from 'hono';
import { createApp } from '../../server/app.ts';
import { loadManifest } from '../../server/query/manifest.ts';
import type { Manifest } from '../../compiler/manifest/types.ts';
import { freshDatabase, installModel, type TestDatabase } from '../harness/db.ts';
import { root } from '../harness/child.ts';

export const SECRET = 'test-secret-test-secret-test-secret-0123456789';
export const publishingModel = join(root, 'examples/publishing.model.json');
export const BASE = '/api/publishing/v1';

export interface Api {
  db: TestDatabase;
  manifest: Manifest;
  app: Hono;
  /** 5xx causes the app logged. */
  logged: unknown[];
  close(): Promise<void>;
}

export async function startApi(model: unknown = publishingModel, maxBodyBytes = 64 * 1024): Promise<Api> {
  const db = await freshDatabase();
  await installModel(db, model);
  const manifest = await loadManifest(db.sql);
  const logged: unknown[] = [];
  const app = createApp({ sql: db.sql, manifest, jwtSecret: SECRET, maxBodyBytes, log: (_m, err) => void logged.push(err) });
  return { db, manifest, app, logged, close: () => db.close() };
}

export function token(claims: Record<string, unknown>, secret = SECRET, expires: string | number = '1h'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(expires)
    .sign(new TextEncoder().encode(secret));
}

export interface Call {
  body?: unknown;
  /** Raw body text (sent as given, with `type` or no Content-Type). */
  raw?: string;
  type?: string;
  bearer?: string;
  headers?: Record<string, string>;
}

export async function call(app: Hono, method: string, path: string, opts: Call = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.bearer) headers.Authorization = `Bearer ${opts.bearer}`;
  let body: BodyInit | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['Content-Type'] = opts.type ?? 'application/json';
  } else if (opts.raw !== undefined) {
    // A string body gets text/plain from the Request constructor; bytes go out untyped.
    body = opts.type ? opts.raw : new Blob([opts.raw]);
    if (opts.type) headers['Content-Type'] = opts.type;
  }
  const res = await app.request(path.startsWith('/') && !path.startsWith(BASE) && !path.startsWith('/api') ? BASE + path : path, { method, headers, body });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}
