// The one round trip of a request: `select api.dispatch(role, claims, ip, fn, args)`. dispatch sets
// the role and the transaction-local claims and IP, then runs api.<fn>(args), all in one statement.
// Arguments go as text (cast to jsonb in SQL) and the result comes back as text, so numbers keep their digits.
import type { PendingQuery, Row, Sql } from 'postgres';
import type { Pool } from '../pg/pools.ts';
import type { Identity } from '../request/auth.ts';
import { argsText, parseResult } from './json.ts';

export interface Call {
  identity: Identity;
  ip: string | null;
  fn: string;
  args: Record<string, unknown>;
  /** Bulk create: the arguments of each call, run in order by api.dispatch_each in one statement (then `args` is unused). */
  each?: Array<Record<string, unknown>>;
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

type Target = Sql | Pool;
const isPool = (t: Target): t is Pool => typeof t !== 'function';

/** What one statement is held to: the lock timeout (transaction-local) and when the gateway cancels it. */
interface Bounds { lockTimeoutMs: number; cancelAfterMs: number }

/**
 * The statement. On a pool, the lock timeout is set transaction-local in a subquery that runs before the
 * call (volatile, so never flattened): it holds behind a transaction-mode pooler, where a session setting
 * would leak to other clients or be refused at connect.
 */
function statement(sql: Sql, call: Call, lockTimeoutMs: number | undefined): PendingQuery<Row[]> {
  const { role, claims } = call.identity;
  const claimsText = JSON.stringify(claims);
  const invoke = call.each
    ? sql`api.dispatch_each(${role}, ${claimsText}::text::jsonb, ${call.ip}, ${call.fn}, ${argsText(call.each)}::text::jsonb)::text`
    : sql`api.dispatch(${role}, ${claimsText}::text::jsonb, ${call.ip}, ${call.fn}, ${argsText(call.args)}::text::jsonb)::text`;
  if (lockTimeoutMs === undefined) return sql`select ${invoke} as result`;
  return sql`
    select ${invoke} as result
    from (select set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true)) as request_limits`;
}

/**
 * Runs the statement; with bounds, cancels it once it outlives them (57014, answered 503). A cancel is a
 * request of its own to the server, so it works through a pooler too.
 */
async function run(sql: Sql, call: Call, bounds: Bounds | undefined): Promise<unknown> {
  const query = statement(sql, call, bounds?.lockTimeoutMs);
  const timer = bounds ? setTimeout(() => void query.cancel(), Math.max(bounds.cancelAfterMs, 1)) : undefined;
  let result: unknown;
  try {
    result = parseResult((await query)[0]?.result ?? null);
  } finally {
    clearTimeout(timer);
  }
  const failed = call.each ? (result as { failed?: Record<string, unknown> } | null)?.failed : undefined;
  if (failed) throw new ElementFailure(failed);
  return result;
}

const boundsOf = (pool: Pool, startedAt = Date.now()): (() => Bounds) =>
  () => ({ lockTimeoutMs: pool.limits.lockTimeoutMs, cancelAfterMs: startedAt + pool.limits.statementTimeoutMs - Date.now() });

export async function dispatch(target: Target, call: Call): Promise<unknown> {
  if (!isPool(target)) return run(target, call, undefined);
  return target.gate.run(() => run(target.sql, call, boundsOf(target)()));
}

/** Runs one call inside a transaction (see `transaction`). */
export type TransactionCall = (call: Call) => Promise<unknown>;

/**
 * Several calls in one transaction on one connection, committed when `work` returns and rolled back when it
 * throws. On a pool it holds one place of the gate, and STATEMENT_TIMEOUT_MS bounds the whole transaction:
 * each statement is cancelled when the time left runs out.
 */
export async function transaction<T>(target: Target, work: (call: TransactionCall) => Promise<T>): Promise<T> {
  const pool = isPool(target) ? target : undefined;
  const begin = () => (pool?.sql ?? (target as Sql)).begin(async (tx) => {
    const bounds = pool ? boundsOf(pool) : undefined;
    return work((call) => run(tx as unknown as Sql, call, bounds?.()));
  }) as Promise<T>;
  return pool ? pool.gate.run(begin) : begin();
}

/**
 * Like dispatch, but inside a transaction that `check` can veto (by throwing) before it commits:
 * used where the gateway must judge the function's result, e.g. a merged JSON document.
 */
export async function dispatchChecked(target: Target, call: Call, check: (result: unknown) => void): Promise<unknown> {
  return transaction(target, async (run) => {
    const result = await run(call);
    check(result);
    return result;
  });
}
