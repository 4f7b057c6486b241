// CORS for the origins a browser may call the API from (CORS_ORIGINS: a list, or ['*']): the methods and request
// headers the API takes, and the response headers a page may read.
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

export const corsFor = (origins: string[]): MiddlewareHandler => cors({
  origin: origins.includes('*') ? '*' : origins,
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
  allowHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match', 'If-Modified-Since', 'If-None-Match', 'If-Unmodified-Since', 'X-Request-Id'],
  exposeHeaders: ['ETag', 'Location', 'Last-Modified', 'Retry-After', 'X-Request-Id', 'Access-Scenario', 'Idempotent-Replayed'],
  maxAge: 600,
});
