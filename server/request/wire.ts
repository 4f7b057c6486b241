// web.name on the wire (spec 2.3): a property the model renames is spoken to clients by its web name and
// to SQL by its column's. Bodies go in with column keys; rows come out of SQL already with wire keys (the
// compiled functions build them so); errors SQL reports by column are named by the wire.
import type { PropertyManifest } from '../../compiler/manifest/types.ts';
import { renameKeys } from '../codec/json.ts';

export interface Wire {
  /** Renames a body's wire keys to columns, in place (its exact twin too). */
  toColumns(body: Record<string, unknown>): Record<string, unknown>;
  /** The wire name of a column (a property name SQL reported). */
  wireName(column: string): string;
}

const SAME: Wire = { toColumns: (b) => b, wireName: (c) => c };

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
    wireName: (column) => toWire.get(column) ?? column,
  };
}

/** A copy of a call result's row (wire names), for checks written in them (merged JSON documents). */
export const resultRow = (result: unknown): Record<string, unknown> => ({ ...(result as { data: Record<string, unknown> }).data });

/** A property path (`meta.address.city`) as SQL names it: its first segment the column. */
export function columnPath(prop: PropertyManifest, property: string, sub: string[]): string {
  return [prop.column ?? property, ...sub].join('.');
}
