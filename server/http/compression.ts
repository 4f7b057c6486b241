// gzip for large JSON (lists, the OpenAPI document) when the client accepts it. A response with an
// ETag goes out as it is: the strong validator names those exact bytes (spec: strong ETags), and a
// single record is small anyway. Small bodies (under 1 KB, by Content-Length) are never worth it.
import type { MiddlewareHandler } from 'hono';
import { compress } from 'hono/compress';

export function compression(): MiddlewareHandler {
  const gzip = compress({ encoding: 'gzip', threshold: 1024 });
  return async (c, next) => {
    let before: string | null | undefined;
    await gzip(c, async () => {
      await next();
      if (c.res.headers.has('ETag')) {
        // hono's compress leaves `Cache-Control: no-transform` responses alone: say so for the moment.
        before = c.res.headers.get('Cache-Control');
        c.res.headers.set('Cache-Control', before ? `${before}, no-transform` : 'no-transform');
      }
    });
    if (before === null) c.res.headers.delete('Cache-Control');
    else if (before !== undefined) c.res.headers.set('Cache-Control', before);
  };
}
