// Reads a query string into reserved parameters (page, per_page, after, before, count, sort, include, exclude, permanent)
// and filter terms `<path>[<op>]=<value>`. Repeated or malformed parameters are 400, never dropped.
import type { QueryAllowance } from '../../compiler/query/operations.ts';
import { FILTER_OPS, type FilterOp } from '../../compiler/manifest/types.ts';
import { badRequest } from '../problem/types.ts';
import { LIMITS } from './limits.ts';

import { RESERVED_PARAMS as RESERVED } from '../../compiler/query/paging.ts';
export { RESERVED };
export type Reserved = (typeof RESERVED)[number];

export interface FilterTerm {
  /** The parameter as written, for messages. */
  param: string;
  path: string;
  op: FilterOp;
  value: string;
}

export interface RawQuery {
  reserved: Partial<Record<Reserved, string>>;
  filters: FilterTerm[];
}

const TERM = /^([^[\]]+)(?:\[([^[\]]*)\])?$/;

export function parseQuery(search: URLSearchParams, maxFilters = LIMITS.maxFilters.fallback): RawQuery {
  const seen = new Set<string>();
  const query: RawQuery = { reserved: {}, filters: [] };
  for (const [key, value] of search) {
    if (query.filters.length >= maxFilters && !(RESERVED as readonly string[]).includes(key)) {
      throw badRequest(`The query string holds more than ${maxFilters} filters (${LIMITS.maxFilters.env}).`);
    }
    if (seen.has(key)) throw badRequest(`Query parameter "${key}" is given more than once.`);
    seen.add(key);
    if ((RESERVED as readonly string[]).includes(key)) {
      query.reserved[key as Reserved] = value;
      continue;
    }
    const m = TERM.exec(key);
    if (!m || m[1] === undefined) throw badRequest(`Query parameter "${key}" is malformed; filters read <property>[<operator>]=<value>.`);
    const op = m[2] ?? 'eq';
    if (!(FILTER_OPS as readonly string[]).includes(op)) {
      throw badRequest(`Unknown filter operator "${op}" in "${key}"; operators are ${FILTER_OPS.join(', ')}.`);
    }
    query.filters.push({ param: key, path: m[1], op: op as FilterOp, value });
  }
  return query;
}

/** Which query parameters a route takes; anything else present is refused, naming it. */
export type { QueryAllowance } from '../../compiler/query/operations.ts';

/** Routes that take no query parameter (batch, upload intents, /auth): any present is refused, naming it. */
export function refuseAnyQuery(url: string): void {
  const at = url.indexOf('?');
  const first = at < 0 ? undefined : new URLSearchParams(url.slice(at + 1)).keys().next().value;
  if (first !== undefined) throw badRequest(`Query parameter "${first}" is not supported on this route.`);
}

export function refuseUnsupported(query: RawQuery, allow: QueryAllowance): void {
  const ok: Record<Reserved, boolean | undefined> = {
    page: allow.paging, per_page: allow.paging, after: allow.cursor, before: allow.cursor, count: allow.cursor, sort: allow.sort,
    include: allow.projection, exclude: allow.projection, permanent: allow.permanent,
  };
  for (const key of Object.keys(query.reserved) as Reserved[]) {
    if (!ok[key]) throw badRequest(`Query parameter "${key}" is not supported on this route.`);
  }
  const first = query.filters[0];
  if (first && !allow.filters) throw badRequest(`Query parameter "${first.param}" is not supported on this route (filters apply to lists).`);
}
