// What `include` may embed in a read, list or search row (`include=project,tags,site.region`): its names,
// kinds and targets, and the nesting depth compiled into SQL; one home for the SQL emitter, manifest and gateway.
import type { Entity } from '../model/types.ts';
import { wireName } from '../model/names.ts';

/** Levels of embeds the SQL holds (`site.region.country` is three); EMBED_MAX_DEPTH may only lower it. */
export const EMBED_DEPTH = 3;

export type EmbedDef =
  /** A to-one record: the reference property (model name, so the column) and the entity it points at. */
  | { name: string; kind: 'reference'; property: string; target: string }
  /** The records a manyToMany relation links, each with its edge properties. */
  | { name: string; kind: 'manyToMany'; relation: string; target: string }
  /** A oneToOne sub-resource. */
  | { name: string; kind: 'oneToOne'; relation: string };

/**
 * The embeds of an entity, named so no property shares the name:
 * - a property that references another entity's primary key, named by its wire name without `_id` / `Id`;
 * - each manyToMany relation (a list) and oneToOne relation (an object), by the relation's name.
 * A reference or relation back to the entity itself does not embed.
 */
export function embedsOf(entityName: string, entity: Entity): EmbedDef[] {
  const wire = (name: string) => wireName(name, entity.properties[name]!);
  const taken = new Set(Object.keys(entity.properties).map(wire));
  const out: EmbedDef[] = [];
  const add = (d: EmbedDef) => {
    if (d.name === '' || taken.has(d.name)) return;
    taken.add(d.name);
    out.push(d);
  };
  for (const [property, p] of Object.entries(entity.properties)) {
    const target = p.references;
    if (!target || target.includes('.') || target === entityName || p.multiple) continue;
    const name = wire(property).replace(/(_id|Id)$/, '');
    if (name !== wire(property)) add({ name, kind: 'reference', property, target });
  }
  for (const [relation, r] of Object.entries(entity.relations ?? {})) {
    if (r.kind === 'oneToOne') add({ name: relation, kind: 'oneToOne', relation });
    else if (r.entity !== entityName) add({ name: relation, kind: 'manyToMany', relation, target: r.entity });
  }
  return out;
}
