// The one round trip of a request: `select api.dispatch(role, claims, ip, fn, args)`. dispatch sets
// the role and the transaction-local claims and IP, then runs api.<fn>(args), all in one statement.
// Arguments go as text (cast to jsonb in SQL) and the result comes back as text, so numbers keep their digits.
import type { PendingQuery, Row, Sql } from 'postgres';
import type { Pool } from '../pg/pools.ts';
import type { Identity } from '../request/auth.ts';
import { ApiError } from '../problem/types.ts';
import type { Once } from '../request/idempotency.ts';
import { argsText, parseResult } from './json.ts';

export interface Call {
  identity: Identity;
  ip: string | null;
  fn: string;
  args: Record<string, unknown>;
}

type Target = Sql | Pool;
const isPool = (t: Target): t is Pool => typeof t !== 'function';

/**
 * The statement. On a pool, the lock timeout is set transaction-local in a subquery that runs before the
 * call (volatile, so never flattened): it holds behind a transaction-mode pooler, where a session setting
 * would leak to other clients or be refused at connect.
 */
function statement(sql: Sql, call: Call, lockTimeoutMs: number | undefined): PendingQuery<Row[]> {
  const { role, claims } = call.identity;
  const claimsText = JSON.stringify(claims), args = argsText(call.args);
  if (lockTimeoutMs === undefined) {
    return sql`select api.dispatch(${role}, ${claimsText}::text::jsonb, ${call.ip}, ${call.fn}, ${args}::text::jsonb)::text as result`;
  }
  return sql`
    select api.dispatch(${role}, ${claimsText}::text::jsonb, ${call.ip}, ${call.fn}, ${args}::text::jsonb)::text as result
    from (select set_config('lock_timeout', ${`${lockTimeoutMs}ms`}, true)) as request_limits`;
}

/**
 * Runs the statement; on a pool, cancels it once it outlives STATEMENT_TIMEOUT_MS (57014, answered 503).
 * A cancel is a request of its own to the server, so it works through a pooler too.
 */
async function run(sql: Sql, call: Call, pool: Pool | undefined): Promise<unknown> {
  const query = statement(sql, call, pool?.limits.lockTimeoutMs);
  const timer = pool ? setTimeout(() => void query.cancel(), pool.limits.statementTimeoutMs) : undefined;
  try {
    return parseResult((await query)[0]?.result ?? null);
  } finally {
    clearTimeout(timer);
  }
}

export async function dispatch(target: Target, call: Call): Promise<unknown> {
  if (!isPool(target)) return run(target, call, undefined);
  return target.gate.run(() => run(target.sql, call, target));
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
  const pool = isPool(target) ? target : undefined;
  const { check, once } = guard;
  const work = () => (pool?.sql ?? (target as Sql)).begin(async (tx) => {
    if (once) {
      const [{ claimed }] = await tx`select lib.idempotency_claim(${once.caller}, ${once.key}) as claimed` as unknown as [{ claimed: boolean }];
      if (!claimed) throw new ApiError('idempotencyInProgress', 'A request with this Idempotency-Key is still running; retry when it has answered.', { headers: { 'Retry-After': '1' } });
      const kept = await keptAnswer(tx as unknown as Sql, once);
      if (kept !== undefined) return kept;
    }
    const result = await run(tx as unknown as Sql, call, pool);
    check?.(result);
    if (once) {
      // Its own statement: EXECUTE is checked as a statement starts, and the request role may not keep.
      await tx`select set_config('role', 'none', true)`;
      await tx`select lib.idempotency_keep(${once.caller}, ${once.key}, ${once.fingerprint}, ${argsText(result)}::text::jsonb, ${once.ttlSeconds}::int)`;
    }
    return result;
  });
  return pool ? pool.gate.run(work) : work();
}

/** The answer kept for an Idempotency-Key, marked `replayed`; another request with the key is 422. */
export async function keptAnswer(target: Target, once: Once): Promise<unknown> {
  const sql = isPool(target) ? target.sql : target;
  const look = () => sql`select fingerprint, result::text as result from lib.idempotency_kept(${once.caller}, ${once.key})`;
  const [row] = isPool(target) ? await target.gate.run(look) : await look();
  if (!row) return undefined;
  if (row.fingerprint !== once.fingerprint) {
    throw new ApiError('idempotencyKeyReused', 'This Idempotency-Key was used for another request; use a new key for a new request.');
  }
  const result = parseResult(row.result as string);
  if (result && typeof result === 'object') (result as { replayed?: boolean }).replayed = true;
  return result;
}
