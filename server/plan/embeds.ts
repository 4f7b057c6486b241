// The embeds a request names (`include=project,tags,site.region`), checked against the manifest before any
// SQL: each step an embed of the entity above it, never an entity inside itself, at most EMBED_MAX_DEPTH deep.
import type { EmbedManifest, Manifest, ResourceManifest } from '../../compiler/manifest/types.ts';
import { badRequest } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';
import { wireOf, type Wire } from '../request/wire.ts';

/** The asked embeds as the SQL reads them (`args.embed`): `{"site": {"region": {}}}`. */
export interface EmbedTree { [name: string]: EmbedTree }

/** The wire names of each embedded level's rows (web.name), for renaming the answer. */
export interface EmbedWires { [name: string]: { wire: Wire; below: EmbedWires } }

export function planEmbeds(manifest: Manifest, root: ResourceManifest, paths: string[], maxDepth: number): { tree: EmbedTree; wires: EmbedWires } {
  const tree: EmbedTree = {}, wires: EmbedWires = {};
  for (const path of paths) {
    const steps = path.split('.');
    if (steps.length > maxDepth) {
      throw badRequest(`include "${path}" nests ${steps.length} embeds; at most ${maxDepth} may nest (${LIMITS.maxEmbedDepth.env}).`);
    }
    let r: ResourceManifest | undefined = root, node = tree, wireNode = wires;
    const seen = [root.entity];
    for (const step of steps) {
      const def: EmbedManifest | undefined = r?.embeds?.[step];
      if (!r || !def) throw badRequest(`include "${path}": ${r ? `${r.entity} embeds nothing named "${step}"` : `a sub-resource embeds nothing ("${step}")`}.`);
      if (def.kind !== 'oneToOne' && seen.includes(def.target)) {
        throw badRequest(`include "${path}" would embed ${def.target} inside itself.`);
      }
      const next: ResourceManifest | undefined = def.kind === 'oneToOne' ? undefined : manifest.resources[def.target];
      const rel = def.kind === 'oneToOne' ? r.relations[def.relation] : undefined;
      const props = next?.properties ?? (rel?.kind === 'oneToOne' ? rel.properties : {});
      node = node[step] ??= {};
      wireNode = (wireNode[step] ??= { wire: wireOf(props), below: {} }).below;
      if (next) seen.push(next.entity);
      r = next;
    }
  }
  return { tree, wires };
}

/** A row from SQL with wire names at every embedded level (lists of linked records element by element). */
export function wireRowDeep<T>(row: T, wire: Wire, below: EmbedWires | undefined): T {
  const named = wire.toWire(row) as Record<string, unknown> | null;
  if (!named || typeof named !== 'object' || !below) return named as T;
  for (const [name, w] of Object.entries(below)) {
    const v = named[name];
    if (Array.isArray(v)) named[name] = v.map((x) => wireRowDeep(x, w.wire, w.below));
    else if (v) named[name] = wireRowDeep(v, w.wire, w.below);
  }
  return named as T;
}
