// The storage drivers' one small interface (signed PUT and GET addresses, head, copy, delete) and the
// choice of driver from the environment: `local` (default, under .data/files) or `s3` (any S3-compatible).
import { join } from 'node:path';
import { projectRoot } from '../pg/root.ts';
import { persistentSecret } from '../pg/secret.ts';
import { LocalStorage } from './local.ts';
import { S3Storage } from './s3.ts';

/** What a HEAD of a stored object tells. */
export interface StoredObject {
  size: number;
  contentType: string | undefined;
}

export interface SignOptions {
  /** When the address stops working. */
  expiresAt: Date;
  /** The gateway's clock: the signing time. */
  now: Date;
  /** Absolute origin the gateway is reached at (PUBLIC_URL or the request's), for gateway-served addresses. */
  origin: string;
}

export interface Storage {
  readonly driver: 'local' | 's3';
  /** An address that takes one PUT of the bytes with exactly this Content-Type. */
  signPut(key: string, contentType: string, opts: SignOptions): Promise<string>;
  /** An address that serves the object with the file's type and name. */
  signGet(key: string, file: { name: string; mime: string }, opts: SignOptions): Promise<string>;
  /**
   * Size and type of the object; undefined when there is none. `signal` ends a call that outlives its request
   * (a storage service that accepts connections and never answers); without one the driver's own limit holds.
   */
  head(key: string, signal?: AbortSignal): Promise<StoredObject | undefined>;
  copy(from: string, to: string, signal?: AbortSignal): Promise<void>;
  /** Deleting a missing object succeeds. */
  delete(key: string, signal?: AbortSignal): Promise<void>;
}

export type Env = Record<string, string | undefined>;

const truthy = (v: string | undefined) => !!v && !/^(0|false|no)$/i.test(v);

/**
 * The driver STORAGE_DRIVER names: `local` (default; `.data/files`, HMAC secret kept in
 * `.data/files-secret`) or `s3` (S3_BUCKET required; S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID,
 * S3_SECRET_ACCESS_KEY, S3_FORCE_PATH_STYLE). `basePath` is where the gateway serves local addresses.
 */
export function storageFromEnv(env: Env, basePath: string): Storage {
  const driver = (env.STORAGE_DRIVER || 'local').toLowerCase();
  if (driver === 'local') {
    const data = join(projectRoot, '.data');
    const secret = env.FILES_SECRET;
    return new LocalStorage({ dir: env.FILES_DIR ?? join(data, 'files'), secret: () => secret ?? persistentSecret(join(data, 'files-secret'), 32), basePath });
  }
  if (driver !== 's3') throw new Error(`STORAGE_DRIVER must be local or s3, got "${env.STORAGE_DRIVER}"`);
  if (!env.S3_BUCKET) throw new Error('STORAGE_DRIVER=s3 needs S3_BUCKET');
  const credentials = env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
    ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY } : undefined;
  return new S3Storage({
    bucket: env.S3_BUCKET,
    region: env.S3_REGION || 'us-east-1',
    ...(env.S3_ENDPOINT ? { endpoint: env.S3_ENDPOINT } : {}),
    ...(credentials ? { credentials } : {}),
    forcePathStyle: truthy(env.S3_FORCE_PATH_STYLE),
  });
}
