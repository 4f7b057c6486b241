// The one round trip of a request: `select api.dispatch(role, claims, ip, fn, args)`. dispatch sets
// the role and the transaction-local claims and IP, then runs api.<fn>(args), all in one statement.
// Arguments go as text (cast to jsonb in SQL) and the result comes back as text, so numbers keep their digits.
import type { PendingQuery, Row, Sql } from 'postgres';
import { STALE_MS, WRITE_PLACES } from '../pg/gate.ts';
import { gated, isPool, type Pool, type Target } from '../pg/pools.ts';
import type { Identity } from '../request/auth.ts';
import { ApiError } from '../problem/types.ts';
import { CONNECTION_LOST, DEADLOCK_DETECTED, LOCK_NOT_AVAILABLE, QUERY_CANCELED, SERIALIZATION_FAILURE } from '../problem/sqlstate.ts';
import type { Once } from '../request/idempotency.ts';
import { argsText, parseResult } from '../codec/json.ts';
import { parseWithData } from './result-data.ts';
import { callerKey } from '../request/caller.ts';
import { onlyRow, resetRowCount } from '../pg/row-count.ts';
import type { Call } from '../plan/call.ts';

export type { Call };

/**
 * A refusal the function answered instead of raising (`{refused: {code, message, detail, hint}}`: a read of a record
 * the caller may not see, asked for with `answer_refusal`), thrown as the database error it stands for, with the same
 * fields, so everything above (problem mapping, batches' rollback) treats it as it treated the raise. Not an Error:
 * an expected 4xx captures no stack, where a raise made postgres.js build an error and format its stack.
 */
export class Refused {
  readonly code: string;
  readonly message: string;
  readonly detail: string | undefined;
  readonly hint: string | undefined;
  constructor(r: { code?: unknown; message?: unknown; detail?: unknown; hint?: unknown }) {
    this.code = String(r.code);
    this.message = typeof r.message === 'string' ? r.message : '';
    this.detail = typeof r.detail === 'string' ? r.detail : undefined;
    this.hint = typeof r.hint === 'string' ? r.hint : undefined;
  }
}

/** An element of a bulk create failed: the database error's fields, and the element's index (from 0). */
export class ElementFailure extends Error {
  readonly index: number;
  readonly code: string;
  constructor(failed: Record<string, unknown>) {
    super(typeof failed.message === 'string' ? failed.message : 'a bulk element failed');
    Object.assign(this, failed);
    this.index = Number(failed.index);
    this.code = String(failed.code);
  }
}

/** What one statement is held to: the lock timeout (transaction-local) and when the gateway cancels it. */
interface Bounds { lockTimeoutMs: number; cancelAfterMs: number }

/** The four texts of the statement: one call or a bulk create's, with or without a lock timeout. */
const CALL = '($1, $2::text::jsonb, $3, $4, $5::text::jsonb)::text as result';
const LIMITED = " from (select set_config('lock_timeout', $6, true)) as request_limits";
const TEXTS = {
  one: `select api.dispatch${CALL}`, each: `select api.dispatch_each${CALL}`,
  oneLimited: `select api.dispatch${CALL}${LIMITED}`, eachLimited: `select api.dispatch_each${CALL}${LIMITED}`,
};

/**
 * The statement, as fixed text with its values as parameters (prepared once per connection where the
 * pool prepares). On a pool, the lock timeout is set transaction-local in a subquery that runs before
 * the call (volatile, so never flattened): it holds behind a transaction-mode pooler, where a session
 * setting would leak to other clients or be refused at connect.
 */
function statement(sql: Sql, call: Call, lockTimeoutMs: number | undefined): PendingQuery<Row[]> {
  const values = [call.identity.role, claimsText(call.identity), call.ip, call.fn, argsText(call.each ?? call.args)];
  if (lockTimeoutMs === undefined) return sql.unsafe(call.each ? TEXTS.each : TEXTS.one, values, { prepare: true });
  return sql.unsafe(call.each ? TEXTS.eachLimited : TEXTS.oneLimited, [...values, `${lockTimeoutMs}ms`], { prepare: true });
}

/** The claims' JSON text, written once per identity (identify gives a cached token's requests the same one). */
const claimsTexts = new WeakMap<Identity, string>();
function claimsText(identity: Identity): string {
  let text = claimsTexts.get(identity);
  if (text === undefined) claimsTexts.set(identity, text = JSON.stringify(identity.claims));
  return text;
}

/**
 * Cancels this statement did not ask for: a cancel request reaches whatever its connection runs when it arrives,
 * so one sent as the statement before ended (the next was already pipelined behind it) stops this one
 * instead; or an operator's pg_cancel_backend. The statement was rolled back, so it may run again.
 */
const strayCancels = new WeakSet<object>();

/**
 * Runs the statement; with bounds, cancels it once it outlives them (57014, answered 503). A cancel is a
 * request of its own to the server, so it works through a pooler too.
 */
