// The conditions of a read (GET or HEAD of a record or sub-resource) that answer 304, in RFC 9110 13.2.2's
// order: If-None-Match, else If-Modified-Since. If-Match and If-Unmodified-Since (412) are judged in SQL,
// by the read itself as by every write (lib.precondition_check).
import { parseHttpDate } from '../codec/date.ts';
import type { ReadValidators } from '../request/preconditions.ts';

/** Whether the read answers 304 Not Modified. `etag` is the quoted strong tag (`"3"`), `modified` the record's Last-Modified. */
export function notModified(v: Partial<ReadValidators>, etag: string | undefined, modified: Date | undefined): boolean {
  const noneMatch = v.ifNoneMatch ?? null;
  if (noneMatch !== null) return etag !== undefined && matchesNoneMatch(noneMatch, etag);
  const since = v.ifModifiedSince ?? null;
  if (since === null) return false;
  const modifiedSince = parseHttpDate(since);
  return modifiedSince !== undefined && modified !== undefined && Math.floor(modified.getTime() / 1000) * 1000 <= modifiedSince.getTime();
}

/** If-None-Match (weak comparison, RFC 9110 13.1.2): `*` or any listed tag equal to ours. */
function matchesNoneMatch(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
