// The `local` storage driver: objects are files under a folder (bytes plus a small .json with their type),
// and its upload and download addresses point at the gateway itself, signed with HMAC-SHA256 and expiring.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SignOptions, Storage, StoredObject } from './storage.ts';

export interface LocalOptions {
  dir: string;
  /** The HMAC key, or a function that gives it (read when first needed). */
  secret: string | (() => string);
  /** The API's base path; addresses are {origin}{basePath}/.well-known/files/<key>. */
  basePath: string;
}

/** Keys the gateway makes: tmp/<uuid> and uploads/<uuid>; nothing else reaches the disk. */
const KEY = /^(tmp|uploads)\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const isLocalKey = (key: string) => KEY.test(key);

/** The signed query of an address: method, key, expiry and (PUT) the type or (GET) the name and type. */
export interface Signed {
  method: 'PUT' | 'GET';
  key: string;
  expires: number;
  type: string;
  name?: string;
}

export class LocalStorage implements Storage {
  readonly driver = 'local' as const;
  #secret: string | undefined;

  constructor(private readonly opts: LocalOptions) {}

  path(key: string): string {
    if (!isLocalKey(key)) throw new Error(`not a storage key: ${key}`);
    return join(this.opts.dir, key);
  }

  async signPut(key: string, contentType: string, o: SignOptions): Promise<string> {
    return this.#address({ method: 'PUT', key, expires: Math.floor(o.expiresAt.getTime() / 1000), type: contentType }, o.origin);
  }

  async signGet(key: string, file: { name: string; mime: string }, o: SignOptions): Promise<string> {
    return this.#address({ method: 'GET', key, expires: Math.floor(o.expiresAt.getTime() / 1000), type: file.mime, name: file.name }, o.origin);
  }

  /** Whether `sig` signs `s` (expiry is for the caller to judge). */
  verify(s: Signed, sig: string): boolean {
    const want = Buffer.from(this.#sign(s));
    const got = Buffer.from(sig);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  async head(key: string): Promise<StoredObject | undefined> {
    try {
      const [info, meta] = await Promise.all([stat(this.path(key)), readFile(`${this.path(key)}.json`, 'utf8')]);
      return { size: info.size, contentType: (JSON.parse(meta) as { contentType?: string }).contentType };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async copy(from: string, to: string): Promise<void> {
    await mkdir(dirname(this.path(to)), { recursive: true });
    await copyFile(`${this.path(from)}.json`, `${this.path(to)}.json`);
    await copyFile(this.path(from), this.path(to));
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
    await rm(`${this.path(key)}.json`, { force: true });
  }

  /** Moves a finished upload (a part file) into place under `key`, with its type. */
  async store(key: string, part: string, contentType: string): Promise<void> {
    await writeFile(`${this.path(key)}.json`, JSON.stringify({ contentType }));
    await rename(part, this.path(key));
  }

  /** A fresh part file next to `key`'s place, for streaming an upload into. */
  async partFile(key: string): Promise<string> {
    await mkdir(dirname(this.path(key)), { recursive: true });
    return `${this.path(key)}.${process.pid}.${Date.now()}.${Math.random().toString(36).slice(2)}.part`;
  }

  #address(s: Signed, origin: string): string {
    const q = new URLSearchParams({ expires: String(s.expires), type: s.type, ...(s.name !== undefined ? { name: s.name } : {}), sig: this.#sign(s) });
    return `${origin}${this.opts.basePath}/.well-known/files/${s.key}?${q}`;
  }

  #sign(s: Signed): string {
    this.#secret ??= typeof this.opts.secret === 'function' ? this.opts.secret() : this.opts.secret;
    const payload = JSON.stringify([s.method, s.key, s.expires, s.type, s.name ?? null]);
    return createHmac('sha256', this.#secret).update(payload).digest('base64url');
  }
}
