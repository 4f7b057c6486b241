// Per-entity schemas of the OpenAPI document, derived from the manifest's own body and read schemas
// (the ones the gateway validates with), then shaped for spec table 2.2 and the web bindings.
import type { EmbedManifest, PropertyManifest, ResourceManifest } from '../manifest/types.ts';
import { ref, type Schema } from './common.ts';
import { bodySchemaOf } from '../manifest/schemas.ts';
import { pascal } from './operations.ts';

type Props = Record<string, PropertyManifest>;
type Kind = 'read' | 'create' | 'update' | 'patch';

const clone = <T>(v: T): T => structuredClone(v);

/** The schema of one value inside a property schema: past a nullable `anyOf` and an array's `items`. */
function valueNode(s: Schema): Schema {
  const branch = Array.isArray(s.anyOf) ? (s.anyOf as Schema[]).find((b) => b.type !== 'null') : undefined;
  if (branch) return valueNode(branch);
  return s.type === 'array' && s.items && typeof s.items === 'object' ? valueNode(s.items as Schema) : s;
}

/** Web bindings (spec 2.3): numeric format, web.name is the key itself, fileTypes, default. */
function decorate(s: Schema, p: PropertyManifest, kind: Kind): Schema {
  const inner = Array.isArray(s.anyOf) ? (s.anyOf as Schema[]).find((b) => b.type !== 'null') : undefined;
  for (const k of ['description', 'deprecated'] as const) {
    if (inner && inner[k] !== undefined) {
      s[k] = inner[k];
      delete inner[k];
    }
  }
  if (p.format) {
    const v = valueNode(s);
    if (v.type === 'integer' || v.type === 'number') v.format = p.format;
  }
  if (p.file) {
    s['x-file-module'] = p.file.module;
    if (p.file.fileTypes) s['x-fileTypes'] = p.file.fileTypes;
    if (p.file.maxSizeInBytes !== undefined) s['x-maxSizeInBytes'] = p.file.maxSizeInBytes;
    if (kind !== 'read') s.description = `file_reference token from POST /.well-known/upload${p.file.fileTypes ? ` (a file of type ${p.file.fileTypes.join(', ')})` : ''}.`;
  }
  if (kind === 'create' && p.defaultValue !== undefined) s.default = p.defaultValue;
  if (p.writeOnly) s.writeOnly = true;
  return s;
}

/** JSON properties in a PATCH are RFC 7396 merge patches: nested keys optional, null deletes one. */
function mergePatch(s: Schema): Schema {
  if (Array.isArray(s.anyOf)) return { ...s, anyOf: (s.anyOf as Schema[]).map((b) => (b.type === 'null' ? b : mergePatch(b))) };
  if (!s.properties || typeof s.properties !== 'object') return s;
  const { required: _required, ...rest } = s;
  const properties = Object.fromEntries(Object.entries(s.properties as Record<string, Schema>)
    .map(([k, v]) => [k, { anyOf: [mergePatch(v), { type: 'null' }] }]));
  return { ...rest, properties };
}

/**
 * One object schema of `kind` from a manifest schema: hidden properties left out, update bodies
 * without immutable properties and keys (spec 2.2), Version left out of create (the server sets 1).
 */
