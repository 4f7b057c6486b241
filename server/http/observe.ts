// Request ids and the access log: every response carries X-Request-Id (the client's, when it sent a
// sane one, else a new UUID), and one JSON line per request (pino) names its route template and time.
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The route template a handler matched (`/posts/{id}`), for logs: set by the API's handler. */
export const setRoute = (c: Context, template: string) => c.set('route' as never, template as never);

export function observe(logger?: Logger): MiddlewareHandler {
  return async (c, next) => {
    const sent = c.req.header('x-request-id');
    const id = sent && SANE_ID.test(sent) ? sent : randomUUID();
    const start = performance.now();
    await next();
    c.res.headers.set('X-Request-Id', id);
    logger?.info({
      request_id: id, method: c.req.method, route: (c.get('route' as never) as string | undefined) ?? c.req.routePath,
      status: c.res.status, duration_ms: Math.round((performance.now() - start) * 100) / 100,
    }, 'request');
  };
}
