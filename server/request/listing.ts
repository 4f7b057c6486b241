// Paging, sort keys and projections, from the query string or a search body: page >= 1 (default 1),
// per_page 1..MAX_PER_PAGE (compiler/query/paging.ts), sort `-created_at,title,meta.priority`, include/exclude dot paths.
import type { PropertyManifest, SortKey } from '../../compiler/manifest/types.ts';
import { badRequest } from '../problem/types.ts';
import { columnPath } from './wire.ts';
import { resolvePath } from './paths.ts';

import { COUNT_MODES, DEFAULT_PER_PAGE, MAX_CURSOR_LENGTH, MAX_PAGE, MAX_PER_PAGE, type CountMode } from '../../compiler/query/paging.ts';

/** Offset paging (page) or keyset paging (a cursor: after or before), and how the total is counted. */
export interface Paging {
  page?: number;
  per_page: number;
  after?: string;
  before?: string;
  count?: CountMode;
}

export interface PagingInput { page?: unknown; per_page?: unknown; after?: unknown; before?: unknown; count?: unknown }

export interface Projection {
  include?: string[];
  exclude?: string[];
  /** The embed paths include names (`project`, `site.region`): the SQL adds them to each row. */
  embed?: string[];
}

/** `raw` is a query-string text or a JSON value from a search body; undefined takes the default. */
export function parsePaging(raw: PagingInput): Paging {
  const after = cursor('after', raw.after), before = cursor('before', raw.before);
  if (after !== undefined && before !== undefined) throw badRequest('"after" and "before" exclude each other.');
  if ((after ?? before) !== undefined && raw.page !== undefined) throw badRequest('"page" and a cursor ("after", "before") exclude each other.');
  if (raw.count !== undefined && !(COUNT_MODES as readonly unknown[]).includes(raw.count)) {
    throw badRequest(`"count" must be one of ${COUNT_MODES.join(', ')}.`);
  }
  return {
    ...((after ?? before) === undefined ? { page: integer('page', raw.page, 1, MAX_PAGE) ?? 1 } : {}),
    per_page: integer('per_page', raw.per_page, 1, MAX_PER_PAGE) ?? DEFAULT_PER_PAGE,
    ...(after !== undefined ? { after } : {}),
    ...(before !== undefined ? { before } : {}),
    ...(raw.count !== undefined ? { count: raw.count as CountMode } : {}),
  };
}

/** A cursor as given back: a non-empty string of base64url characters; what it holds is checked in SQL. */
function cursor(name: string, raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[A-Za-z0-9_-]+$/.test(raw) || raw.length > MAX_CURSOR_LENGTH) {
    throw badRequest(`"${name}" must be a cursor from meta.next or meta.prev.`);
  }
  return raw;
}

function integer(name: string, raw: unknown, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n)) throw badRequest(`"${name}" must be a whole number.`);
  if (n < min) throw badRequest(`"${name}" must be at least ${min}.`);
  if (n > max) throw badRequest(`"${name}" must be at most ${max}.`);
  return n;
}

/** A comma list (query string, or a string in a body) or an array of strings (body). */
export function listOf(name: string, raw: unknown): string[] | undefined {
  if (raw === undefined) return undefined;
  const items = typeof raw === 'string' ? raw.split(',') : raw;
  if (!Array.isArray(items) || !items.every((i) => typeof i === 'string')) {
    throw badRequest(`"${name}" must be a comma-separated list or an array of strings.`);
  }
  const names = items.map((i: string) => i.trim());
  if (names.some((i) => i === '')) throw badRequest(`"${name}" has an empty entry.`);
  const seen = new Set<string>();
  const dup = names.find((n) => seen.size === seen.add(n).size); // linear: a long list must not stall the gateway
  if (dup) throw badRequest(`"${name}" names "${dup}" twice.`);
  return names;
}

export function parseSort(raw: unknown, props: Record<string, PropertyManifest>): SortKey[] | undefined {
  const keys = listOf('sort', raw);
  if (!keys) return undefined;
  const fields = keys.map((k) => ({ field: k.replace(/^[-+]/, ''), desc: k.startsWith('-') }));
  const dup = fields.find((f, i) => fields.findIndex((g) => g.field === f.field) !== i);
  if (dup) throw badRequest(`"sort" names "${dup.field}" twice.`);
  // SQL sorts by the column (web.name renames only the wire's name).
  return fields.map((f) => {
    const t = resolvePath(props, f.field, 'sort', `sort "${f.field}"`);
    return { ...f, field: columnPath(t.prop, t.property, t.sub) };
  });
}

export function parseProjection(include: unknown, exclude: unknown, props: Record<string, PropertyManifest>, embeds: string[] = []): Projection {
  const projection: Projection = {};
  for (const [name, raw] of [['include', include], ['exclude', exclude]] as const) {
    const paths = listOf(name, raw);
    if (!paths) continue;
    // A path that starts with an embed's name (`project`, `site.region`) embeds; the row keeps every
    // property unless others are named. server/plan/embeds.ts checks the path's later steps.
    const embedded = name === 'include' ? paths.filter((p) => embeds.includes(p.split('.')[0]!)) : [];
    const rest = paths.filter((p) => !embedded.includes(p));
    for (const p of rest) resolvePath(props, p, 'projection', `${name} "${p}"`);
    if (embedded.length) projection.embed = embedded;
    const tops = [...new Set(embedded.map((p) => p.split('.')[0]!))];
    if (rest.length) projection[name] = name === 'include' ? [...rest, ...tops] : rest;
  }
  return projection;
}
