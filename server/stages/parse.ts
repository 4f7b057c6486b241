// Stage parse: the one request object the stages after it read (server/request/parse.ts): the query string checked
// against the endpoint's operation, the body read and decoded, preconditions, Idempotency-Key and caller parsed once.
import type { Context } from 'hono';
import type { Endpoint } from '../plan/routes.ts';
import type { Identity } from '../request/auth.ts';
import { callerIp } from '../request/caller.ts';
import { parseHttp, type ParsedRequest } from '../request/parse.ts';
import type { Gateway } from './context.ts';

export async function parse(g: Gateway, c: Context, endpoint: Endpoint, identity: Identity): Promise<ParsedRequest> {
  const request = await parseHttp(endpoint.action, c.req.raw, new URL(c.req.url), { identity, ip: callerIp(c, g.trust) }, g.limits);
  c.set('request', request);
  return request;
}
