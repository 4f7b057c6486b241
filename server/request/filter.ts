// Builds one FilterNode condition from a resolved path, an operator and a value (a query-string text
// or a JSON value from a search body), refusing operators that make no sense for the property's type.
import type { FilterNode, PropertyManifest } from '../../compiler/manifest/types.ts';
import { OPERATORS, refusal, type FilterOp, type Operand, type ValueKind } from '../../compiler/query/operators.ts';
import { badRequest } from '../problem/types.ts';
import { jsonPathType, resolvePath, type PathTarget } from './paths.ts';
import { columnPath } from './wire.ts';
import { dateHeld, dateTimeHeld, DATE_TIME_RANGE } from '../../compiler/model/temporal.ts';

type ValueType = 'string' | 'number' | 'boolean' | undefined;

/** Filter values for dates and times are ISO 8601, as in bodies: PostgreSQL's 'now' or 'epoch' are refused. */
const TEMPORAL: Record<string, RegExp | undefined> = {
  Date: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/,
  Time: /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?$/,
  DateTime: /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])[Tt ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?([Zz]|[+-]\d{2}:?\d{2})?$/,
};
const EXAMPLE: Record<string, string> = { Date: '2024-01-31', Time: '13:45:00', DateTime: '2024-01-31T13:45:00Z' };
/** A value the property could never hold is no value of its type, as in a body (compiler/model/temporal.ts). */
const HELD: Record<string, ((v: string) => boolean) | undefined> = { Date: dateHeld, DateTime: dateTimeHeld };
const RANGE: Record<string, string> = { Date: `from ${DATE_TIME_RANGE.min.slice(0, 10)} to ${DATE_TIME_RANGE.max.slice(0, 10)}`, DateTime: `from ${DATE_TIME_RANGE.min} to ${DATE_TIME_RANGE.max} in UTC` };

type SchemaOf = (property: string) => unknown;

/** Records a filter may reach through a reference (`project.name`), by embed name: their properties. */
export type References = Record<string, { props: Record<string, PropertyManifest>; schemaOf: SchemaOf }>;

/**
 * A filter's path, on the resource's own properties or, when it starts with a reference's embed name, one
 * property of the referenced record (the SQL reads it under that record's rules); `joined` collects those.
 */
export function filterPath(props: Record<string, PropertyManifest>, schemaOf: SchemaOf, references: References,
  path: string, where: string, joined: Set<string>): { target: PathTarget; schema: unknown; via?: string } {
  const [first, ...rest] = path.split('.');
  const ref = Object.hasOwn(props, first!) ? undefined : references[first!];
  if (!ref) {
    const target = resolvePath(props, path, 'filter', where);
    return { target, schema: schemaOf(target.property) };
  }
  if (rest.length !== 1) throw badRequest(`A filter through "${first}" names one of its properties ("${first}.<property>") in ${where}.`);
  const target = resolvePath(ref.props, rest[0]!, 'filter', where);
  joined.add(first!);
  return { target, schema: ref.schemaOf(target.property), via: first! };
}

/** The condition as SQL names its field: through the reference when there is one. */
export const through = (node: FilterNode, via: string | undefined): FilterNode =>
  (via && 'field' in node ? { ...node, field: `${via}.${node.field}` } : node);

function operandOf(t: PathTarget): Operand {
  if (t.prop.file) return 'file';
  if (t.prop.type === 'JSON') return t.sub.length > 0 ? 'jsonPath' : 'json';
  return t.prop.multiple ? 'array' : 'scalar';
}

export function condition(t: PathTarget, op: FilterOp, raw: unknown, fromQuery: boolean, where: string, schema: unknown): FilterNode {
  const shape = operandOf(t);
  const why = refusal(op, { operand: shape, type: t.prop.type, searchIndexed: t.prop.searchIndexed });
  if (why) throw badRequest(`Operator "${op}" in ${where} ${why}; "${t.property}" is ${t.prop.multiple ? 'a multiple ' : ''}${t.prop.type}.`);
  const elementType: ValueType = shape === 'jsonPath' ? jsonPathType(t, schema) : t.prop.type === 'Number' ? 'number' : t.prop.type === 'Boolean' ? 'boolean' : 'string';
  const temporal = shape === 'scalar' || shape === 'array' ? TEMPORAL[t.prop.type] : undefined;
  const scalar = (v: unknown) => {
    const c = coerce(v, elementType, fromQuery, where);
    if (temporal && !temporal.test(String(c))) throw badRequest(`The value in ${where} must be an ISO 8601 ${t.prop.type} (such as ${EXAMPLE[t.prop.type]}).`);
    const held = temporal && HELD[t.prop.type];
    if (held && !held(String(c))) throw badRequest(`The value in ${where} is no ${t.prop.type} the property can hold: one ${RANGE[t.prop.type]}.`);
    return c;
  };
  const list = (v: unknown): unknown[] => {
    const items = fromQuery && typeof v === 'string' ? v.split(',') : v;
    if (!Array.isArray(items)) throw badRequest(`Operator "${op}" in ${where} needs a list of values.`);
    return items.map(scalar);
  };
  const value = (() => {
    const kind: ValueKind = OPERATORS[op].value;
    switch (kind) {
      case 'flag': return flag(raw, fromQuery, where);
      case 'list': return list(raw);
      case 'document':
        if (shape === 'array') return fromQuery || Array.isArray(raw) ? list(raw) : [scalar(raw)];
        return fromQuery ? parseJson(raw as string, where) : raw;
      case 'pattern': return text(raw, where); // SQL reads * as % as well
      case 'words': {
        const s = text(raw, where);
        if (!s.trim()) throw badRequest(`Operator "${op}" in ${where} needs words to search for.`);
        return s;
      }
      case 'single': return scalar(raw);
      default: {
        const never: never = kind;
        throw new Error(`unknown value kind ${String(never)}`);
      }
    }
  })();
  return { field: columnPath(t.prop, t.property, t.sub), op, value };
}

function coerce(v: unknown, type: ValueType, fromQuery: boolean, where: string): unknown {
  if (type === 'number') {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    // Kept as text: PostgreSQL casts it, so a numeric keeps digits a double would round.
    if (typeof v === 'string' && /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v.trim()) && Number.isFinite(Number(v))) return v.trim();
    throw badRequest(`The value in ${where} must be a number.`);
  }
  if (type === 'boolean') return flag(v, fromQuery, where);
  if (type === 'string') return text(v, where);
  if (v === null || typeof v === 'object') throw badRequest(`The value in ${where} must be a string, number or boolean.`);
  return v; // a JSON path of unknown type: the value as given
}

function flag(v: unknown, fromQuery: boolean, where: string): boolean {
  if (typeof v === 'boolean') return v;
  if (fromQuery && (v === 'true' || v === 'false')) return v === 'true';
  throw badRequest(`The value in ${where} must be true or false.`);
}

function text(v: unknown, where: string): string {
  if (typeof v === 'string') return v;
  throw badRequest(`The value in ${where} must be a string.`);
}

function parseJson(v: string, where: string): unknown {
  try {
    return JSON.parse(v);
  } catch {
    throw badRequest(`The value in ${where} must be JSON (for example {"city":"Paris"}).`);
  }
}
