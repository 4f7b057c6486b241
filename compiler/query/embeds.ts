// Embedded to-one records (`include=project` on posts): which reference properties embed their record and
// under what name; defined once for the SQL emitter, the manifest and the gateway.
import type { Entity } from '../model/types.ts';
import { wireName } from '../manifest/read.ts';

export interface EmbedDef {
  /** The key in a row (`project`): the reference property's wire name without its `_id` / `Id` ending. */
  name: string;
  /** The reference property (model name, so the column). */
  property: string;
  /** The entity it points at. */
  target: string;
}

/**
 * A property that references another entity's primary key and whose wire name ends in `_id` or `Id`
 * embeds that record; a name another property already has, or a reference to the entity itself, does not.
 */
export function embedsOf(entityName: string, entity: Entity): EmbedDef[] {
  const wire = (name: string) => (entity.properties[name] ? wireName(name, entity.properties[name]) : name);
  const taken = new Set(Object.keys(entity.properties).map(wire));
  const out: EmbedDef[] = [];
  for (const [property, p] of Object.entries(entity.properties)) {
    const target = p.references;
    if (!target || target.includes('.') || target === entityName || p.multiple) continue;
    const name = wire(property).replace(/(_id|Id)$/, '');
    if (name === wire(property) || name === '' || taken.has(name)) continue;
    out.push({ name, property, target });
  }
  return out;
}
