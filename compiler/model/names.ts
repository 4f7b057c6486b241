// Database names derived from the model: one place decides what every table is called,
// so the compiler, validation (collisions) and the gateway agree.
import type { Entity, Property } from './types.ts';
import { pgName } from '../sql/ident.ts';

/** app.<collection>, with dashes (allowed in URLs) turned into underscores. */
export function tableName(e: Entity): string {
  return e.collection.replace(/-/g, '_');
}

/**
 * Join table of a manyToMany relation, or the table of a oneToOne sub-resource: `<table>_<relation>`, or when
 * that passes PostgreSQL's 63 bytes, its start and a short hash (stable, and unique where a cut would not be).
 */
export function relationTableName(e: Entity, relation: string): string {
  return pgName(tableName(e), relation.toLowerCase());
}

/** A join or sub-resource table's column holding an entity's key: `<entity>_<key>` in snake_case, within 63 bytes. */
export function keyColumnName(entityName: string, key: string, prefix = ''): string {
  return pgName(`${prefix}${snake(entityName)}`, key);
}

/** snake_case of an entity name: BlogPost -> blog_post. */
export function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** The name a property has on the wire: its web.name, else its own (spec 2.3); the column keeps its own. */
export const wireName = (name: string, p: Property): string => p.web?.name ?? name;

/** An entity's primary key: its model name and property (a validated model has exactly one). */
export function primaryKeyOf(e: Entity): [string, Property] {
  const found = Object.entries(e.properties).find(([, p]) => p.primary);
  if (!found) throw new Error(`entity ${e.collection} has no primary key`);
  return found;
}