export function shape(source: object, props: Props, kind: Kind, version?: string): Schema {
  const s = clone(source) as Schema & { properties?: Record<string, Schema>; required?: string[] };
  const keep = (name: string) => {
    const p = props[name];
    if (!p) return true; // a key column that is not a model property (a sub-resource's owner key)
    if (p.hidden) return false;
    if (kind === 'create' && name === version) return false;
    if (kind !== 'read' && p.serverSet) return false; // the server sets it whatever the body says
    return !((kind === 'update' || kind === 'patch') && (p.immutable || p.primary));
  };
  const properties: Record<string, Schema> = {};
  for (const [name, schema] of Object.entries(s.properties ?? {})) {
    if (!keep(name)) continue;
    const p = props[name];
    let out = p ? decorate(schema, p, kind) : schema;
    if (kind === 'patch' && p?.type === 'JSON') out = { ...mergePatch(out), description: 'RFC 7396 merge patch: objects merge recursively, null deletes a key, arrays and scalars replace.' };
    properties[name] = out;
  }
  const required = (s.required ?? []).filter((n) => n in properties);
  const hidden = Object.values(props).some((p) => p.hidden);
  const { required: _r, properties: _p, additionalProperties: _a, ...rest } = s;
  return {
    ...rest, properties, ...(required.length ? { required } : {}),
    // A hidden property is still accepted, so a body may hold a key the document does not show.
    ...(kind !== 'read' && !hidden ? { additionalProperties: false } : {}),
  };
}

export const single = (name: string): Schema =>
  ({ type: 'object', properties: { data: ref(name) }, required: ['data'] });
export const listOf = (name: string): Schema =>
  ({ type: 'object', properties: { data: { type: 'array', items: ref(name) }, meta: ref('PageMeta') }, required: ['data', 'meta'] });

/**
 * A row with what `include` may embed (each marked x-embed): a referenced record (null when the caller may
 * not read it), the linked records of a manyToMany relation with their edges, a oneToOne sub-resource.
 */
function withEmbeds(row: Schema, r: ResourceManifest): Schema {
  const embeds = Object.entries(r.embeds ?? {});
  if (!embeds.length) return row;
  const properties = { ...(row.properties as Record<string, Schema>) };
  for (const [name, e] of embeds) properties[name] = { 'x-embed': true, readOnly: true, ...embedSchema(r, name, e) };
  return { ...row, properties };
}

function embedSchema(r: ResourceManifest, name: string, e: EmbedManifest): Schema {
  const asked = `when \`include\` names "${name}"`;
  switch (e.kind) {
    case 'reference':
      return { anyOf: [ref(e.target), { type: 'null' }], description: `The ${e.target} that ${e.property} names, ${asked}; null when the caller may not read it.` };
    case 'manyToMany':
      return { type: 'array', items: ref(`${r.entity}${pascal(e.relation)}Linked`),
        description: `The ${e.target} records linked by ${e.relation} that the caller may read, with their edge properties, ${asked}: at most EMBED_MAX_ROWS, by key.` };
    case 'oneToOne':
      return { allOf: [ref(`${r.entity}${pascal(e.relation)}`)], description: `The ${e.relation} sub-resource, ${asked}.` };
  }
}

/** Read, Create, Update, Patch (and CreateNested for children) schemas, plus the response wrappers. */
export function entitySchemas(r: ResourceManifest): Record<string, Schema> {
  const e = r.entity, props = r.properties;
  const out: Record<string, Schema> = {
    [e]: withEmbeds({ ...shape(r.schemas.read, props, 'read'), ...(r.description ? { description: r.description } : {}) }, r),
    [`${e}Create`]: shape(bodySchemaOf(r.schemas, 'create'), props, 'create', r.versionProperty),
    [`${e}Update`]: shape(bodySchemaOf(r.schemas, 'replace'), props, 'update'),
    [`${e}Patch`]: shape(bodySchemaOf(r.schemas, 'patch'), props, 'patch'),
    [`${e}Single`]: single(e),
    [`${e}List`]: listOf(e),
    // A bulk create answers the records, in the order sent.
    [`${e}BulkCreated`]: { type: 'object', properties: { data: { type: 'array', items: ref(e) } }, required: ['data'] },
  };
  if (r.parent) {
    const nested = clone(out[`${e}Create`]!) as Schema & { required?: string[] };
    const required = (nested.required ?? []).filter((n) => n !== r.parent!.property);
    delete nested.required;
    out[`${e}CreateNested`] = { ...nested, ...(required.length ? { required } : {}),
      description: `On a nested path the parent key ${r.parent.property} comes from the path.` };
  }
  return out;
}