async function run(sql: Sql, call: Call, bounds: Bounds | undefined): Promise<unknown> {
  const { recipient } = call;
  if (recipient?.gone) throw clientClosed(); // it hung up while the statement waited for a connection
  const query = statement(sql, call, bounds?.lockTimeoutMs);
  let cancelled = false, hungUp = false;
  const cancel = () => { cancelled = true; void query.cancel(); };
  const timer = bounds ? setTimeout(cancel, Math.max(bounds.cancelAfterMs, 1)) : undefined;
  const forget = recipient?.onGone(() => {
    hungUp = true;
    cancel();
  });
  let result: unknown;
  try {
    // A result whose data stays as sent comes as bytes (postgres.js `raw`): the members around the data are decoded and
    // parsed, the data's own text is decoded once, into the answer (respond.ts).
    result = call.dataAsSent ? parseWithData(onlyRow(await query.raw())?.[0] ?? null) : parseResult(onlyRow(await query)?.result ?? null);
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (code === QUERY_CANCELED) await resetRowCount(sql);
    if (hungUp) throw clientClosed();
    if (!cancelled && err instanceof Error && code === QUERY_CANCELED) strayCancels.add(err);
    throw err;
  } finally {
    forget?.();
    clearTimeout(timer);
  }
  const failed = call.each ? (result as { failed?: Record<string, unknown> } | null)?.failed : undefined;
  if (failed) throw new ElementFailure(failed);
  const refused = (result as { refused?: Record<string, unknown> } | null)?.refused;
  if (refused) throw new Refused(refused);
  return result;
}

/** The answer to a client that hung up: never sent, but logged and counted as 499 (nginx's "client closed request"). */
const clientClosed = () => new ApiError('clientClosed', 'The client closed the connection before the answer; its statement was cancelled.');

const boundsOf = (pool: Pool, startedAt = Date.now()): (() => Bounds) =>
  () => ({ lockTimeoutMs: pool.limits.lockTimeoutMs, cancelAfterMs: startedAt + pool.limits.statementTimeoutMs - Date.now() });

/**
 * Runs the call's one statement. A statement a deadlock, a serialization failure or a stray cancel rolled back
 * changed nothing, so it runs once more on a connection of its own, within the time left (two bulk creates
 * crossing on unique keys: the second then meets the first's rows, 409, instead of a 503); a second failure is answered.
 * A read by key whose connection was lost under it runs again too (connectionLost).
 */
export async function dispatch(target: Target, call: Call): Promise<unknown> {
  if (!isPool(target)) return run(target, call, undefined);
  const startedAt = Date.now();
  try {
    return await dispatchOnce(target, call);
  } catch (err) {
    if (!retryable(err) && !(call.shares === 'read' && connectionLost(err))) throw err;
  }
  // A lost connection's last words (57P01) may reach the statement sent next on its client: a read runs once more.
  for (let lost = 0; ; lost++) {
    try {
      return await target.gate.run('close', (sql) => run(sql, call, boundsOf(target, startedAt)()), callerKey(call.identity, call.ip));
    } catch (err) {
      if (lost > 0 || call.shares !== 'read' || !connectionLost(err)) throw err;
    }
  }
}

/**
 * The connection went away under the statement (a restarted server, pg_terminate_backend, a pooler's restart):
 * a read by key changed nothing, so it runs once more, on a connection made afresh. A write is not retried: it
 * may have committed before the connection was lost.
 */
const connectionLost = (err: unknown): boolean => CONNECTION_LOST.has(String((err as { code?: unknown } | null)?.code));

function dispatchOnce(target: Pool, call: Call): Promise<unknown> {
  const caller = callerKey(call.identity, call.ip);
  if (call.shares !== 'write' || target.gate.depth === 1) {
    return target.gate.run(call.shares === 'read' ? 'share' : 'close', (sql) => run(sql, call, boundsOf(target)()), caller);
  }
  return sharedWrite(target, call, caller);
}

async function sharedWrite(target: Pool, call: Call, caller: string): Promise<unknown> {
  // A write others may be sent behind waits STALE_MS at most for a row lock, so they never wait longer on its
  // account. Refused the lock in that time, it changed nothing: it runs again on a connection of its own, with
  // the whole LOCK_TIMEOUT_MS, and the statement time counted from its first start.
  let bounds: (() => Bounds) | undefined;
  try {
    return await target.gate.run('share', (sql) => {
      bounds = boundsOf(target);
      return run(sql, call, { ...bounds(), lockTimeoutMs: STALE_MS });
    }, caller, WRITE_PLACES);
  } catch (err) {
    if (!bounds || (err as { code?: unknown }).code !== LOCK_NOT_AVAILABLE) throw err;
  }
  return target.gate.run('close', (sql) => run(sql, call, bounds!()), caller);
}

