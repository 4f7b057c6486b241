// The choice of storage driver from the environment: `local` (default, under .data/files) or `s3`
// (any S3-compatible); both implement storage.ts's interface.
import { join } from 'node:path';
import { projectRoot } from '../pg/root.ts';
import { persistentSecret } from '../pg/secret.ts';
import { LocalStorage } from './local.ts';
import { S3Storage } from './s3.ts';
import type { Storage } from './storage.ts';

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
