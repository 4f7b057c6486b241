// JSON Schemas (draft-07) of request bodies, derived from the model: the gateway validates bodies
// with ajv before calling SQL, so a client gets every type, enum, pattern and bound error at once.
import type { Property } from '../model/types.ts';
import { INTEGER_RANGES, isFile, serverManaged, SHORT_STRING_CHARS } from '../ir/columns.ts';
import { selfContained } from '../model/json-schema.ts';
import { moduleFlag, modulesOf } from '../modules/index.ts';

type Schema = Record<string, unknown>;

const { integer: INT32, bigint: INT64 } = INTEGER_RANGES;

/** Schema of one value (an element, for multiple properties). */
export function valueSchema(p: Property): Schema {
  if (isFile(p)) return { type: 'string', minLength: 1, description: 'file_reference from the upload intent' };
  switch (p.type) {
    case 'String': {
      const s: Schema = { type: 'string' };
      // A key a client writes is a path segment: an empty one leaves the record at a URL no route matches.
      if (p.primary && !p.readOnly) s.minLength = 1;
      if (!p.long) s.maxLength = SHORT_STRING_CHARS;
      if (p.enum) s.enum = p.enum;
      if (p.pattern) s.pattern = p.pattern;
      return modulesOf(p).reduce<Schema>((x, { def }) => def.wire?.value?.(x, p) ?? x, s);
    }
    case 'Number': {
      const f = p.web?.format;
      const s: Schema = f === 'int32' ? { type: 'integer', ...INT32 } : f === 'int64' ? { type: 'integer', ...INT64 }
        : modulesOf(p).reduce<Schema>((s, { def }) => def.wire?.value?.(s, p) ?? s, { type: 'number' });
      if (typeof p.minimum === 'number') s[p.exclusiveMinimum ? 'exclusiveMinimum' : 'minimum'] = p.minimum;
      if (typeof p.maximum === 'number') s[p.exclusiveMaximum ? 'exclusiveMaximum' : 'maximum'] = p.maximum;
      if (p.multipleOf !== undefined) s.multipleOf = p.multipleOf;
      return s;
    }
    case 'Boolean': return { type: 'boolean' };
    case 'Date': return { type: 'string', format: 'date' };
    case 'Time': return { type: 'string', pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?$' };
    case 'DateTime': return { type: 'string', format: 'date-time' };
    case 'JSON': return (selfContained(p.schema) as Schema | undefined) ?? {};
    case 'Binary': return { type: 'string', minLength: 1 };
    default: {
      const never: never = p.type;
      throw new Error(`unknown type ${String(never)}`);
    }
  }
}

/**
 * A property's schema in a request body: nullable unless required (spec 2.1: only a required value cannot be
 * null). A JSON property's null is no document, so its JSON Schema never judges it; a JSON property without a
 * schema (`{}`) takes null as it is.
 */
export function propertySchema(p: Property): Schema {
  const one = valueSchema(p);
  const anything = p.type === 'JSON' && Object.keys(one).length === 0;
  const s: Schema = p.multiple ? { type: 'array', items: one } : one;
  if (p.description) s.description = p.description;
  if (p.deprecated) s.deprecated = true;
  if (p.required || anything) return s;
  return { anyOf: [s, NULL] };
}

const NULL: Schema = { type: 'null' };

/** The value's own schema inside propertySchema's nullable wrapper (a JSON property's document schema). */
export function documentSchema(s: unknown): unknown {
  const anyOf = (s as { anyOf?: unknown[] } | undefined)?.anyOf;
  if (!Array.isArray(anyOf) || anyOf.length !== 2 || Object.keys(s as object).length !== 1) return s;
  const rest = anyOf.filter((b) => (b as Schema)?.type !== 'null' || Object.keys(b as object).length !== 1);
  return rest.length === 1 ? rest[0] : s;
}

/** Whether a create body must carry the property: required, and nothing else provides a value. */
export function mustSupply(p: Property): boolean {
  if (!p.required || p.readOnly || serverManaged(p) || moduleFlag(p, 'fills')) return false;
  if (p.defaultValue !== undefined) return false;
  return !(p.primary && p.type === 'String');
}

export type BodyKind = 'create' | 'replace' | 'patch';

/** Body schema for a set of properties; readOnly ones are left out (supplying one is a 400). */
export function bodySchema(props: Record<string, Property>, kind: BodyKind): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const [name, p] of Object.entries(props)) {
    if (p.readOnly) continue;
    // A module may say what a body holds instead (a Version: ignored on create, the expected version on update).
    const byModule = modulesOf(p).find(({ def }) => def.wire?.body)?.def.wire!.body!(kind);
    properties[name] = byModule ?? propertySchema(p);
    // A PUT keeps what it leaves out of these (compiler/sql/engine: kept), so it need not repeat them.
    if (kind !== 'patch' && mustSupply(p) && !(kind === 'replace' && (p.primary || p.immutable || p.writeOnly))) required.push(name);
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** The body schemas of an entity as the manifest stores them: their shared property schemas under `$defs`. */
export interface BodySchemas {
  /** A property's schema that create, replace and patch share, by wire name; a body names it `{"$ref": "#/$defs/<name>"}`. */
  $defs?: Record<string, Schema>;
  create: Schema;
  replace: Schema;
  patch: Schema;
}

const BODY_KINDS: BodyKind[] = ['create', 'replace', 'patch'];

/** `#/$defs/<name>`, the name escaped as a JSON Pointer segment (RFC 6901). */
const defRef = (name: string) => `#/$defs/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;

/**
 * The create, replace and patch schemas of `props`, each property's schema written once under `$defs` where the
 * three bodies hold the same one (a Version's differs: ignored on create, the expected version on update) and it is
 * longer than a reference to it.
 */
export function bodySchemas(props: Record<string, Property>): BodySchemas {
  const [create, replace, patch] = BODY_KINDS.map((k) => bodySchema(props, k)) as [Schema, Schema, Schema];
  const bodies = [create, replace, patch].map((b) => b.properties as Record<string, Schema>);
  const $defs: Record<string, Schema> = {};
  for (const name of Object.keys(bodies[0]!)) {
    const text = JSON.stringify(bodies[0]![name]);
    const ref = { $ref: defRef(name) };
    // Written once when it is longer than the three references to it would be (a bare `{"type":"boolean"}` is not).
    if (text.length <= JSON.stringify(ref).length || !bodies.every((b) => JSON.stringify(b[name]) === text)) continue;
    $defs[name] = bodies[0]![name]!;
    for (const b of bodies) b[name] = ref;
  }
  return { ...(Object.keys($defs).length ? { $defs } : {}), create, replace, patch };
}

const inlined = new WeakMap<object, Schema>();

/**
 * A body schema with its shared property schemas in place of their `$ref`s: the whole schema, as ajv compiles it
 * and the API documents show it (kept, so each stored schema is inlined once).
 */
export function bodySchemaOf(schemas: { $defs?: Record<string, object>; create: object; replace: object; patch: object }, kind: BodyKind): Schema {
  const body = schemas[kind] as Schema;
  const defs = schemas.$defs;
  if (!defs) return body;
  let out = inlined.get(body);
  if (!out) {
    const refs = new Map(Object.keys(defs).map((name) => [defRef(name), defs[name] as Schema]));
    const props = Object.entries((body.properties ?? {}) as Record<string, Schema>)
      .map(([name, s]) => [name, typeof s.$ref === 'string' && refs.has(s.$ref) ? refs.get(s.$ref)! : s]);
    out = { ...body, properties: Object.fromEntries(props) };
    inlined.set(body, out);
  }
  return out;
}
