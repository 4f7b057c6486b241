// Builds the manifest the gateway reads from api.manifest(): routes, properties, function names,
// request-body schemas and constraint names, a projection of each entity's ResourceIR.
import type { Model } from '../model/types.ts';
import { SHORT_STRING_CHARS } from '../ir/columns.ts';
import { ENGINE_VERSION, type EmbedManifest, type Manifest, type PropertyManifest, type RelationManifest, type ResourceManifest } from './types.ts';
import { bodySchema, bodySchemas } from './schemas.ts';
import { keySchema, readSchema } from './read.ts';
import { buildResources } from '../resource/build.ts';
import type { EmbedIR, PropertiesIR, PropertyFlags, PropertyIR, ResourceIR } from '../resource/types.ts';
import type { EdgeProperty } from '../modules/def.ts';

/** A property's manifest entry: its type, the flags that hold (absent: false), its facts; `column` when renamed. */
export function propertyManifest(p: PropertyIR): PropertyManifest {
  const flags = Object.fromEntries(Object.entries(p.flags).filter(([, v]) => v).map(([k]) => [k, true])) as Partial<Record<keyof PropertyFlags, true>>;
  return {
    type: p.type, ...flags,
    ...(p.enum ? { enum: p.enum } : {}), ...(p.file ? { file: p.file } : {}), ...(p.casts ? { casts: p.casts } : {}),
    ...p.docs,
    ...(p.wire !== p.column ? { column: p.column } : {}),
  };
}

const props = (record: PropertiesIR) => Object.fromEntries(Object.entries(record).map(([w, p]) => [w, propertyManifest(p)]));
/** The model's properties by wire name, for the body and read schemas. */
const models = (record: PropertiesIR) => Object.fromEntries(Object.entries(record).map(([w, p]) => [w, p.model]));

/** An entity's resource in the manifest: a projection of its ResourceIR. */
export function resourceManifest(r: ResourceIR): ResourceManifest {
  const relations: Record<string, RelationManifest> = {};
  for (const rel of Object.values(r.relations)) {
    relations[rel.name] = rel.kind === 'manyToMany'
      ? {
          kind: 'manyToMany', target: rel.target, table: rel.table, functions: rel.functions,
          ownerColumn: rel.ownerColumn, targetColumn: rel.targetColumn,
          edge: Object.fromEntries(Object.entries(rel.edge).map(([k, v]) => [k, v.enum ? { enum: v.enum } : {}])),
          schemas: { link: linkSchema(rel.edge) },
        }
      : {
          kind: 'oneToOne', table: rel.table, functions: rel.functions, ownerColumn: rel.ownerColumn,
          properties: props(rel.properties),
          schemas: { replace: bodySchema(models(rel.properties), 'replace'), read: readSchema(models(rel.properties), ownerKey(rel.ownerColumn, r)) },
        };
  }
  const body = models(r.properties);
  return {
    entity: r.entity, collection: r.collection, table: r.table,
    primaryKey: r.key.wire,
    softDelete: r.softDelete,
    ...(r.version ? { versionProperty: r.version.wire } : {}),
    ...(r.parent ? { parent: { entity: r.parent.entity, property: r.parent.wire } } : {}),
    properties: props(r.properties),
    relations,
    ...(r.embeds.length ? { embeds: Object.fromEntries(r.embeds.map((x) => [x.name, embedManifest(x)])) } : {}),
    functions: r.functions,
    schemas: { ...bodySchemas(body), read: readSchema(body) },
    ...(r.description ? { description: r.description } : {}),
    constraints: r.constraints,
  };
}

export function buildManifest(model: Model): Manifest {
  const resources = Object.fromEntries(Object.entries(buildResources(model).resources).map(([n, r]) => [n, resourceManifest(r)]));
  return { ...manifestHead(model), resources };
}

/** The manifest without its resources (lib.manifest's row; each resource has a row of its own). */
export function manifestHead(model: Model): Manifest {
  const { api } = model;
  return {
    engine: ENGINE_VERSION,
    api: { slug: api.slug, version: api.version, title: api.title, ...(api.description ? { description: api.description } : {}),
      docsUrl: api.docsUrl, basePath: `/api/${api.slug}/${api.version}` },
    resources: {},
    ...(api.identity ? { identity: { entity: api.identity.entity, collection: model.entities[api.identity.entity]!.collection } } : {}),
  };
}

function embedManifest(x: EmbedIR): EmbedManifest {
  return x.kind === 'reference' ? { kind: x.kind, target: x.target, property: x.property }
    : x.kind === 'manyToMany' ? { kind: x.kind, target: x.target, relation: x.relation } : { kind: x.kind, relation: x.relation };
}

/** The link body: each active edge property (spec 2.4), with its allowed values and its display name as `title`. */
function linkSchema(edge: Record<string, EdgeProperty>): object {
  const properties = Object.fromEntries(Object.entries(edge)
    .map(([k, v]) => [k, { ...(v.displayName ? { title: v.displayName } : {}),
      anyOf: [{ type: 'string', maxLength: SHORT_STRING_CHARS, ...(v.enum ? { enum: v.enum } : {}) }, { type: 'null' }] }]));
  return { type: 'object', properties, additionalProperties: false };
}

/** A sub-resource's key column: the owner's key (text until the sub-resource is first written). */
function ownerKey(name: string, owner: ResourceIR) {
  const pk = owner.key.model;
  const schema = keySchema(pk);
  return { name, schema: pk.type === 'Number' ? { type: ['integer', 'string'] } : schema };
}
