// Projections: include keeps only the named paths, exclude removes them; dot paths prune nested JSON
// (arrays on the way are pruned element by element). Applied to `data`, each row for lists.
import type { Projection } from '../request/listing.ts';
import { isLosslessNumber } from '../codec/json.ts';

type Tree = Map<string, Tree | true>;

/** Paths as a tree; a whole property named beside a path under it wins. */
function tree(paths: string[]): Tree {
  const root: Tree = new Map();
  for (const path of paths) {
    let node = root;
    const segments = path.split('.');
    segments.forEach((seg, i) => {
      const cur = node.get(seg);
      if (cur === true) return;
      if (i === segments.length - 1) return void node.set(seg, true);
      const next = cur ?? new Map();
      node.set(seg, next);
      node = next;
    });
  }
  return root;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v) && !isLosslessNumber(v);

function keep(value: unknown, t: Tree): unknown {
  if (Array.isArray(value)) return value.map((v) => keep(v, t));
  if (!isObject(value)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of t) {
    if (!Object.hasOwn(value, key)) continue;
    const picked = sub === true ? value[key] : keep(value[key], sub);
    if (picked !== undefined) out[key] = picked;
  }
  return out;
}

function drop(value: unknown, t: Tree): unknown {
  if (Array.isArray(value)) return value.map((v) => drop(v, t));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [key, sub] of t) {
    if (!Object.hasOwn(out, key)) continue;
    if (sub === true) delete out[key];
    else out[key] = drop(out[key], sub);
  }
  return out;
}

const unchanged = (row: unknown): unknown => row;

/** A function applying the projection to one record (identity when there is none). */
export function projector(p: Projection): (row: unknown) => unknown {
  const inc = p.include ? tree(p.include) : undefined;
  const exc = p.exclude ? tree(p.exclude) : undefined;
  if (!inc && !exc) return unchanged;
  return (row) => {
    let out = inc ? keep(row, inc) ?? row : row;
    if (exc) out = drop(out, exc);
    return out;
  };
}
