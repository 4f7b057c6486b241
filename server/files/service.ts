// The gateway's file handling in one object: upload intents, attach before a write (undone when the write
// fails), signed links in responses, the outbox worker; routes.ts serves its routes (upload intent, local driver).
import type { Sql } from 'postgres';
import type { Manifest } from '../../compiler/manifest/types.ts';
import type { Plan } from '../plan/plan.ts';
import { dispatch, type Call, type TransactionCall } from '../query/dispatch.ts';
import type { Pool } from '../pg/pools.ts';
import { attachFiles, type Attachment } from './attach.ts';
import { hasAny, holdsFiles, maxUploadBytes, returnedFileTree, normalizeType, writtenFiles, type FileTree } from './limits.ts';
import type { EmbedTree } from '../plan/embeds.ts';
import { Outbox, type DrainReport } from './outbox.ts';
import { LINK_LIFETIME_MS, presentFiles } from './present.ts';
import { DataBytes } from '../query/result-data.ts';
import type { SignOptions, Storage } from './storage.ts';
import { DEFAULT_LIMITS } from '../request/limits.ts';
import { failureLog, type FailureLog } from '../problem/log.ts';

export interface FilesOptions {
  sql: Sql;
  /** Where upload intents and attach checks run (the primary's pool, with its gate and time limits); default `sql`. */
  pool?: Pool;
  manifest: Manifest;
  storage: Storage;
  /** The clock signatures and expiries use (ms since the epoch; default Date.now): tests move it. */
  clock?: () => number;
  /** Absolute base URL of the gateway for the addresses it signs (PUBLIC_URL); default: the request's origin. */
  publicUrl?: string;
  /** Cap of a gateway-served upload (default: the largest maxSizeInBytes of the model). */
  maxUploadBytes?: number;
  /** How long an attach's storage calls may take: STATEMENT_TIMEOUT_MS (default: the pool's, else the default limit). */
  attachTimeoutMs?: number;
  /** Where the outbox's failures go (default: one JSON line each on stderr). */
  log?: FailureLog;
}

/** A stored block names its location: data without these bytes holds none. */
const LOCATION = Buffer.from('"location"');

export interface UploadIntent { file_reference: string; upload_url: string; expires_at: string }

export class Files {
  readonly storage: Storage;
  readonly clock: () => number;
  readonly maxUploadBytes: number;
  readonly outbox: Outbox;

  constructor(private readonly o: FilesOptions) {
    this.storage = o.storage;
    this.clock = o.clock ?? Date.now;
    this.maxUploadBytes = o.maxUploadBytes ?? maxUploadBytes(o.manifest);
    this.outbox = new Outbox(o.pool ?? o.sql, o.storage, this.clock, o.log ?? failureLog());
  }

  get manifest(): Manifest { return this.o.manifest; }

  /** PUBLIC_URL, else the origin the request came to. */
  origin(requestUrl: string): string {
    return (this.o.publicUrl ?? new URL(requestUrl).origin).replace(/\/+$/, '');
  }

  /** How addresses are signed: for `lifetimeMs` from now (a download link's LINK_LIFETIME_MS unless told). */
  sign(origin: string, lifetimeMs = LINK_LIFETIME_MS): SignOptions {
    const now = this.clock();
    return { now: new Date(now), expiresAt: new Date(now + lifetimeMs), origin };
  }

  /** POST /.well-known/upload: the intent in SQL (as the caller), then its signed upload address. */
  async intent(call: Omit<Call, 'fn' | 'args'>, filename: string, contentType: string, origin: string): Promise<UploadIntent> {
    const made = (await dispatch(this.o.pool ?? this.o.sql, { ...call, fn: 'upload_intent', args: { filename, contentType: normalizeType(contentType) } })) as
      { file_reference: string; tmp_key: string; lifetime_ms: number };
    // The address lasts as long as the intent (api.upload_intent holds its window), from the gateway's clock.
    const sign = this.sign(origin, made.lifetime_ms);
    // Signed with the type as the client wrote it (S3 compares the header exactly); compared normalized.
    const upload_url = await this.storage.signPut(made.tmp_key, contentType.trim(), sign);
    return { file_reference: made.file_reference, upload_url, expires_at: sign.expiresAt.toISOString() };
  }

  /** Runs one request's call: files attached before it (undone if it fails), links signed in its result. */
  around(plan: Plan, call: Call, run: () => Promise<unknown>, requestUrl: string): Promise<unknown> {
    // Most endpoints write no file property: nothing to attach or undo, and no wait of the gateway's own.
    if (!hasAny(writtenFiles(plan.endpoint))) return run().then((result) => this.#after(plan, result, requestUrl));
    return this.#attachedAround(plan, call, run, requestUrl);
  }

  async #attachedAround(plan: Plan, call: Call, run: () => Promise<unknown>, requestUrl: string): Promise<unknown> {
    const attached = await this.attach(plan, call);
    let result: unknown;
    try {
      result = await run();
    } catch (err) {
      await attached?.undo();
      throw err;
    }
    return this.#after(plan, result, requestUrl);
  }

