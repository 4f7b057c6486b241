// Paging, sort keys and projections, from the query string or a search body: page >= 1 (default 1),
// per_page 1..MAX_PER_PAGE (compiler/query/paging.ts), sort `-created_at,title,meta.priority`, include/exclude dot paths.
import type { PropertyManifest, SortKey } from '../../compiler/manifest/types.ts';
import { badRequest } from '../problem/types.ts';
import { resolvePath } from './paths.ts';

import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from '../../compiler/query/paging.ts';

export interface Paging {
  page: number;
  per_page: number;
}

export interface Projection {
  include?: string[];
  exclude?: string[];
}

/** `raw` is a query-string text or a JSON value from a search body; undefined takes the default. */
export function parsePaging(page: unknown, perPage: unknown): Paging {
  return {
    page: integer('page', page, 1, MAX_PAGE) ?? 1,
    per_page: integer('per_page', perPage, 1, MAX_PER_PAGE) ?? DEFAULT_PER_PAGE,
  };
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
  for (const f of fields) resolvePath(props, f.field, 'sort', `sort "${f.field}"`);
  return fields;
}

export function parseProjection(include: unknown, exclude: unknown, props: Record<string, PropertyManifest>): Projection {
  const projection: Projection = {};
  for (const [name, raw] of [['include', include], ['exclude', exclude]] as const) {
    const paths = listOf(name, raw);
    if (!paths) continue;
    for (const p of paths) resolvePath(props, p, 'projection', `${name} "${p}"`);
    projection[name] = paths;
  }
  return projection;
}
