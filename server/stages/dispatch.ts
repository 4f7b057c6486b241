// Stage dispatch: the planned call in one transaction (server/query/dispatch.ts), on a replica when it only reads
// and asks for no precondition; with an Idempotency-Key kept or replayed, merged JSON documents checked before
// commit, and files attached around it.
import type { Context } from 'hono';
import { onlyReads } from '../../compiler/query/operations.ts';
import { callOf, type Plan } from '../plan/plan.ts';
import { dispatch as run, dispatchGuarded, keptAnswer } from '../query/dispatch.ts';
import type { Identity } from '../request/auth.ts';
import { callerIp } from '../request/caller.ts';
import { idempotencyOf } from '../request/idempotency.ts';
import { recipientOf } from '../request/recipient.ts';
import { resultRow } from '../request/wire.ts';
import type { Gateway } from './context.ts';

/** A request with a precondition wants the newest state: it goes to the primary, never to a replica. */
const conditional = (h: Headers) => h.has('if-match') || h.has('if-none-match') || h.has('if-modified-since') || h.has('if-unmodified-since');

/** The call's result, as api.dispatch answered it (or as kept for the request's Idempotency-Key). */
export async function dispatch(g: Gateway, c: Context, plan: Plan, identity: Identity): Promise<unknown> {
  const { files } = g.opts;
  const ip = callerIp(c, g.trust);
  const once = idempotencyOf(c.req.raw.headers, plan.endpoint.action, identity, ip, plan, g.limits.idempotencyTtlSeconds);
  const call = callOf(plan, identity, ip, !!once, recipientOf(c.env));
  const merged = plan.merged;
  const pool = onlyReads(plan.endpoint.action) && !conditional(c.req.raw.headers) ? g.pools.read() : g.pools.primary;
  const check = merged && ((r: unknown) => g.documents.verify(merged, resultRow(r)));
  const go = () => check || once ? dispatchGuarded(pool, call, { ...(check ? { check } : {}), ...(once ? { once } : {}) }) : run(pool, call);
  // A retry of a kept write is answered before its files are attached again.
  const kept = once ? await keptAnswer(pool, once) : undefined;
  return kept === undefined ? (files ? await files.around(plan, call, go, c.req.url) : await go())
    : files ? await files.present(plan, kept, c.req.url) : kept;
}
