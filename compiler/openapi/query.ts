// The query language in the document: per property, the filter operators that apply to its type
// (query parameters `<property>[<op>]=v` as deepObject, and the search body's `where`), sort and
// include/exclude as comma lists whose pattern names the usable paths.
import type { FilterOp, PropertyManifest } from '../manifest/types.ts';
import { paramRef, ref, type Schema } from './common.ts';

type Props = Record<string, PropertyManifest>;
const RESERVED = new Set(['page', 'per_page', 'sort', 'include', 'exclude', 'permanent']);
const ORDERED = new Set(['String', 'Number', 'Date', 'Time', 'DateTime']);
const ORDER: FilterOp[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'like', 'ilike', 'contains', 'exists', 'null', 'search'];
const CAST: Record<string, Schema> = { Text: { type: 'string' }, Integer: { type: 'integer' }, Decimal: { type: 'number' }, Boolean: { type: 'boolean' } };

/** What the gateway lets filters touch: readable, not hidden from the document. */
const usable = (props: Props) => Object.entries(props).filter(([, p]) => !p.writeOnly && !p.hidden);

/** The operators server/request/filter.ts accepts for a property (sub: a path inside a JSON one). */
const PATH_OPS = ORDER.filter((o) => o !== 'search');

function operators(p: PropertyManifest, sub: boolean): FilterOp[] {
  if (sub) return PATH_OPS;
  if (p.file) return ['null'];
  if (p.type === 'JSON' || p.multiple) return ['contains', 'null'];
  return ORDER.filter((o) => ['eq', 'ne', 'in', 'nin', 'null'].includes(o)
    || (ORDERED.has(p.type) && ['gt', 'gte', 'lt', 'lte'].includes(o))
    || (p.type === 'String' && (o === 'like' || o === 'ilike'))
    || (o === 'search' && p.searchIndexed));
}

function scalar(p: PropertyManifest): Schema {
  switch (p.type) {
    case 'Number': return p.format === 'int32' || p.format === 'int64' ? { type: 'integer', format: p.format } : { type: 'number' };
    case 'Boolean': return { type: 'boolean' };
    case 'Date': return { type: 'string', format: 'date' };
    case 'DateTime': return { type: 'string', format: 'date-time' };
    default: return p.enum ? { type: 'string', enum: p.enum } : { type: 'string' };
  }
}

/** Operator -> value schema; `query` values are query-string texts (lists as comma lists). */
function operatorSchemas(ops: FilterOp[], value: Schema, query: boolean): Record<string, Schema> {
  const list = query ? { type: 'string', description: 'comma list' } : { type: 'array', items: value };
  const pick = (op: FilterOp): Schema => {
    switch (op) {
      case 'in': case 'nin': return list;
      case 'null': case 'exists': return { type: 'boolean' };
      case 'contains': return query ? { type: 'string', description: 'JSON text, or a comma list for multiple properties' } : {};
      case 'like': case 'ilike': return { type: 'string', description: '* or % as wildcard' };
      case 'search': return { type: 'string', description: 'web-search syntax' };
      default: return value;
    }
  };
  return Object.fromEntries(ops.map((op) => [op, pick(op)]));
}

/** Filterable names: properties, and the Tier B cast paths inside JSON properties. */
function filterTargets(props: Props): Array<[string, FilterOp[], Schema]> {
  const out: Array<[string, FilterOp[], Schema]> = [];
  for (const [name, p] of usable(props)) {
    out.push([name, operators(p, false), scalar(p)]);
    for (const [path, cast] of Object.entries(p.casts ?? {})) out.push([`${name}.${path}`, operators(p, true), CAST[cast]!]);
  }
  return out;
}

/** GET /<collection>: one deepObject parameter per filterable property, then sort, paging, projection. */
export function listParameters(props: Props): Schema[] {
  const filters = filterTargets(props).filter(([name]) => !RESERVED.has(name)).map(([name, ops, value]) => ({
    name, in: 'query', required: false, style: 'deepObject', explode: true,
    description: `${name}[<operator>]=<value>; \`${name}=<value>\` means eq.`,
    schema: { type: 'object', properties: operatorSchemas(ops, value, true), additionalProperties: false },
  }));
  return [...filters, sortParameter(props), paramRef('Page'), paramRef('PerPage'), ...projectionParameters(props)];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const commaList = (item: string) => `^${item}(,${item})*$`;

function sortParameter(props: Props): Schema {
  return { name: 'sort', in: 'query', required: false, schema: { type: 'string', pattern: sortPattern(props) },
    description: 'Comma list of sort keys, `-` for descending (`-created_at,title,meta.priority`); the key is always the last tiebreak.' };
}

function sortPattern(props: Props): string {
  const names = usable(props).filter(([, p]) => !p.file).map(([n, p]) => p.type === 'JSON' ? `${escape(n)}(\\.[A-Za-z0-9_]+)+` : escape(n));
  return commaList(`-?(${names.join('|')})`);
}

function projectionPattern(props: Props): string {
  const names = usable(props).map(([n, p]) => p.type === 'JSON' ? `${escape(n)}(\\.[^.,]+)*` : escape(n));
  return commaList(`(${names.join('|')})`);
}

export function projectionParameters(props: Props): Schema[] {
  return (['include', 'exclude'] as const).map((name) => ({
    name, in: 'query', required: false, schema: { type: 'string', pattern: projectionPattern(props) },
    description: name === 'include' ? 'Comma list of paths to keep (`id,title,meta.address.city`); nested JSON is pruned to them.' : 'Comma list of paths to drop.',
  }));
}

/** The search body's `where` for one entity: and/or/not nesting and {<path>: {<op>: value}} conditions. */
export function whereSchema(props: Props, self: string): Schema {
  const properties: Record<string, Schema> = {
    and: { type: 'array', minItems: 1, items: ref(self) },
    or: { type: 'array', minItems: 1, items: ref(self) },
    not: ref(self),
  };
  for (const [name, ops, value] of filterTargets(props)) {
    const condition = { type: 'object', properties: operatorSchemas(ops, value, false), additionalProperties: false, minProperties: 1 };
    properties[name] = { anyOf: [condition, { ...value, description: 'shorthand for {"eq": value}' }] };
  }
  const json = usable(props).filter(([, p]) => p.type === 'JSON').map(([n]) => escape(n));
  const atPath = { type: 'object', propertyNames: { enum: PATH_OPS }, minProperties: 1 };
  const anyPath = { anyOf: [atPath, { type: ['string', 'number', 'boolean'], description: 'shorthand for {"eq": value}' }] };
  return {
    type: 'object', properties, minProperties: 1,
    ...(json.length ? { patternProperties: { [`^(${json.join('|')})(\\.[A-Za-z0-9_]+)+$`]: anyPath } } : {}),
    additionalProperties: false,
    description: 'Siblings are ANDed; nests up to 32 levels. Dot paths reach into JSON properties.',
  };
}

export function searchSchema(props: Props, where: string): Schema {
  const listOrArray = (pattern: string) => ({ anyOf: [{ type: 'string', pattern }, { type: 'array', items: { type: 'string' } }] });
  return {
    type: 'object', additionalProperties: false,
    properties: {
      where: ref(where), sort: listOrArray(sortPattern(props)),
      page: { type: 'integer', minimum: 1, default: 1 }, per_page: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
      include: listOrArray(projectionPattern(props)), exclude: listOrArray(projectionPattern(props)),
    },
  };
}
