// Renames said in the model (`renamedFrom` on an entity or a property): the model as it was before them, and
// the checks that keep them unambiguous. The migration renames tables and columns by comparing the two.
import type { Entity, Model, Property } from './types.ts';
import { pointer as ptr } from './errors.ts';
import type { CheckContext } from './checks/context.ts';

/** An entity's earlier name and collection (either may be the same as now). */
export interface EntityRename { entity: string; collection: string }

/** What an entity was called before, from its `renamedFrom` (a name, or the name and collection). */
export function entityRename(name: string, e: Entity): EntityRename | undefined {
  const r = e.renamedFrom;
  if (r === undefined) return undefined;
  return typeof r === 'string' ? { entity: r, collection: e.collection } : { entity: r.entity ?? name, collection: r.collection ?? e.collection };
}

/** Whether the model renames anything. */
export const hasRenames = (model: Model) => Object.values(model.entities)
  .some((e) => e.renamedFrom !== undefined || Object.values(e.properties).some((p) => p.renamedFrom !== undefined));

/**
 * The model as it was before its renames: entities, collections and properties under their earlier names,
 * with every reference to them (references, relations, parents, the identity and projects entities) following.
 */
export function previousModel(model: Model): Model {
  const entityNames = new Map<string, string>();
  const propertyNames = new Map<string, Map<string, string>>();
  for (const [name, e] of Object.entries(model.entities)) {
    entityNames.set(name, entityRename(name, e)?.entity ?? name);
    propertyNames.set(name, new Map(Object.entries(e.properties).map(([p, def]) => [p, def.renamedFrom ?? p])));
  }
  const entityOf = (name: string) => entityNames.get(name) ?? name;
  const propertyOf = (entity: string, prop: string) => propertyNames.get(entity)?.get(prop) ?? prop;
  const ref = (r: string) => {
    const [entity, prop] = r.split('.');
    return prop === undefined ? entityOf(entity!) : `${entityOf(entity!)}.${propertyOf(entity!, prop)}`;
  };
  const props = (ps: Record<string, Property>) => Object.fromEntries(Object.entries(ps).map(([p, def]) => {
    const { renamedFrom, ...rest } = def;
    return [renamedFrom ?? p, rest.references ? { ...rest, references: ref(rest.references) } : rest];
  }));
  const entities = Object.fromEntries(Object.entries(model.entities).map(([name, e]) => {
    const { renamedFrom: _, ...rest } = e;
    const before: Entity = {
      ...rest,
      collection: entityRename(name, e)?.collection ?? e.collection,
      properties: props(e.properties),
      ...(e.parent ? { parent: { entity: entityOf(e.parent.entity), property: propertyOf(e.parent.entity, e.parent.property) } } : {}),
      ...(e.relations ? {
        relations: Object.fromEntries(Object.entries(e.relations).map(([rel, r]) => [rel, r.kind === 'manyToMany'
          ? { ...r, entity: entityOf(r.entity) }
          : { ...r, properties: props(r.properties) }])),
      } : {}),
    };
    return [entityOf(name), before];
  }));
  const api = { ...model.api };
  if (api.identity) api.identity = { ...api.identity, entity: entityOf(api.identity.entity) };
  if (api.projects) api.projects = { ...api.projects, entity: entityOf(api.projects.entity) };
  return { ...model, api, entities };
}

/** A rename must name something the model no longer has, and only one thing may take each earlier name. */
export function checkRenames(ctx: CheckContext): void {
  const { model } = ctx;
  const taken = new Map<string, string>();
  for (const [name, e] of Object.entries(model.entities)) {
    const at = ptr('entities', name, 'renamedFrom');
    const r = entityRename(name, e);
    if (r && r.entity === name && r.collection === e.collection) ctx.fail(at, 'Rename', 'renamedFrom names the entity as it is now');
    if (r && r.entity !== name && model.entities[r.entity]) ctx.fail(at, 'Rename', `the model still has an entity named "${r.entity}"`);
    if (r && r.collection !== e.collection && Object.values(model.entities).some((o) => o.collection === r.collection)) {
      ctx.fail(at, 'Rename', `the model still has a collection named "${r.collection}"`);
    }
    const earlier = r ? `entity ${r.entity}` : '';
    if (earlier && taken.has(earlier)) ctx.fail(at, 'Rename', `${taken.get(earlier)} is renamed from "${r!.entity}" too`);
    else if (earlier) taken.set(earlier, `entity ${name}`);
    const olds = new Map<string, string>();
    for (const [pname, p] of Object.entries(e.properties)) {
      if (p.renamedFrom === undefined) continue;
      const pat = ptr('entities', name, 'properties', pname, 'renamedFrom');
      if (p.renamedFrom === pname) ctx.fail(pat, 'Rename', 'renamedFrom names the property as it is now');
      else if (e.properties[p.renamedFrom]) ctx.fail(pat, 'Rename', `${name} still has a property named "${p.renamedFrom}"`);
      else if (olds.has(p.renamedFrom)) ctx.fail(pat, 'Rename', `"${olds.get(p.renamedFrom)}" is renamed from "${p.renamedFrom}" too`);
      else olds.set(p.renamedFrom, pname);
    }
  }
}
