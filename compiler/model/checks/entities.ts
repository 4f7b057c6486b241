// Domain rules that span an entity or the whole model: keys, references, parents, relations,
// reserved column names, table-name collisions and web names (spec 2.3) that would mean two properties.
import type { Entity, Model, Property } from '../types.ts';
import { pointer as ptr } from '../errors.ts';
import { CheckContext } from './context.ts';
import { checkProperty } from './properties.ts';
import { MODULE_NAMES, MODULES } from '../../modules/index.ts';
import { keyColumnName, tableName, relationTableName } from '../names.ts';
import { checkHistory } from '../history.ts';

export function checkEntities(ctx: CheckContext): void {
  const { model } = ctx;
  const tables = new Map<string, string>();
  const claim = (table: string, at: string) => {
    const other = tables.get(table);
    if (other) ctx.fail(at, 'Name Collision', `table app.${table} would also be used by ${other}`);
    else tables.set(table, at);
  };
  for (const [name, entity] of Object.entries(model.entities)) {
    const at = ptr('entities', name);
    claim(tableName(entity), `${at}/collection`);
    checkEntity(ctx, name, entity, at);
    checkHistory(ctx, name, entity);
    for (const rel of Object.keys(entity.relations ?? {})) claim(relationTableName(entity, rel), ptr('entities', name, 'relations', rel));
  }
  checkParentCycles(ctx, model);
  const projects = model.api.projects;
  if (projects) {
    const pe = model.entities[projects.entity];
    if (!pe) {
      if (projects.entity !== undefined) ctx.fail('/api/projects/entity', 'Unknown entity', `no entity named "${projects.entity}"`);
    } else if (pe.relations?.[projects.members]?.kind !== 'manyToMany') {
      ctx.fail('/api/projects/members', 'Projects', `"${projects.members}" must be a manyToMany relation of ${projects.entity}`);
    }
  }
}

function checkEntity(ctx: CheckContext, name: string, e: Entity, at: string): void {
  const props = Object.entries(e.properties);
  const primaries = props.filter(([, p]) => p.primary).map(([n]) => n);
  if (primaries.length !== 1) {
    ctx.fail(`${at}/properties`, 'Primary Key', `an entity needs exactly one primary property (found ${primaries.length ? primaries.join(', ') : 'none'})`);
  }
  // A Status is what lifecycle rules read; a Version the ETag and the body's expected-version lock (spec 2.6): a
  // second one would be neither.
  for (const module of MODULE_NAMES.filter((k) => MODULES[k].onePerEntity)) {
    const carriers = props.filter(([, p]) => p.modules?.[module]).map(([n]) => n);
    if (carriers.length > 1) ctx.fail(`${at}/properties`, `Single ${module}`, `only one property may carry the ${module} module (found ${carriers.join(', ')})`);
  }
  const reserved = new Map<string, string>();
  if (e.softDelete) reserved.set('deleted_at', 'softDelete adds it');
  if (ctx.model.api.strategy !== 'RBAC') reserved.set('organization_id', `${ctx.model.api.strategy} adds it`);
  for (const [pname, p] of props) {
    const pat = `${at}${ptr('properties', pname)}`;
    const why = reserved.get(pname);
    if (why) ctx.fail(pat, 'Reserved Name', `"${pname}" is a system column here (${why})`);
    checkProperty(ctx, pat, pname, p, 'entity', e.properties);
    if (p.references) checkReference(ctx, `${pat}/references`, p.references, p.type);
  }
  const relationNames = new Map(Object.keys(e.relations ?? {}).map((r) => [r, `relation "${r}"`]));
  checkWireNames(ctx, at, e.properties, relationNames);
  for (const [rname, r] of Object.entries(e.relations ?? {})) {
    const rat = `${at}${ptr('relations', rname)}`;
    if (e.properties[rname]) ctx.fail(rat, 'Name Collision', `relation "${rname}" has the name of a property`);
    if (r.kind === 'manyToMany') {
      // A missing name is the schema's error ("entity" is required), not an unknown entity.
      if (r.entity !== undefined && !ctx.model.entities[r.entity]) ctx.fail(`${rat}/entity`, 'Unknown entity', `no entity named "${r.entity}"`);
    } else {
      const ownerKey = keyColumnName(name, primaries[0] ?? 'id');
      checkWireNames(ctx, rat, r.properties, new Map([[ownerKey, `the owner's key "${ownerKey}"`]]));
      for (const [pname, p] of Object.entries(r.properties)) {
        checkProperty(ctx, `${rat}${ptr('properties', pname)}`, pname, p, 'relation', r.properties);
        if (p.references) checkReference(ctx, `${rat}${ptr('properties', pname, 'references')}`, p.references, p.type);
      }
    }
  }
  if (e.parent) {
    const parent = ctx.model.entities[e.parent.entity];
    const prop = e.properties[e.parent.property];
    if (!parent && e.parent.entity !== undefined) ctx.fail(`${at}/parent/entity`, 'Unknown entity', `no entity named "${e.parent.entity}"`);
    if (!prop) ctx.fail(`${at}/parent/property`, 'Unknown property', `no property "${e.parent.property}" on ${name}`);
    else if (prop.references && prop.references !== e.parent.entity) {
      ctx.fail(`${at}/parent/property`, 'Parent', `"${e.parent.property}" references ${prop.references}, not the parent ${e.parent.entity}`);
    } else if (prop.multiple) ctx.fail(`${at}/parent/property`, 'Parent', 'the parent property cannot be multiple');
    if (parent) checkNestedRoute(ctx, at, e, parent);
  }
}

