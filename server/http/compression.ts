// brotli or gzip for large JSON and text (lists, the OpenAPI document), as the client's Accept-Encoding weighs them; never
// a body under 1 KB, nor one with an ETag: the strong validator names those exact bytes (spec: strong ETags).
import { promisify } from 'node:util';
import { brotliCompress, constants } from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';
import { compress } from 'hono/compress';
import Negotiator from 'negotiator';
import { SHAPED } from './observe.ts';
import { compressible, THRESHOLD } from '../response/compressible.ts';

/**
 * The largest body read into memory for brotli (the documentation page's script is 4.3 MB); a larger one,
 * or a stream that goes on past it, is sent as it comes, gzipped when the client takes gzip.
 */
const BROTLI_MAX = 8 * 1024 * 1024;
const VARIES = /(?:^|,)\s*accept-encoding\s*(?:,|$)/i;
const NO_TRANSFORM = /(?:^|,)\s*no-transform\s*(?:,|$)/i;
const brotli = promisify(brotliCompress);

const CODINGS = ['br', 'gzip'] as const;

/**
 * The coding this Accept-Encoding prefers among ours (RFC 9110 12.5.3, weighed by negotiator): the
 * highest weight wins, br on a tie with gzip; `*` weighs for a coding the header does not name, q=0 refuses it.
 */
function preferredEncoding(header: string | undefined): 'br' | 'gzip' | undefined {
  if (!header) return undefined;
  const [best] = new Negotiator({ headers: { 'accept-encoding': header } }).encodings(CODINGS, { preferred: CODINGS });
  return best as 'br' | 'gzip' | undefined;
}

export function compression(): MiddlewareHandler {
  const gzip = compress({ encoding: 'gzip', threshold: THRESHOLD });
  return async (c, next) => {
    const encoding = preferredEncoding(c.req.header('accept-encoding'));
    // The API's own responses (SHAPED) already carry their Vary: for a client that takes no compression there
    // is nothing to do, and their headers are left untouched, so the node adapter writes them as they are.
    if (!encoding) {
      await next();
      if (!c.get(SHAPED as never)) sayVary(c);
      return;
    }
    let before: string | null | undefined;
    // A response sent in br carries Content-Encoding, which hono's compress leaves alone; the one brotli
    // leaves (a stream past BROTLI_MAX) is gzipped there when the client takes gzip too.
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
      if (encoding === 'br') await sendBrotli(c);
    });
    if (before === null) c.res.headers.delete('Cache-Control');
    else if (before !== undefined) c.res.headers.set('Cache-Control', before);
  };
}

/**
 * Vary is said here, on the headers in place: hono's compress would add it with c.header(), which
 * rebuilds the response around a stream of its body (much slower to send) even when it then
 * compresses nothing because the client accepts no compression.
 */
function sayVary(c: Context): void {
  const headers = c.res.headers;
  const vary = headers.get('Vary');
  if (compressible(headers.get('Content-Type'), Number(headers.get('Content-Length') ?? Infinity), headers.has('ETag')) && !(vary && VARIES.test(vary))) {
    headers.set('Vary', vary ? `${vary}, Accept-Encoding` : 'Accept-Encoding');
  }
}

/**
 * Replaces a compressible response by its brotli bytes, with their Content-Length. The work is done by
 * node's zlib on the thread pool (brotliCompress, not the Sync one), so the event loop goes on meanwhile.
 * Quality 4, not zlib's default 11: 11 takes about 10 s for the 4.3 MB documentation script and 90 ms for a
 * 17 KB list, where 4 takes 115 ms and 0.2 ms (gzip's level 6: 165 ms and 0.2 ms) and still writes smaller
 * bodies than gzip (1.18 MB against 1.26 MB; 346 bytes against 629): fast enough to do on every request.
 */
async function sendBrotli(c: Context): Promise<void> {
  const res = c.res;
  const headers = res.headers;
  const type = headers.get('Content-Type');
  const declared = Number(headers.get('Content-Length') ?? Infinity);
  if (c.req.method === 'HEAD' || res.status === 206 || !res.body || headers.has('Content-Encoding') || headers.has('Transfer-Encoding')
    || NO_TRANSFORM.test(headers.get('Cache-Control') ?? '') || !compressible(type, declared, headers.has('ETag'))
    || (Number.isFinite(declared) && declared > BROTLI_MAX)) return;
  const body = await readUpTo(res.body, BROTLI_MAX);
  const out = new Headers(headers);
  let sent = body;
  if (Buffer.isBuffer(body)) {
    const bytes = compressible(type, body.byteLength, false)
      ? await brotli(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.byteLength } })
      : body;
    if (bytes !== body) out.set('Content-Encoding', 'br');
    out.set('Content-Length', String(bytes.byteLength));
    sent = bytes;
  }
  // Set afresh (not over the old response, which hono's setter would merge into a stream of this body).
  c.res = undefined;
  c.res = new Response(sent, { status: res.status, headers: out });
}

/** The body's bytes when it ends within `max` bytes; else a stream of the same bytes, read on as sent. */
async function readUpTo(body: ReadableStream<Uint8Array>, max: number): Promise<Buffer<ArrayBuffer> | ReadableStream<Uint8Array>> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks, size);
    chunks.push(value);
    size += value.byteLength;
    if (size > max) {
      return new ReadableStream<Uint8Array>({
        start(controller) { for (const chunk of chunks.splice(0)) controller.enqueue(chunk); },
        async pull(controller) {
          const next = await reader.read();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
    }
  }
}
