// The one round trip of a request: `select api.dispatch(role, claims, ip, fn, args)`. dispatch sets
// the role and the transaction-local claims and IP, then runs api.<fn>(args), all in one statement.
// Arguments go as text (cast to jsonb in SQL) and the result comes back as text, so numbers keep their digits.
import type { Sql } from 'postgres';
import type { Identity } from '../request/auth.ts';
import { argsText, parseResult } from './json.ts';

export interface Call {
  identity: Identity;
  ip: string | null;
  fn: string;
  args: Record<string, unknown>;
}


/**
 * Like dispatch, but inside a transaction that `check` can veto (by throwing) before it commits:
 * used where the gateway must judge the function's result, e.g. a merged JSON document.
 */
export async function dispatchChecked(sql: Sql, call: Call, check: (result: unknown) => void): Promise<unknown> {
  return sql.begin(async (tx) => {
    const result = await dispatch(tx as unknown as Sql, call);
    check(result);
    return result;
  });
}

export async function dispatch(sql: Sql, call: Call): Promise<unknown> {
  const { role, claims } = call.identity;
  const rows = await sql`
    select api.dispatch(${role}, ${JSON.stringify(claims)}::text::jsonb, ${call.ip}, ${call.fn}, ${argsText(call.args)}::text::jsonb)::text as result`;
  return parseResult(rows[0]?.result ?? null);
}
