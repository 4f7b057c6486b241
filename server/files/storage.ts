// The storage drivers' one small interface (signed PUT and GET addresses, head, copy, delete); each driver
// implements it (local.ts, s3.ts) and drivers.ts chooses one from the environment.

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