/** Runs one call inside a transaction (see `transaction`). */
export type TransactionCall = (call: Call) => Promise<unknown>;

/**
 * Holds an Idempotency-Key for the transaction (another request holding it: 409) and returns the answer
 * kept for it, if any.
 */
export async function holdKey(tx: Sql, once: Once): Promise<unknown> {
  const [row] = await tx`select lib.idempotency_claim(${once.caller}, ${once.key}) as claimed`;
  if (!row?.claimed) throw new ApiError('idempotencyInProgress', 'A request with this Idempotency-Key is still running; retry when it has answered.', { headers: { 'Retry-After': '1' } });
  return keptAnswer(tx, once);
}

/** Keeps the answer of a key before the commit, as the gateway's own role (a call leaves the request role set). */
export async function keepAnswer(tx: Sql, once: Once, result: unknown): Promise<void> {
  // Its own statement: EXECUTE is checked as a statement starts, and the request role may not keep.
  await tx`select set_config('role', 'none', true)`;
  await tx`select lib.idempotency_keep(${once.caller}, ${once.key}, ${once.fingerprint}, ${argsText(result)}::text::json, ${once.ttlSeconds}::int)`;
}

/**
 * A deadlock, a serialization failure or a stray cancel rolled back the statement or transaction, as the error
 * or one it wraps (a cause) says: it changed nothing and may run again.
 */
function retryable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE || strayCancels.has(e)) return true;
  }
  return false;
}

export interface TransactionOptions {
  /** Undoes what a failed attempt did outside the database, before the transaction runs again. */
  beforeRetry?: () => Promise<void>;
  /** Who sent the request (server/request/caller.ts): the connection counts against its share. */
  caller?: string;
}

/**
 * Several calls in one transaction on one connection, committed when `work` returns and rolled back when it
 * throws. On a pool it holds one place of the gate, and STATEMENT_TIMEOUT_MS bounds the whole transaction:
 * each statement is cancelled when the time left runs out. A transaction a deadlock, a serialization failure or a
 * stray cancel rolled back (it changed nothing) runs once more, on the same connection and within the same time, after
 * `beforeRetry` (if any) has undone what the failed attempt did outside the database; a second failure is thrown.
 */
export async function transaction<T>(target: Target, work: (call: TransactionCall, tx: Sql) => Promise<T>, o: TransactionOptions = {}): Promise<T> {
  const { beforeRetry = async () => {} } = o;
  const pool = isPool(target) ? target : undefined;
  const attempt = (sql: Sql, bounds: (() => Bounds) | undefined) => sql.begin(async (tx) =>
    work((call) => run(tx as unknown as Sql, call, bounds?.()), tx as unknown as Sql)) as Promise<T>;
  const begin = async (sql: Sql) => {
    const bounds = pool ? boundsOf(pool) : undefined;
    try {
      return await attempt(sql, bounds);
    } catch (err) {
      if (!retryable(err)) throw err;
    }
    await beforeRetry();
    return attempt(sql, bounds);
  };
  return pool ? pool.gate.run('own', begin, o.caller) : begin(target as Sql);
}

/** What a transactional dispatch does besides the call. */
export interface Guard {
  /** Judges the function's result before commit (throws to roll back), e.g. a merged JSON document. */
  check?: (result: unknown) => void;
  /** An Idempotency-Key: a kept answer is replayed; else the answer is kept in the write's transaction. */
  once?: Once;
}

/**
 * Like dispatch, but inside a transaction with the guard's steps. With `once`, the key is held for the
 * transaction (another request with it: 409), a kept answer replaces the call, and a new one is kept
 * by the gateway's own role (the call left the request role set) before the commit.
 */
export async function dispatchGuarded(target: Target, call: Call, guard: Guard): Promise<unknown> {
  const { check, once } = guard;
  return transaction(target, async (runCall, tx) => {
    if (once) {
      const kept = await holdKey(tx, once);
      if (kept !== undefined) return kept;
    }
    const result = await runCall(call);
    check?.(result);
    if (once) await keepAnswer(tx, once, result);
    return result;
  }, { caller: callerKey(call.identity, call.ip) });
}

/** The answer kept for an Idempotency-Key, marked `replayed`; another request with the key is 422. */
export async function keptAnswer(target: Target, once: Once): Promise<unknown> {
  const [row] = await gated(target, (sql) => sql`select fingerprint, result::text as result from lib.idempotency_kept(${once.caller}, ${once.key})`, 'share');
  if (!row) return undefined;
  if (row.fingerprint !== once.fingerprint) {
    throw new ApiError('idempotencyKeyReused', 'This Idempotency-Key was used for another request; use a new key for a new request.');
  }
  const result = parseResult(row.result as string);
  if (result && typeof result === 'object') (result as { replayed?: boolean }).replayed = true;
  return result;
}
