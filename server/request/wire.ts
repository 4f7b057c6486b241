// web.name on the wire (spec 2.3): a property the model renames is spoken to clients by its web name and
// to SQL by its column's. Bodies go in with column keys; rows come out with wire keys; errors name the wire.
import type { PropertyManifest } from '../../compiler/manifest/types.ts';
import { renameKeys } from '../query/json.ts';

export interface Wire {
  /** Renames a body's wire keys to columns, in place (its exact twin too). */
  toColumns(body: Record<string, unknown>): Record<string, unknown>;
  /** The row with wire names for its column keys: a copy when one is renamed (keys keep their order). */
  toWire<T>(row: T): T;
  /** The wire name of a column (a property name SQL reported). */
  wireName(column: string): string;
}

const SAME: Wire = { toColumns: (b) => b, toWire: (r) => r, wireName: (c) => c };

/** Wires by the manifest's property maps, which live as long as the gateway: made once, not per request. */
const made = new WeakMap<Record<string, PropertyManifest>, Wire>();

export function wireOf(props: Record<string, PropertyManifest>): Wire {
  let wire = made.get(props);
  if (!wire) made.set(props, wire = makeWire(props));
  return wire;
}

function makeWire(props: Record<string, PropertyManifest>): Wire {
  const renamed = Object.entries(props).filter(([, p]) => p.column).map(([wire, p]) => [wire, p.column!] as const);
  if (renamed.length === 0) return SAME;
  const toColumn = new Map(renamed), toWire = new Map(renamed.map(([w, c]) => [c, w]));
  return {
    toColumns: (body) => renameKeys(body, toColumn),
    toWire: (row) => (row && typeof row === 'object' && !Array.isArray(row) ? renamedCopy(row as Record<string, unknown>, toWire) as typeof row : row),
    wireName: (column) => toWire.get(column) ?? column,
  };
}

/**
 * A copy of `row` with keys renamed by `names`. Building it is cheaper than renaming in place: deleting
 * keys turns an object into a slow dictionary, for this code and for JSON.stringify after it.
 */
function renamedCopy(row: Record<string, unknown>, names: Map<string, string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(row)) out[names.get(key) ?? key] = row[key];
  return out;
}

/** A copy of a call result's row with wire names, for checks written in them (merged JSON documents). */
export const wireRow = (wire: Wire, result: unknown): Record<string, unknown> =>
  wire.toWire({ ...(result as { data: Record<string, unknown> }).data });

/** A property path (`meta.address.city`) as SQL names it: its first segment the column. */
export function columnPath(prop: PropertyManifest, property: string, sub: string[]): string {
  return [prop.column ?? property, ...sub].join('.');
}
