// Builds the manifest the gateway reads from api.manifest(): routes, properties, function names,
// request-body schemas and constraint names, all derived from the model and its IR.
import type { Entity, Model, Property } from '../model/types.ts';
import { buildSchema } from '../ir/build.ts';
import { SHORT_STRING_CHARS } from '../ir/columns.ts';
import type { TableIR } from '../ir/types.ts';
import { ENGINE_VERSION, type EmbedManifest, type Manifest, type PropertyManifest, type RelationManifest, type ResourceManifest } from './types.ts';
import { bodySchema } from './schemas.ts';
import { embedsOf, type EmbedDef } from '../query/embeds.ts';
import { docsFacts, keySchema, readSchema, wireProperties } from './read.ts';
import { wireName } from '../model/names.ts';
import { pgName } from '../sql/ident.ts';
import { acceptedFileTypes } from '../model/mime.ts';
import { historyOf } from '../model/history.ts';
import { edgeOf, fileModuleOf, moduleFlag } from '../modules/index.ts';
import type { EdgeProperty } from '../modules/def.ts';
import { versionProperty as versionOf } from '../modules/version.ts';

export function propertyManifest(p: Property): PropertyManifest {
  const m: PropertyManifest = {
    type: p.type,
    multiple: Boolean(p.multiple),
    required: Boolean(p.required),
    primary: Boolean(p.primary),
    readOnly: Boolean(p.readOnly),
    immutable: Boolean(p.immutable),
    writeOnly: Boolean(p.writeOnly) || moduleFlag(p, 'hidden'),
    searchIndexed: Boolean(p.searchIndexed),
    hidden: Boolean(p.web?.hidden),
  };
  if (p.enum) m.enum = p.enum;
  const file = fileModuleOf(p);
  if (file) {
    const cfg = p.modules![file]!;
    const fileTypes = acceptedFileTypes(p);
    m.file = { module: file, ...cfg, ...(fileTypes ? { fileTypes } : {}) };
  }
  if (p.type === 'JSON' && p.index?.paths?.length) {
    m.casts = Object.fromEntries(p.index.paths.filter((e) => e.cast).map((e) => [e.path, e.cast!]));
  }
  return { ...m, ...docsFacts(p) };
}

/** By wire name; a renamed property names its column. */
const props = (record: Record<string, Property>) =>
  Object.fromEntries(Object.entries(record).map(([n, p]) => [wireName(n, p), { ...propertyManifest(p), ...(wireName(n, p) !== n ? { column: n } : {}) }]));

/** Constraint name -> property (its wire name) and rule, for every managed constraint of the tables given. */
function constraintMap(tables: TableIR[]) {
  const wire = (t: TableIR, name: string) => {
    const rel = t.kind === 'subresource' ? t.entity.relations?.[t.relation!.name] : undefined;
    const p = t.kind === 'entity' ? t.entity.properties[name] : rel?.kind === 'oneToOne' ? rel.properties[name] : undefined;
    return p ? wireName(name, p) : name;
  };
  return Object.fromEntries(tables.flatMap((t) => t.constraints.map((c) => [c.name, { property: wire(t, c.property), rule: c.rule }])));
}

