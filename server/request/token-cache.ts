// Verified tokens, remembered so a client's next request skips the signature check (PostgREST's JWT
// cache): keyed by the whole token, kept until it expires or for CACHE_SECONDS, at most CACHE_ENTRIES.
export const CACHE_SECONDS = 300;
export const CACHE_ENTRIES = 10_000;

type Payload = Record<string, unknown>;
type Verify = (token: string) => Promise<Payload>;

/** Wraps `verify` with the cache; a token past its `exp` (or before its `nbf`) is verified again, and so refused. */
export function cachedVerifier(verify: Verify, now: () => number = Date.now): Verify {
  const cache = new Map<string, { payload: Payload; until: number }>();
  return async (token) => {
    const t = now();
    const hit = cache.get(token);
    if (hit && t < hit.until) return hit.payload;
    if (hit) cache.delete(token);
    const payload = await verify(token);
    const exp = typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity;
    const nbf = typeof payload.nbf === 'number' ? payload.nbf * 1000 : -Infinity;
    if (t >= nbf) {
      if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!); // the oldest entry
      cache.set(token, { payload, until: Math.min(exp, t + CACHE_SECONDS * 1000) });
    }
    return payload;
  };
}
