// Preconditions of a read (GET or HEAD of a record or sub-resource), in RFC 9110 13.2.2's order: If-Match,
// else If-Unmodified-Since (412 when false); then If-None-Match, else If-Modified-Since (304). Writes judge theirs in SQL.
import { ApiError } from '../problem/types.ts';
import { parseIfMatch } from '../plan/plan.ts';

const HINT = 'Fetch the record again, take its new ETag, and resend the request with it in If-Match.';

/**
 * Whether the read answers 304; throws the 412 problem when If-Match or If-Unmodified-Since fails.
 * `etag` is the quoted strong tag (`"3"`), `modified` the record's Last-Modified.
 */
export function readConditions(headers: Headers, etag: string | undefined, modified: Date | undefined, entity: string): 'not-modified' | undefined {
  const ifMatch = headers.get('if-match')?.trim();
  const since = (name: string) => {
    const at = Date.parse(headers.get(name) ?? '');
    return Number.isNaN(at) ? undefined : at;
  };
  const seconds = modified ? Math.floor(modified.getTime() / 1000) * 1000 : undefined;
  if (ifMatch) {
    const tags = parseIfMatch(ifMatch);
    // Strong comparison: a weak tag (W/…) never matches; `*` matches the record the read found.
    if (!tags.includes('*') && !(etag && tags.includes(etag.slice(1, -1)))) {
      const supplied = tags.map((t) => `"${t}"`).join(', ');
      throw new ApiError('preconditionFailed', `The ${entity} has changed: its current ETag is ${etag ?? 'none'}, the request supplied ${supplied}`, { hint: HINT });
    }
  } else {
    const unmodified = since('if-unmodified-since');
    if (unmodified !== undefined && seconds !== undefined && seconds > unmodified) {
      throw new ApiError('preconditionFailed', `The ${entity} was modified at ${new Date(seconds).toISOString().replace('.000', '')}, after If-Unmodified-Since ${new Date(unmodified).toISOString().replace('.000', '')} (current ETag ${etag ?? 'none'})`, { hint: HINT });
    }
  }
  const noneMatch = headers.get('if-none-match');
  if (noneMatch !== null) return etag && matchesNoneMatch(noneMatch, etag) ? 'not-modified' : undefined;
  const modifiedSince = since('if-modified-since');
  return modifiedSince !== undefined && seconds !== undefined && seconds <= modifiedSince ? 'not-modified' : undefined;
}

/** If-None-Match (weak comparison, RFC 9110 13.1.2): `*` or any listed tag equal to ours. */
function matchesNoneMatch(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