export function buildManifest(model: Model): Manifest {
  const { tables } = buildSchema(model);
  const resources: Record<string, ResourceManifest> = {};
  for (const t of tables.filter((x) => x.kind === 'entity')) {
    const e = t.entity;
    const own = tables.filter((x) => x.entityName === t.entityName);
    const relations: Record<string, RelationManifest> = {};
    for (const r of own.filter((x) => x.relation)) {
      const rel = r.relation!;
      const spec = e.relations![rel.name]!;
      relations[rel.name] = spec.kind === 'manyToMany'
        ? {
            kind: 'manyToMany', target: spec.entity, table: r.name,
            functions: { list: pgName(r.name, 'list'), link: pgName(r.name, 'link'), unlink: pgName(r.name, 'unlink') },
            ownerColumn: rel.ownerColumn, targetColumn: rel.targetColumn!,
            edge: Object.fromEntries(Object.entries(edgeOf(spec)).map(([k, v]) => [k, v.enum ? { enum: v.enum } : {}])),
            schemas: { link: linkSchema(edgeOf(spec)) },
          }
        : {
            kind: 'oneToOne', table: r.name,
            functions: { read: pgName(r.name, 'read'), replace: pgName(r.name, 'replace') }, ownerColumn: rel.ownerColumn,
            properties: props(spec.properties),
            schemas: { replace: bodySchema(wireProperties(spec.properties), 'replace'), read: readSchema(spec.properties, ownerKey(rel.ownerColumn, e)) },
          };
    }
    const named = (found: [string, Property] | undefined) => (found ? wireName(...found) : undefined);
    const versionProperty = named(versionOf(e));
    const fn = (a: string) => pgName(t.name, a);
    resources[t.entityName] = {
      entity: t.entityName, collection: e.collection, table: t.name,
      primaryKey: named(Object.entries(e.properties).find(([, p]) => p.primary))!,
      softDelete: Boolean(e.softDelete),
      ...(versionProperty ? { versionProperty } : {}),
      ...(e.parent ? { parent: { entity: e.parent.entity, property: wireName(e.parent.property, e.properties[e.parent.property]!) } } : {}),
      properties: props(e.properties),
      relations,
      ...embedsManifest(t.entityName, e),
      functions: {
        list: fn('list'), search: fn('search'), read: fn('read'), create: fn('create'), replace: fn('replace'),
        patch: fn('patch'), delete: fn('delete'), ...(e.softDelete ? { restore: fn('restore') } : {}), stream: fn('stream'),
        ...(historyOf(e) ? { history: fn('history') } : {}),
      },
      schemas: {
        create: bodySchema(wireProperties(e.properties), 'create'), replace: bodySchema(wireProperties(e.properties), 'replace'),
        patch: bodySchema(wireProperties(e.properties), 'patch'),
        read: readSchema(e.properties),
      },
      ...(e.description ? { description: e.description } : {}),
      constraints: constraintMap(own),
    };
  }
  const { api } = model;
  return {
    engine: ENGINE_VERSION,
    api: { slug: api.slug, version: api.version, title: api.title, ...(api.description ? { description: api.description } : {}),
      docsUrl: api.docsUrl, basePath: `/api/${api.slug}/${api.version}` },
    resources,
    ...(api.identity ? { identity: { entity: api.identity.entity, collection: model.entities[api.identity.entity]!.collection } } : {}),
  };
}

function embedsManifest(name: string, e: Entity) {
  const embeds = embedsOf(name, e);
  const manifest = (x: EmbedDef): EmbedManifest => x.kind === 'reference'
    ? { kind: x.kind, target: x.target, property: wireName(x.property, e.properties[x.property]!) }
    : x.kind === 'manyToMany' ? { kind: x.kind, target: x.target, relation: x.relation } : { kind: x.kind, relation: x.relation };
  return embeds.length ? { embeds: Object.fromEntries(embeds.map((x) => [x.name, manifest(x)])) } : {};
}

/** The link body: each active edge property (spec 2.4), with its allowed values and its display name as `title`. */
function linkSchema(edge: Record<string, EdgeProperty>): object {
  const properties = Object.fromEntries(Object.entries(edge)
    .map(([k, v]) => [k, { ...(v.displayName ? { title: v.displayName } : {}),
      anyOf: [{ type: 'string', maxLength: SHORT_STRING_CHARS, ...(v.enum ? { enum: v.enum } : {}) }, { type: 'null' }] }]));
  return { type: 'object', properties, additionalProperties: false };
}

/** A sub-resource's key column: the owner's key (text until the sub-resource is first written). */
function ownerKey(name: string, owner: Entity) {
  const pk = Object.values(owner.properties).find((p) => p.primary)!;
  const schema = keySchema(pk);
  return { name, schema: pk.type === 'Number' ? { type: ['integer', 'string'] } : schema };
}