/** A child collection's path below its parent's record must not be one the parent's own routes take. */
function checkNestedRoute(ctx: CheckContext, at: string, e: Entity, parent: Entity): void {
  const path = `/${parent.collection}/{id}/${e.collection}`;
  if (parent.relations?.[e.collection]) {
    ctx.fail(`${at}/collection`, 'Name Collision', `collection "${e.collection}" is also the name of a relation of its parent ${e.parent!.entity}: ${path} would mean both`);
  }
  if (e.collection === 'restore' && parent.softDelete) {
    ctx.fail(`${at}/collection`, 'Name Collision', `collection "restore" under ${e.parent!.entity}, which soft-deletes: ${path} is the restore of its record`);
  }
}

/**
 * web.name (spec 2.3): a property's wire name must not be the name (model or web) of another property of
 * the same set, nor one `taken` beside them, so a body or row key always means one column.
 */
function checkWireNames(ctx: CheckContext, at: string, props: Record<string, Property>, taken: Map<string, string>): void {
  const names = new Map(taken);
  for (const n of Object.keys(props)) names.set(n, `property "${n}"`);
  for (const [n, p] of Object.entries(props)) {
    const web = p.web?.name;
    if (web === undefined || web === n) continue;
    const other = names.get(web);
    if (other) ctx.fail(`${at}${ptr('properties', n, 'web', 'name')}`, 'Name Collision', `web name "${web}" is already the name of ${other}`);
    else names.set(web, `the web name of "${n}"`);
  }
}

/** `references` is "Entity" (its primary key) or "Entity.property" (a unique property). */
function checkReference(ctx: CheckContext, at: string, ref: string, fromType: string): void {
  const [entityName, propName, ...rest] = ref.split('.');
  const target = ctx.model.entities[entityName!];
  if (!target) return ctx.fail(at, 'Unknown entity', `references unknown entity "${entityName}"`);
  const targetName = propName ?? Object.entries(target.properties).find(([, p]) => p.primary)?.[0];
  const tp = targetName ? target.properties[targetName] : undefined;
  if (!tp) return ctx.fail(at, 'Unknown property', `references unknown property "${ref}"`);
  if (tp.type === 'JSON' || rest.length) return ctx.fail(at, 'Foreign Key', 'Foreign keys cannot point to or from nested JSON keys.');
  if (!tp.primary && !tp.unique) return ctx.fail(at, 'Foreign Key', `"${ref}" is neither primary nor unique, so it cannot be referenced`);
  if (tp.type !== fromType) ctx.fail(at, 'Foreign Key', `a ${fromType} property cannot reference ${ref}, which is a ${tp.type}`);
}

function checkParentCycles(ctx: CheckContext, model: Model): void {
  for (const start of Object.keys(model.entities)) {
    const seen = new Set<string>([start]);
    let cur = model.entities[start]?.parent?.entity;
    while (cur) {
      if (seen.has(cur)) {
        ctx.fail(ptr('entities', start, 'parent'), 'Parent', `parent chain loops back through ${cur}`);
        break;
      }
      seen.add(cur);
      cur = model.entities[cur]?.parent?.entity;
    }
  }
}
