// Stage dispatch: the planned call in one transaction (server/query/dispatch.ts), on a replica when it only reads
// and asks for no precondition; with an Idempotency-Key kept or replayed, merged JSON documents checked before
// commit, and files attached around it.
import type { Context } from 'hono';
import { onlyReads } from '../../compiler/query/operations.ts';
import { callOf, type Plan } from '../plan/plan.ts';
import { dispatch as run, dispatchGuarded, keptAnswer } from '../query/dispatch.ts';
import { idempotencyOf } from '../request/idempotency.ts';
import type { ParsedRequest } from '../request/parse.ts';
import { recipientOf } from '../request/recipient.ts';
import { resultRow } from '../request/wire.ts';
import type { Gateway } from './context.ts';

/** The call's result, as api.dispatch answered it (or as kept for the request's Idempotency-Key). */
export async function dispatch(g: Gateway, c: Context, plan: Plan, request: ParsedRequest): Promise<unknown> {
  const { files } = g.opts;
  const { identity, ip } = request.caller;
  const once = idempotencyOf(request.idempotencyKey, plan.endpoint.action, identity, ip, plan, g.limits.idempotencyTtlSeconds);
  const call = callOf(plan, identity, ip, !!once, recipientOf(c.env));
  const merged = plan.merged;
  // A request with a precondition wants the newest state: it goes to the primary, never to a replica.
  const pool = onlyReads(plan.endpoint.action) && !request.conditional ? g.pools.read() : g.pools.primary;
  const check = merged && ((r: unknown) => g.documents.verify(merged, resultRow(r)));
  const go = () => check || once ? dispatchGuarded(pool, call, { ...(check ? { check } : {}), ...(once ? { once } : {}) }) : run(pool, call);
  // A retry of a kept write is answered before its files are attached again.
  const kept = once ? await keptAnswer(pool, once) : undefined;
  return kept === undefined ? (files ? await files.around(plan, call, go, c.req.url) : await go())
    : files ? await files.present(plan, kept, c.req.url) : kept;
}
