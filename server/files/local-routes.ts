// The addresses the `local` driver signs, served by the gateway: PUT {basePath}/.well-known/files/tmp/<id>
// streams the bytes to disk (Content-Type bound, size capped), GET/HEAD …/uploads/<id> streams a file back.
import { createReadStream, createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Context } from 'hono';
import { Hono } from 'hono';
import { ApiError, badRequest, notFound } from '../problem/types.ts';
import { isLocalKey, type LocalStorage, type Signed } from './local.ts';
import { normalizeType } from './limits.ts';

export interface LocalRouteOptions {
  storage: LocalStorage;
  basePath: string;
  clock: () => number;
  /** Largest upload (the largest maxSizeInBytes of the model): more is 413. */
  maxBytes: number;
  fail: (c: Context, err: unknown) => Response;
}

const forbidden = (detail: string) => new ApiError('forbidden', detail);
class TooLarge extends Error {}
/** The request's bytes stopped before their end (the client closed, or the server's request time ran out). */
class BodyEnded extends Error {}

export function localRoutes(o: LocalRouteOptions): Hono {
  const app = new Hono();
  const prefix = `${o.basePath}/.well-known/files/`;

  /** The signed request the address claims to be, after checking signature and expiry. */
  const signed = (c: Context, method: 'PUT' | 'GET'): Signed => {
    const key = new URL(c.req.url).pathname.slice(prefix.length);
    if (!isLocalKey(key)) throw notFound('No such file.');
    const q = (name: string) => c.req.query(name);
    const s: Signed = { method, key, expires: Number(q('expires')), type: q('type') ?? '', ...(method === 'GET' ? { name: q('name') ?? '' } : {}) };
    if (!Number.isInteger(s.expires) || !q('sig') || !o.storage.verify(s, q('sig')!)) throw forbidden('This address is not validly signed.');
    if (o.clock() > s.expires * 1000) throw forbidden(`This address expired at ${new Date(s.expires * 1000).toISOString()}; ask for a new one.`);
    return s;
  };

  app.put(`${prefix}*`, async (c) => {
    let part: string | undefined;
    try {
      const s = signed(c, 'PUT');
      const type = normalizeType(c.req.header('content-type') ?? '');
      if (type !== normalizeType(s.type)) throw new ApiError('unsupportedMediaType', `This upload address takes Content-Type "${s.type}" only, not "${type}".`);
      if (Number(c.req.header('content-length') ?? 0) > o.maxBytes) throw new TooLarge();
      part = await o.storage.partFile(s.key);
      let total = 0;
      const body = c.req.raw.body ? Readable.fromWeb(c.req.raw.body as import('node:stream/web').ReadableStream) : Readable.from([]);
      const out = createWriteStream(part);
      // Which side failed first: pipeline then destroys the other with the same error.
      let failed: 'request' | 'file' | undefined;
      body.once('error', () => { failed ??= 'request'; });
      out.once('error', () => { failed ??= 'file'; });
      await pipeline(body, async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          total += chunk.length;
          if (total > o.maxBytes) throw new TooLarge();
          yield chunk;
        }
      }, out).catch((err: unknown) => {
        // The request's bytes stopped (the client went away, or ran out of time): not the file's fault.
        throw failed === 'request' && !(err instanceof TooLarge) ? new BodyEnded() : err;
      });
      await o.storage.store(s.key, part, type);
      part = undefined;
      return c.body(null, 200);
    } catch (err) {
      if (err instanceof TooLarge) return o.fail(c, new ApiError('payloadTooLarge', `A file may have at most ${o.maxBytes} bytes.`));
      if (err instanceof BodyEnded) return o.fail(c, badRequest('The file ended before all of its bytes arrived.'));
      return o.fail(c, err);
    } finally {
      if (part) await rm(part, { force: true }).catch(() => {});
    }
  });

  const download = async (c: Context) => {
    try {
      const s = signed(c, 'GET');
      const path = o.storage.path(s.key);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) throw notFound('No such file.');
      const headers = {
        'Content-Type': s.type || 'application/octet-stream',
        'Content-Length': String(info.size),
        'Content-Disposition': `inline; filename*=UTF-8''${encodeURIComponent(s.name ?? 'file')}`,
        'Cache-Control': 'private, max-age=60',
        'X-Content-Type-Options': 'nosniff',
        'Content-Security-Policy': "default-src 'none'; sandbox",
      };
      if (c.req.method === 'HEAD') return c.body(null, 200, headers);
      return c.body(Readable.toWeb(createReadStream(path)) as ReadableStream, 200, headers);
    } catch (err) {
      return o.fail(c, err);
    }
  };
  app.get(`${prefix}*`, download); // Hono answers HEAD with the GET handler
  return app;
}
