// The `s3` storage driver: any S3-compatible service through @aws-sdk/client-s3; upload and download
// addresses are presigned (SigV4) with the Content-Type bound to the PUT; path-style for local servers.
import {
  CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { SignOptions, Storage, StoredObject } from './storage.ts';

export interface S3Options {
  bucket: string;
  region: string;
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle?: boolean;
  /** Attempts per storage call (default 2): a stopped server fails the request quickly. */
  maxAttempts?: number;
  /** How long a call may take when its caller gives no signal (the outbox's deletes; default CALL_TIMEOUT_MS). */
  callTimeoutMs?: number;
}

/** A call's limit when its caller sets none: a service that stalls never holds a worker or a shutdown for ever. */
const CALL_TIMEOUT_MS = 30_000;

const seconds = (o: SignOptions) => Math.max(1, Math.round((o.expiresAt.getTime() - o.now.getTime()) / 1000));

export class S3Storage implements Storage {
  readonly driver = 's3' as const;
  readonly client: S3Client;
  readonly bucket: string;
  readonly #callTimeoutMs: number;

  constructor(opts: S3Options) {
    this.bucket = opts.bucket;
    this.#callTimeoutMs = opts.callTimeoutMs ?? CALL_TIMEOUT_MS;
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      ...(opts.credentials ? { credentials: opts.credentials } : {}),
      forcePathStyle: opts.forcePathStyle ?? false,
      maxAttempts: opts.maxAttempts ?? 2,
      // Without throwOnRequestTimeout the SDK only logs a request past its timeout, and waits on.
      requestHandler: { connectionTimeout: 5_000, requestTimeout: this.#callTimeoutMs, throwOnRequestTimeout: true },
    });
  }

  signPut(key: string, contentType: string, o: SignOptions): Promise<string> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, ContentType: contentType });
    return getSignedUrl(this.client, command, { expiresIn: seconds(o), signingDate: o.now, signableHeaders: new Set(['content-type']) });
  }

  signGet(key: string, file: { name: string; mime: string }, o: SignOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket, Key: key, ResponseContentType: file.mime,
      ResponseContentDisposition: `inline; filename*=UTF-8''${encodeURIComponent(file.name)}`,
    });
    return getSignedUrl(this.client, command, { expiresIn: seconds(o), signingDate: o.now });
  }

  /** The SDK's options of one call: ended by `signal`, else after the driver's limit. */
  #within(signal: AbortSignal | undefined) {
    return { abortSignal: signal ?? AbortSignal.timeout(this.#callTimeoutMs) };
  }

  async head(key: string, signal?: AbortSignal): Promise<StoredObject | undefined> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), this.#within(signal));
      return { size: out.ContentLength ?? 0, contentType: out.ContentType };
    } catch (err) {
      const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
      if (e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
      throw err;
    }
  }

  async copy(from: string, to: string, signal?: AbortSignal): Promise<void> {
    const source = `${this.bucket}/${from.split('/').map(encodeURIComponent).join('/')}`;
    await this.client.send(new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: source }), this.#within(signal));
  }

  async delete(key: string, signal?: AbortSignal): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }), this.#within(signal));
  }
}
