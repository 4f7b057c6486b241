// The preconditions a request sends, parsed once: If-Match and If-Unmodified-Since for the SQL to compare (412 is
// judged there), If-None-Match and If-Modified-Since for a read's 304 (response/conditions.ts).
import { parseHttpDate } from '../codec/date.ts';
import { badRequest } from '../problem/types.ts';

/** What the SQL compares, as the api.* functions take it (`if_match`, `if_unmodified_since`). */
export interface Preconditions { if_match?: string[]; if_unmodified_since?: string }

/** A read's conditions for 304 Not Modified, as sent (null: absent). */
export interface ReadValidators { ifNoneMatch: string | null; ifModifiedSince: string | null }

/** Any precondition at all: the request wants the newest state (the primary, never a replica). */
export const conditional = (h: Headers): boolean =>
  h.has('if-match') || h.has('if-none-match') || h.has('if-modified-since') || h.has('if-unmodified-since');

export const readValidators = (h: Headers): ReadValidators => ({ ifNoneMatch: h.get('if-none-match'), ifModifiedSince: h.get('if-modified-since') });

/**
 * If-Match and If-Unmodified-Since, passed on for the SQL to compare, on writes and reads (RFC 9110 13.1.1, 13.1.4):
 * If-Match is `*` or a list of entity-tags, compared strongly, so a weak tag (W/"…") never matches;
 * an invalid If-Unmodified-Since date is ignored.
 */
export function parsePreconditions(headers: Headers): Preconditions {
  const out: Preconditions = {};
  const ifMatch = headers.get('if-match')?.trim();
  if (ifMatch) out.if_match = parseIfMatch(ifMatch);
  const since = parseHttpDate(headers.get('if-unmodified-since') ?? '');
  // A date PostgreSQL cannot hold (year 0) is ignored too (HTTP-date's four digits keep it within 9999).
  if (since && since.getUTCFullYear() >= 1) out.if_unmodified_since = since.toISOString();
  return out;
}

const ENTITY_TAG = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)/;

export function parseIfMatch(header: string): string[] {
  if (header === '*') return ['*'];
  const tags: string[] = [];
  let rest = header;
  while (rest.trim()) {
    const m = ENTITY_TAG.exec(rest);
    if (!m) throw badRequest('If-Match must be * or a list of entity-tags such as "3".');
    tags.push(m[1] ? `W/${m[2]}` : m[2]!);
    rest = rest.slice(m[0].length);
  }
  return tags;
}
