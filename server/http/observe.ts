// Request ids, the access log and request metrics: every response carries X-Request-Id (the client's,
// when it sent a sane one, else a new UUID); one JSON line (pino) and one observation per request.
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.ts';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const REQUEST_ID = 'requestId';
/**
 * Set by a handler whose response was built with every header it needs (X-Request-Id, Vary): the
 * middlewares then leave its headers alone, and the node adapter writes them without copying.
 */
export const SHAPED = 'shaped';

/** The route template a handler matched (`/posts/{id}`), for logs: set by the API's handler. */
export const setRoute = (c: Context, template: string) => c.set('route' as never, template as never);

/** This request's id, for a handler that builds its response's headers itself (then it calls `shaped`). */
export const requestIdOf = (c: Context): string => c.get(REQUEST_ID as never) as string;
export const shaped = (c: Context) => c.set(SHAPED as never, true as never);

export function observe(logger?: Logger, metrics?: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const sent = c.req.header('x-request-id');
    const id = sent && SANE_ID.test(sent) ? sent : randomUUID();
    c.set(REQUEST_ID as never, id as never);
    const start = performance.now();
    await next();
    if (!c.get(SHAPED as never)) c.res.headers.set('X-Request-Id', id);
    const route = (c.get('route' as never) as string | undefined) ?? c.req.routePath;
    const ms = performance.now() - start;
    const status = c.res.status;
    metrics?.observe(c.req.method, route, status, ms / 1000);
    logger?.info({ request_id: id, method: c.req.method, route, status, duration_ms: Math.round(ms * 100) / 100 }, 'request');
  };
}
