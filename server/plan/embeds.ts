// The embeds a request names (`include=project,tags,site.region`), checked against the manifest before any
// SQL: each step an embed of the entity above it, never an entity inside itself, at most EMBED_MAX_DEPTH deep.
import type { EmbedManifest, Manifest, ResourceManifest } from '../../compiler/manifest/types.ts';
import { badRequest } from '../problem/types.ts';
import { LIMITS } from '../request/limits.ts';

/** The asked embeds as the SQL reads them (`args.embed`): `{"site": {"region": {}}}`. */
export interface EmbedTree { [name: string]: EmbedTree }

export function planEmbeds(manifest: Manifest, root: ResourceManifest, paths: string[], maxDepth: number): EmbedTree {
  const tree: EmbedTree = {};
  for (const path of paths) {
    const steps = path.split('.');
    if (steps.length > maxDepth) {
      throw badRequest(`include "${path}" nests ${steps.length} embeds; at most ${maxDepth} may nest (${LIMITS.maxEmbedDepth.env}).`);
    }
    let r: ResourceManifest | undefined = root, node = tree;
    const seen = [root.entity];
    for (const step of steps) {
      const def: EmbedManifest | undefined = r?.embeds?.[step];
      if (!r || !def) throw badRequest(`include "${path}": ${r ? `${r.entity} embeds nothing named "${step}"` : `a sub-resource embeds nothing ("${step}")`}.`);
      if (def.kind !== 'oneToOne' && seen.includes(def.target)) {
        throw badRequest(`include "${path}" would embed ${def.target} inside itself.`);
      }
      const next: ResourceManifest | undefined = def.kind === 'oneToOne' ? undefined : manifest.resources[def.target];
      node = node[step] ??= {};
      if (next) seen.push(next.entity);
      r = next;
    }
  }
  return tree;
}