  /** After a call committed: the outbox's drain when it queued files, the links of the files its result returns. */
  #after(plan: Plan, result: unknown, requestUrl: string): unknown {
    this.committed(result);
    const tree = this.#returned(plan);
    return tree ? this.#present(plan, tree, result, requestUrl) : result;
  }

  /**
   * Before a call: each file_reference in its body (each record's, for a bulk create) copied to uploads/
   * and checked there; `undo` deletes the copies when the write does not commit. In a transaction (a batch),
   * `inTransaction` runs upload_prepare on its connection: a batch holding a connection of the pool and
   * waiting for another could wait for ever (POOL_MAX batches doing so take them all). The storage calls end
   * at `deadline` (a batch's, for the whole transaction), by default STATEMENT_TIMEOUT_MS from now: a storage
   * service that stops answering is a 503, never a request (or a batch holding its row locks) left hanging.
   */
  async attach(plan: Plan, call: Call, inTransaction?: TransactionCall, deadline?: AbortSignal): Promise<Attachment | undefined> {
    const plans = plan.each ? plan.each.map((args) => ({ ...plan, args })) : [plan];
    const prepare = inTransaction ?? ((c: Call) => dispatch(this.o.pool ?? this.o.sql, c));
    const done: Attachment[] = [];
    const undo = async () => { await Promise.all(done.map((a) => a.undo())); };
    let signal = deadline;
    const lazy = () => (signal ??= this.deadline());
    try {
      for (const one of plans) {
        const a = await attachFiles(prepare, this.storage, one, call, lazy);
        if (a) done.push(a);
      }
    } catch (err) {
      await undo();
      throw err;
    }
    return done.length ? { undo } : undefined;
  }

  /** A signal that ends storage calls when a request's statements would be cancelled: STATEMENT_TIMEOUT_MS from now. */
  deadline(): AbortSignal {
    return AbortSignal.timeout(this.o.attachTimeoutMs ?? this.o.pool?.limits.statementTimeoutMs ?? DEFAULT_LIMITS.statementTimeoutMs);
  }

  /** After commit: when the database says the write queued files for deletion (lib.discard_file), a drain. */
  committed(result: unknown): void {
    if ((result as { outbox?: unknown } | null)?.outbox === true) this.outbox.kick();
  }

  /** Signed links in place of the stored blocks of a call's result (each record's, for a bulk create). */
  async present(plan: Plan, result: unknown, requestUrl: string): Promise<unknown> {
    const tree = this.#returned(plan);
    return tree ? await this.#present(plan, tree, result, requestUrl) : result;
  }

  /** The file properties of the rows the plan's call returns (with those of its embeds), when it has any. */
  #returned(plan: Plan): FileTree | undefined {
    const tree = returnedFileTree(this.o.manifest, plan.endpoint, plan.args.embed as EmbedTree | undefined);
    return holdsFiles(tree) ? tree : undefined;
  }

  /** The result with its links signed; the result itself, at once, when its data names no stored block. */
  #present(plan: Plan, tree: FileTree, result: unknown, requestUrl: string): unknown {
    const data = (result as { data?: unknown } | null)?.data;
    if (data instanceof DataBytes) {
      // Data as sent holds no stored block unless it names one's location: only then is it parsed.
      if (!data.bytes.includes(LOCATION)) return result;
      data.parseInto(result as { data: unknown });
    }
    return this.#sign(plan, tree, result, requestUrl);
  }

  async #sign(plan: Plan, tree: FileTree, result: unknown, requestUrl: string): Promise<unknown> {
    let signing: SignOptions | undefined; // one clock reading and origin for every link of the answer
    const sign = () => (signing ??= this.sign(this.origin(requestUrl)));
    const results = plan.each ? (result as { results?: unknown[] } | null)?.results ?? [] : [result];
    await Promise.all(results.map((r) => presentFiles(this.storage, tree, r, sign)));
    return result;
  }

  /** Deletes what is due in the outbox now (tests await it; the worker and writes call it too). */
  drain(): Promise<DrainReport> { return this.outbox.drain(); }
  sweep(): Promise<number> { return this.outbox.sweep(); }
  /** The background worker: drain every `drainEveryMs`, sweep every `sweepEveryMs` (timers do not hold the process). */
  start(drainEveryMs = 10_000, sweepEveryMs = 60_000): void { this.outbox.start(drainEveryMs, sweepEveryMs); }
  /** Stops the worker; waits `waitMs` at most for a drain under way (default: until it ends). */
  stop(waitMs?: number): Promise<void> { return this.outbox.stop(waitMs); }
}
