// gzip for large JSON (lists, the OpenAPI document) when the client accepts it. A response with an
// ETag goes out as it is: the strong validator names those exact bytes (spec: strong ETags), and a
// single record is small anyway. Small bodies (under 1 KB, by Content-Length) are never worth it.
import type { MiddlewareHandler } from 'hono';
import { compress, COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/compress';

const THRESHOLD = 1024;
const VARIES = /(?:^|,)\s*accept-encoding\s*(?:,|$)/i;

export function compression(): MiddlewareHandler {
  const gzip = compress({ encoding: 'gzip', threshold: THRESHOLD });
  return async (c, next) => {
    let before: string | null | undefined;
    await gzip(c, async () => {
      await next();
      const headers = c.res.headers;
      if (headers.has('ETag')) {
        // hono's compress leaves `Cache-Control: no-transform` responses alone: say so for the moment.
        before = headers.get('Cache-Control');
        headers.set('Cache-Control', before ? `${before}, no-transform` : 'no-transform');
        return;
      }
      // Vary is said here, on the headers in place: hono's compress would add it with c.header(), which
      // rebuilds the response around a stream of its body (much slower to send) even when it then
      // compresses nothing because the client does not accept gzip.
      const length = Number(headers.get('Content-Length') ?? Infinity);
      const type = headers.get('Content-Type');
      const vary = headers.get('Vary');
      if (length >= THRESHOLD && type && COMPRESSIBLE_CONTENT_TYPE_REGEX.test(type) && !(vary && VARIES.test(vary))) {
        headers.set('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
      }
    });
    if (before === null) c.res.headers.delete('Cache-Control');
    else if (before !== undefined) c.res.headers.set('Cache-Control', before);
  };
}
