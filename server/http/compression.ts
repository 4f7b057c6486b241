// gzip for large JSON (lists, the OpenAPI document) when the client accepts it. A response with an
// ETag goes out as it is: the strong validator names those exact bytes (spec: strong ETags), and a
// single record is small anyway. Small bodies (under 1 KB, by Content-Length) are never worth it.
import type { Context, MiddlewareHandler } from 'hono';
import { compress, COMPRESSIBLE_CONTENT_TYPE_REGEX } from 'hono/compress';
import { SHAPED } from './observe.ts';

const THRESHOLD = 1024;
const VARIES = /(?:^|,)\s*accept-encoding\s*(?:,|$)/i;
const GZIP = /(?:^|,)\s*(?:gzip|\*)\s*(?:;\s*q\s*=\s*(?:1(?:\.0*)?|0?\.\d*[1-9]\d*))?\s*(?:,|$)/i;

/**
 * Whether a response of this type and length may be sent gzipped, and so says `Vary: Accept-Encoding`
 * to every client (whether this one accepts gzip or not). An ETagged response never is.
 */
export const compressible = (type: string | null | undefined, length: number, etagged: boolean): boolean =>
  !etagged && length >= THRESHOLD && !!type && COMPRESSIBLE_CONTENT_TYPE_REGEX.test(type);

/** An Accept-Encoding that takes gzip (or anything) with a weight above zero. */
const acceptsGzip = (header: string | undefined) => !!header && GZIP.test(header);

export function compression(): MiddlewareHandler {
  const gzip = compress({ encoding: 'gzip', threshold: THRESHOLD });
  return async (c, next) => {
    // The API's own responses (SHAPED) already carry their Vary: for a client that takes no gzip there is
    // nothing to do, and their headers are left untouched, so the node adapter writes them as they are.
    if (!acceptsGzip(c.req.header('accept-encoding'))) {
      await next();
      if (!c.get(SHAPED as never)) sayVary(c);
      return;
    }
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
      sayVary(c);
    });
    if (before === null) c.res.headers.delete('Cache-Control');
    else if (before !== undefined) c.res.headers.set('Cache-Control', before);
  };
}

/**
 * Vary is said here, on the headers in place: hono's compress would add it with c.header(), which
 * rebuilds the response around a stream of its body (much slower to send) even when it then
 * compresses nothing because the client does not accept gzip.
 */
function sayVary(c: Context): void {
  const headers = c.res.headers;
  const vary = headers.get('Vary');
  if (compressible(headers.get('Content-Type'), Number(headers.get('Content-Length') ?? Infinity), headers.has('ETag')) && !(vary && VARIES.test(vary))) {
    headers.set('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
  }
}
