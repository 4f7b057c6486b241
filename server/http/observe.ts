// Request ids, the access log and request metrics: every response carries X-Request-Id (the client's,
// when it sent a sane one, else a new UUID); one JSON line (pino) and one observation per request, in batches.
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { Logger } from 'pino';
import type { Metrics } from './metrics.ts';
import type { FailedRequest } from '../problem/log.ts';
import type { Identity } from '../request/auth.ts';
import { sentPath } from '../request/path.ts';

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const REQUEST_ID = 'requestId';
const SUB = 'sub';
/**
 * Set by a handler whose response was built with every header it needs (X-Request-Id, Vary): the
 * middlewares then leave its headers alone, and the node adapter writes them without copying.
 */
export const SHAPED = 'shaped';

/** The route template a handler matched (`/posts/{id}`), for logs: set by the API's handler. */
export const setRoute = (c: Context, template: string) => c.set('route' as never, template as never);

/** The verified caller, for the access log: set where a request's token is verified (an anonymous one has none). */
export const setCaller = (c: Context, identity: Identity) => {
  const sub = identity.claims.sub;
  if (identity.role !== 'anon' && sub !== undefined && sub !== null) c.set(SUB as never, String(sub) as never);
};

/** This request's id, for a handler that builds its response's headers itself (then it calls `shaped`). */
export const requestIdOf = (c: Context): string => c.get(REQUEST_ID as never) as string;
export const shaped = (c: Context) => c.set(SHAPED as never, true as never);

const routeOf = (c: Context): string => (c.get('route' as never) as string | undefined) ?? c.req.routePath;
/**
 * The path as the client sent it, ids and all (sentPath: the request line's; an in-process request's parsed
 * path), never its query string, which may carry secrets (signatures, tokens) or personal data.
 */
const pathOf = (c: Context): string => sentPath({ get pathname() { return c.req.path; } } as URL, c.env);

/** A request that failed with `status`, as its error line names it: the access line's fields, to join them. */
export const failedRequest = (c: Context, status: number): FailedRequest =>
  ({ request_id: requestIdOf(c), method: c.req.method, route: routeOf(c), path: pathOf(c), status });

/** What one request leaves for the access log and the metrics (`sub` and `ip` when the log names callers). */
interface Observation { id: string; method: string; route: string; path: string; status: number; ms: number; at: number; sub: string | undefined; ip: string | undefined }

/**
 * Observations wait (at most OBSERVED_AT_ONCE of them, OBSERVED_MS long, and never past a scrape of /metrics or
 * the process's exit) and are then logged and counted together: written in a loop of their own, a line and an
 * observation cost the gateway a fraction of what they cost between requests (a read by id through the gateway:
 * 112 -> 104 µs of its main thread, 7,463 -> 7,893 req/s in an A/B of the bench's read, near a gateway without access log).
 */
export const OBSERVED_AT_ONCE = 256;
export const OBSERVED_MS = 100;

/** Each observing app's flush of what waits, with its log's. */
const waiting = new Set<() => void>();
/** Writes and counts every observation waiting now: at exit, and before the shutdown's last line (ops/cli/gateway.ts). */
export function flushObservations(): void {
  for (const flush of waiting) flush();
}

/** The time of the line being written: its request's, not its batch's. */
let lineTime = 0;
/** pino's `timestamp` for the access log (its own format, `,"time":<epoch ms>`), with each line's request time. */
export const observedTime = (): string => `,"time":${lineTime || Date.now()}`;

/**
 * `callerIp`: the caller's address (TRUST_PROXY deciding); given, the access log names the caller, with the
 * token's `sub` (verified on the way: setCaller) and `ip` (LOG_CALLER, default on).
 */
export function observe(logger?: Logger, metrics?: Metrics, callerIp?: (c: Context) => string | null): MiddlewareHandler {
  let pending: Observation[] = [];
  const named = logger ? callerIp : undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    for (const o of batch) {
      metrics?.observe(o.method, o.route, o.status, o.ms / 1000);
      lineTime = o.at;
      logger?.info({
        request_id: o.id, method: o.method, route: o.route, path: o.path, status: o.status, duration_ms: Math.round(o.ms * 100) / 100, sub: o.sub, ip: o.ip,
      }, 'request');
    }
    lineTime = 0;
  };
  if (logger || metrics) {
    metrics?.beforeScrape(flush);
    // Lines still waiting at exit (or at the end of a shutdown) are written, then the sink's block.
    waiting.add(() => {
      flush();
      logger?.flush();
    });
    if (waiting.size === 1) process.once('exit', flushObservations);
  }
  return async (c, next) => {
    const sent = c.req.header('x-request-id');
    const id = sent && SANE_ID.test(sent) ? sent : randomUUID();
    c.set(REQUEST_ID as never, id as never);
    const start = performance.now();
    await next();
    if (!c.get(SHAPED as never)) c.res.headers.set('X-Request-Id', id);
    if (!logger && !metrics) return;
    // Values the request already holds (its caller's address too, once a handler asked for it: callerIp keeps it).
    pending.push({
      id, method: c.req.method, route: routeOf(c), path: logger ? pathOf(c) : '', status: c.res.status, ms: performance.now() - start, at: Date.now(),
      sub: named ? c.get(SUB as never) as string | undefined : undefined, ip: named ? named(c) ?? undefined : undefined,
    });
    if (pending.length >= OBSERVED_AT_ONCE) flush();
    else timer ??= setTimeout(flush, OBSERVED_MS).unref();
  };
}
