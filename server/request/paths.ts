// Resolves a property path (`title`, `meta.address.city`) used by a filter, a sort key or a projection
// against the manifest's properties: the first segment must be a readable property, deeper ones JSON.
import type { PropertyManifest } from '../../compiler/manifest/types.ts';
import { badRequest } from '../problem/types.ts';
import { sortRefusal } from '../../compiler/query/sort.ts';

export interface PathTarget {
  /** The whole path as written. */
  path: string;
  property: string;
  prop: PropertyManifest;
  /** Segments below a JSON property; empty for the property itself. */
  sub: string[];
}

export type PathUse = 'filter' | 'sort' | 'projection';

const USE_TEXT: Record<PathUse, string> = { filter: 'filter', sort: 'sort key', projection: 'projection path' };

/** `where` names the parameter in messages, e.g. `filter "meta.x[eq]"` or `sort`. */
export function resolvePath(props: Record<string, PropertyManifest>, path: string, use: PathUse, where = USE_TEXT[use]): PathTarget {
  const segments = path.split('.');
  if (segments.some((s) => s === '')) throw badRequest(`Malformed ${USE_TEXT[use]} "${path}" in ${where}.`);
  const [property, ...sub] = segments as [string, ...string[]];
  const prop = Object.hasOwn(props, property) ? props[property] : undefined;
  if (!prop) throw badRequest(`Unknown property "${property}" in ${where}.`);
  if (prop.writeOnly) throw badRequest(`Property "${property}" is writeOnly and cannot be used in ${where}.`);
  if (sub.length > 0 && prop.type !== 'JSON') {
    throw badRequest(`Property "${property}" is not a JSON property; "${path}" in ${where} cannot reach below it.`);
  }
  // Filters and sort keys become SQL path expressions: keys of letters, digits and _ only.
  const badKey = use === 'projection' ? undefined : sub.find((s) => !/^[A-Za-z0-9_]+$/.test(s));
  if (badKey !== undefined) throw badRequest(`JSON key "${badKey}" in ${where} must be letters, digits and _.`);
  if (use === 'sort') {
    const refusal = sortRefusal(property, prop);
    if (refusal) throw badRequest(refusal);
    if (prop.type === 'JSON' && sub.length === 0) throw badRequest(`Cannot sort by the whole JSON property "${property}"; sort by a path inside it.`);
  }
  return { path, property, prop, sub };
}

/**
 * The JSON type a value below a JSON property has: from the property's Tier B cast at that path,
 * else from the property's JSON Schema (when it declares one), else unknown.
 */
export function jsonPathType(target: PathTarget, schema: unknown): 'string' | 'number' | 'boolean' | undefined {
  const cast = target.prop.casts?.[target.sub.join('.')];
  if (cast) return cast === 'Text' ? 'string' : cast === 'Boolean' ? 'boolean' : 'number';
  let node = schema;
  for (const seg of target.sub) {
    const props = (node as { properties?: Record<string, unknown> } | undefined)?.properties;
    node = props && Object.hasOwn(props, seg) ? props[seg] : undefined;
  }
  const type = (node as { type?: unknown } | undefined)?.type;
  if (type === 'string' || type === 'boolean') return type;
  if (type === 'number' || type === 'integer') return 'number';
  return undefined;
}
