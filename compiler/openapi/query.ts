// The query language in the document: per property, the filter operators that apply to its type
// (query parameters `<property>[<op>]=v` as deepObject, and the search body's `where`), sort and
// include/exclude as comma lists whose pattern names the usable paths.
import type { PropertyManifest } from '../manifest/types.ts';
import { OPERATORS, operatorsFor, type FilterOp } from '../query/operators.ts';
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, RESERVED_PARAMS } from '../query/paging.ts';
import { sortRefusal } from '../query/sort.ts';
import { COUNT, CURSOR, paramRef, ref, type Schema } from './common.ts';

type Props = Record<string, PropertyManifest>;
const RESERVED = new Set<string>(RESERVED_PARAMS);
const CAST: Record<string, Schema> = { Text: { type: 'string' }, Integer: { type: 'integer' }, Decimal: { type: 'number' }, Boolean: { type: 'boolean' } };

/** What the gateway lets filters touch: readable, not hidden from the document. */
const usable = (props: Props) => Object.entries(props).filter(([, p]) => !p.writeOnly && !p.hidden);

/** The operators server/request/filter.ts accepts for a property (sub: a path inside a JSON one). */
function operators(p: PropertyManifest, sub: boolean): FilterOp[] {
  const operand = sub ? 'jsonPath' : p.file ? 'file' : p.type === 'JSON' ? 'json' : p.multiple ? 'array' : 'scalar';
  return operatorsFor({ operand, type: p.type, searchIndexed: p.searchIndexed });
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
    switch (OPERATORS[op].value) {
      case 'list': return list;
      case 'flag': return { type: 'boolean' };
      case 'document': return query ? { type: 'string', description: 'JSON text, or a comma list for multiple properties' } : {};
      case 'pattern': return { type: 'string', description: '`*` or `%` as wildcard' };
      case 'words': return { type: 'string', description: 'web-search syntax' };
      case 'single': return value;
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
    description: `\`${name}[<operator>]=<value>\`; \`${name}=<value>\` means eq.`,
    schema: { type: 'object', properties: operatorSchemas(ops, value, true), additionalProperties: false },
  }));
  return [...filters, sortParameter(props), paramRef('Page'), paramRef('PerPage'), paramRef('After'), paramRef('Before'), paramRef('Count'),
    ...projectionParameters(props)];
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const commaList = (item: string) => `^${item}(,${item})*$`;

function sortParameter(props: Props): Schema {
  return { name: 'sort', in: 'query', required: false, schema: { type: 'string', pattern: sortPattern(props) },
    description: 'Comma list of sort keys, `-` for descending (`-created_at,title,meta.priority`); the key is always the last tiebreak.' };
}

function sortPattern(props: Props): string {
  const names = usable(props).filter(([n, p]) => !sortRefusal(n, p)).map(([n, p]) => p.type === 'JSON' ? `${escape(n)}(\\.[A-Za-z0-9_]+)+` : escape(n));
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
  const atPath = { type: 'object', propertyNames: { enum: operatorsFor({ operand: 'jsonPath', type: 'JSON', searchIndexed: false }) }, minProperties: 1 };
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
      page: { type: 'integer', minimum: 1, default: 1 }, per_page: { type: 'integer', minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE },
      after: CURSOR, before: CURSOR, count: COUNT,
      include: listOrArray(projectionPattern(props)), exclude: listOrArray(projectionPattern(props)),
    },
  };
}
