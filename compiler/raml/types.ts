// JSON Schema (as the OpenAPI document holds it) to RAML 1.0 type declarations. RAML unions take no
// facets, so a nullable value with facets becomes a named helper type `T | nil`; what RAML cannot
// say (exclusive bounds, readOnly, web bindings) travels as annotations.
type Schema = Record<string, unknown>;
export type RamlType = string | Record<string, unknown>;

export const ANNOTATION_TYPES: Record<string, unknown> = {
  readOnly: 'boolean', writeOnly: 'boolean', deprecated: 'boolean', fileModule: 'string',
  fileTypes: 'string[]', maxSizeInBytes: 'integer', exclusiveMinimum: 'number', exclusiveMaximum: 'number', jsonSchema: 'string',
};
const ANNOTATED: Record<string, string> = {
  readOnly: 'readOnly', writeOnly: 'writeOnly', deprecated: 'deprecated', 'x-file-module': 'fileModule',
  'x-fileTypes': 'fileTypes', 'x-maxSizeInBytes': 'maxSizeInBytes', exclusiveMinimum: 'exclusiveMinimum', exclusiveMaximum: 'exclusiveMaximum',
};
const FACETS = ['pattern', 'minLength', 'maxLength', 'enum', 'minimum', 'maximum', 'multipleOf', 'minItems', 'maxItems', 'minProperties', 'default'];
const FORMATS: Record<string, string> = { int32: 'int32', int64: 'int64', float: 'float', double: 'double' };
const KNOWN = new Set([...FACETS, ...Object.keys(ANNOTATED), 'type', 'format', 'description', 'title', 'properties', 'required',
  'additionalProperties', 'patternProperties', 'items', 'anyOf', 'allOf', '$ref', 'examples']);

/** Converts schemas, collecting the helper types it had to name (added to the document's types). */
export class TypeConverter {
  readonly helpers: Record<string, RamlType> = {};

  convert(s: Schema, name: string): RamlType {
    if (typeof s.$ref === 'string') return s.$ref.split('/').pop()!;
    if ([...Object.keys(s)].some((k) => !KNOWN.has(k) && !k.startsWith('x-'))) return this.opaque(s);
    if (Array.isArray(s.anyOf)) return this.union(s, name);
    if (Array.isArray(s.allOf)) return this.extension(s, name);
    const out: Record<string, unknown> = { type: this.baseType(s) };
    if (out.type === 'object') this.objectParts(s, name, out);
    if (out.type === 'array') out.items = s.items ? this.convert(s.items as Schema, `${name}_item`) : 'any';
    if (typeof s.format === 'string' && FORMATS[s.format] && (out.type === 'integer' || out.type === 'number')) out.format = FORMATS[s.format];
    for (const f of FACETS) if (s[f] !== undefined) out[f] = s[f];
    return this.annotate(s, out);
  }

  private baseType(s: Schema): string {
    if (Array.isArray(s.type)) return s.type.map((t) => this.baseType({ ...s, type: t })).join(' | ');
    switch (s.type) {
      case 'string': return s.format === 'date' ? 'date-only' : s.format === 'date-time' ? 'datetime' : 'string';
      case 'integer': case 'number': case 'boolean': case 'object': case 'array': return s.type;
      case 'null': return 'nil';
      default: return s.properties ? 'object' : 'any';
    }
  }

  private objectParts(s: Schema, name: string, out: Record<string, unknown>): void {
    const required = new Set((s.required as string[] | undefined) ?? []);
    const props: Record<string, unknown> = {};
    for (const [k, v] of Object.entries((s.properties as Record<string, Schema> | undefined) ?? {})) {
      const t = this.convert(v, `${name}_${k}`);
      props[k] = typeof t === 'string' ? { type: t, required: required.has(k) } : { ...t, required: required.has(k) };
    }
    for (const [pattern, v] of Object.entries((s.patternProperties as Record<string, Schema> | undefined) ?? {})) {
      props[`/${pattern}/`] = this.convert(v, `${name}_pattern`);
    }
    out.properties = props;
    // RAML allows pattern properties only where additional properties are allowed.
    if (s.additionalProperties === false && !s.patternProperties) out.additionalProperties = false;
  }

  /** anyOf: `A | B`; members with facets are named first (RAML unions carry no facets). */
  private union(s: Schema, name: string): RamlType {
    const members = (s.anyOf as Schema[]).map((m, i) => {
      const t = this.convert(m, `${name}_${i}`);
      if (typeof t === 'string') return t;
      const bare = Object.keys(t).length === 1 && typeof t.type === 'string';
      if (bare) return t.type as string;
      this.helpers[`${name}_value${i ? i : ''}`] = t;
      return `${name}_value${i ? i : ''}`;
    });
    return this.annotate(s, { type: members.join(' | ') });
  }

  /** allOf [ref, object]: RAML inheritance with added properties. */
  private extension(s: Schema, name: string): RamlType {
    const [base, ...more] = s.allOf as Schema[];
    if (!base?.$ref || more.some((m) => m.$ref || m.allOf || m.anyOf)) return this.opaque(s);
    const out: Record<string, unknown> = { type: this.convert(base, name) };
    for (const m of more) this.objectParts(m, name, out);
    delete out.additionalProperties;
    return this.annotate(s, out);
  }

  /** A JSON Schema RAML types cannot state: `any`, the schema kept as an annotation. */
  private opaque(s: Schema): RamlType {
    return this.annotate(s, { type: 'any', '(jsonSchema)': JSON.stringify(s) });
  }

  private annotate(s: Schema, out: Record<string, unknown>): Record<string, unknown> {
    if (typeof s.title === 'string') out.displayName = s.title;
    if (typeof s.description === 'string') out.description = s.description;
    for (const [k, a] of Object.entries(ANNOTATED)) if (s[k] !== undefined) out[`(${a})`] = s[k];
    return out;
  }
}
