// The per-caller request rate (RATE_LIMIT_REQUESTS in RATE_LIMIT_WINDOW_SECONDS, off unless set): a caller past
// it gets 429 with Retry-After until its window has room again. Counted in this gateway's memory (rate-limiter-flexible).
import type { Context, MiddlewareHandler } from 'hono';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ApiError } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';

export interface RateLimitOptions {
  requests: number;
  windowSeconds: number;
  /** Who sent the request (server/request/caller.ts): a valid token's `sub`, else the client's address. */
  caller: (c: Context) => Promise<string>;
  fail: (c: Context, err: unknown) => Response;
}

export function rateLimit(o: RateLimitOptions): MiddlewareHandler {
  const limiter = new RateLimiterMemory({ points: o.requests, duration: o.windowSeconds });
  return async (c, next) => {
    try {
      await limiter.consume(await o.caller(c));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const seconds = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
      return o.fail(c, new ApiError('tooManyRequests', `More than ${o.requests} requests in ${o.windowSeconds} s from this caller `
        + `(${LIMITS.rateLimitRequests.env}, ${LIMITS.rateLimitWindowSeconds.env}); retry in ${seconds} s.`, { headers: { 'Retry-After': String(seconds) } }));
    }
    await next();
  };
}
