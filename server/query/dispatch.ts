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

/**
 * Like dispatch, but inside a transaction that `check` can veto (by throwing) before it commits:
 * used where the gateway must judge the function's result, e.g. a merged JSON document.
 */
export async function dispatchChecked(target: Target, call: Call, check: (result: unknown) => void): Promise<unknown> {
  const pool = isPool(target) ? target : undefined;
  const work = () => (pool?.sql ?? (target as Sql)).begin(async (tx) => {
    const result = await run(tx as unknown as Sql, call, pool);
    check(result);
    return result;
  });
  return pool ? pool.gate.run(work) : work();
}
