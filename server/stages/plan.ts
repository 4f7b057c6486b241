// Stage plan: the endpoint and the parsed request become the one api.* call (server/plan/plan.ts, pure), handed on in
// the context; a list asked for as text/event-stream becomes its change stream.
import type { Context } from 'hono';
import { openStream, planStream, wantsEvents } from '../events/route.ts';
import { requestIdOf } from '../http/observe.ts';
import { planRequest, type Plan } from '../plan/plan.ts';
import type { Endpoint } from '../plan/routes.ts';
import type { Identity } from '../request/auth.ts';
import { callerIp } from '../request/caller.ts';
import type { ParsedRequest } from '../request/parse.ts';
import { recipientOf } from '../request/recipient.ts';
import type { Gateway } from './context.ts';

export function plan(g: Gateway, c: Context, endpoint: Endpoint, request: ParsedRequest): Plan {
  const planned = planRequest(g.planner, endpoint, request);
  c.set('plan', planned);
  return planned;
}

/** A GET of a list that asks for text/event-stream (what EventSource sends) is the list's change stream. */
export const wantsStream = (c: Context, endpoint: Endpoint): boolean =>
  endpoint.action === 'list' && c.req.method === 'GET' && wantsEvents(c.req.header('accept'));

/** The change stream of a list: parsed and planned as the list is, then open until the client goes. */
export async function stream(g: Gateway, c: Context, endpoint: Endpoint, identity: Identity): Promise<Response> {
  const ip = callerIp(c, g.trust);
  const planned = await planStream(g.planner, endpoint, c.req.raw, new URL(c.req.url), { identity, ip });
  c.set('plan', planned.plan);
  const recipient = recipientOf(c.env);
  return await openStream(g.streams, {
    req: c.req.raw, identity, ip, headers: { 'X-Request-Id': requestIdOf(c) }, ...(recipient ? { recipient } : {}),
  }, planned.plan, planned.from);
}
