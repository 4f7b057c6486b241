// Stage dispatch: the planned call in one transaction (server/query/dispatch.ts), on a replica when it only reads
// and asks for no precondition; with an Idempotency-Key kept or replayed, merged JSON documents checked before
// commit, and files attached around it. A batch operation's call runs the same way inside the batch's transaction.
import type { Context } from 'hono';
import { onlyReads } from '../../compiler/query/operations.ts';
import { callOf, type Plan } from '../plan/plan.ts';
import type { Attachment } from '../files/attach.ts';
import type { Files } from '../files/service.ts';
import type { MergedDocuments } from '../plan/validate.ts';
import { dispatch as run, dispatchGuarded, keptAnswer, type TransactionCall } from '../query/dispatch.ts';
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

/** What a batch operation's call needs of the gateway, and of the batch's one transaction around it. */
export interface InBatch {
  documents: MergedDocuments;
  files?: Files;
  /** Runs a call on the batch's connection. */
  call: TransactionCall;
  /** Files attached so far: undone when the batch rolls back. */
  attachments: Attachment[];
  /** When the batch's storage calls must end. */
  deadline: AbortSignal | undefined;
  /** The batch request's URL: signed file links use its origin. */
  requestUrl: string;
}

/**
 * A batch operation's planned call in the batch's transaction: its files attached first, the merged documents
 * checked in its result, the result's links signed; `outbox`: it queued files for deletion.
 */
export async function dispatchInBatch(b: InBatch, plan: Plan, request: ParsedRequest): Promise<{ result: unknown; outbox: boolean }> {
  const call = callOf(plan, request.caller.identity, request.caller.ip);
  const attached = await b.files?.attach(plan, call, b.call, b.deadline);
  if (attached) b.attachments.push(attached);
  let result = await b.call(call);
  if (plan.merged) b.documents.verify(plan.merged, resultRow(result));
  const outbox = (result as { outbox?: unknown } | null)?.outbox === true;
  if (b.files) result = await b.files.present(plan, result, b.requestUrl);
  return { result, outbox };
}
