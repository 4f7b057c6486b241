// Domain rules for one property: type/attribute alignment, module placement, web bindings, indexes.
// These are the spec 2.1-2.7 rules JSON Schema cannot express (they relate several keys).
import { Ajv } from 'ajv';
import type { Property } from '../types.ts';
import { pointer as ptr } from '../errors.ts';
import { CheckContext } from './context.ts';
import { modulesOf, modulesWith } from '../../modules/index.ts';
import { jsonPathErrors } from './json-paths.ts';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { selfContained } from '../json-schema.ts';
import { INTEGER_RANGES, baseType, serverFills, SHORT_STRING_CHARS, SHORT_STRING_TYPE } from '../../ir/columns.ts';
import { dateHeld, dateTimeHeld, DATE_TIME_RANGE } from '../temporal.ts';

const dateTime = (fullFormats['date-time'] as { validate: (v: string) => boolean }).validate;

/**
 * How a temporal setting (defaultValue, minimum, maximum) must be written. A DateTime is judged as the gateway
 * judges one in a body (ajv-formats' RFC 3339 date-time, so with its offset): one without an offset would mean
 * an instant in whatever time zone the database session has. Either must be one PostgreSQL gives back as written
 * (compiler/model/temporal.ts): no year 0, no instant past 9999 in UTC.
 */
const ISO = {
  // A calendar day (2024-02-30 is none) and a time of day PostgreSQL holds (24:00 is its end of day).
  Date: { test: (v: string) => /^\d{4}-\d{2}-\d{2}$/.test(v) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v) && dateHeld(v) },
  Time: { test: (v: string) => /^(([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d+)?)?|24:00(:00(\.0+)?)?)$/.test(v) },
  DateTime: { test: (v: string) => dateTime(v) && dateTimeHeld(v) },
} as const;

/** What the ISO rule of a type asks beyond the form: an offset, and the years PostgreSQL gives back. */
const isoNote = (type: string) => (type === 'DateTime' ? ` with its offset (2025-01-31T09:00:00Z), from ${DATE_TIME_RANGE.min} to ${DATE_TIME_RANGE.max} once in UTC`
  : type === 'Date' ? ' of a year from 1 to 9999' : '');

/** JavaScript regex features PostgreSQL's ARE engine lacks: a pattern must work in both. */
const POSTGRES_REGEX_GAPS: Array<[RegExp, string]> = [
  [/\\[pP]\{/, 'Unicode property escapes (\\p{…})'],
  [/\(\?<[A-Za-z]/, 'named groups ((?<name>…))'],
  [/\\k</, 'named back-references (\\k<…>)'],
];

/** Checks a property; `at` is its pointer, `where` says whether it sits on an entity or a relation. */
export function checkProperty(ctx: CheckContext, at: string, name: string, p: Property, where: 'entity' | 'relation',
  siblings: Record<string, Property> = {}): void {
  const fail = (rule: string, message: string, sub?: string) => ctx.fail(sub ? `${at}${ptr(...sub.split('/'))}` : at, rule, message);
  const mods = modulesOf(p);
  const fileModules = mods.filter(({ def }) => def.file).map(({ module }) => module);
  const isFile = fileModules.length > 0;
  const numeric = p.type === 'Number';
  const temporal = p.type === 'Date' || p.type === 'Time' || p.type === 'DateTime';

  if (p.readOnly && p.immutable) fail('Write Lifecycle', 'readOnly cannot be combined with immutable');
  if (p.readOnly && p.writeOnly) fail('Write Lifecycle', 'readOnly cannot be combined with writeOnly: nobody could write it');
  if (p.primary && where === 'relation') fail('Primary Key', 'a relation property cannot be a primary key');
  if (p.primary && (p.multiple || p.type === 'JSON' || p.type === 'Binary' || p.type === 'Boolean' || isFile)) {
    fail('Primary Key', `a primary key must be a single String, Number, Date, Time or DateTime, not ${p.multiple ? 'multiple' : p.type}`);
  }
  if (p.primary && p.writeOnly) fail('Primary Key', 'a primary key cannot be writeOnly');
  const changing = mods.find(({ def }) => def.changesOnEveryWrite);
  if (p.primary && changing) fail('Primary Key', `a primary key cannot carry ${changing.module}: it changes on every write`, 'modules');
  // Nothing could ever create the record: the client may not supply the value and the server has none to give.
  if (p.readOnly && (p.required || p.primary) && !serverFills(p)) {
    fail('Write Lifecycle', `a readOnly ${p.primary ? 'primary key' : 'required property'} needs a value the server fills: a String or Number key, a defaultValue, or a Version, Owner or timestamp module`);
  }

  // Spec 2.1: Binary carries file metadata only.
  const files = modulesWith('file').join(' or ');
  if (p.type === 'Binary' && !isFile) fail('Binary Needs File Module', `a Binary property must carry the ${files} module`);
  if (fileModules.length > 1) fail('File Module', `${modulesWith('file').join(' and ')} cannot both be set`);

  // Semantic modules: the properties each applies to, where, what they share, and each module's own checks.
  for (const { module, def } of mods) {
    if (def.appliesTo && !def.appliesTo.ok(p)) {
      fail('Semantic Data Alignment', `${module} needs ${def.appliesTo.what}, not ${p.multiple ? 'a multiple ' : ''}${p.type}`, `modules/${module}`);
    }
  }
  const managed = mods.filter(({ def }) => def.managed).map(({ module }) => module);
  if (managed.length > 1) fail('Semantic Data Alignment', `${managed.join(' and ')} cannot share one property`, 'modules');
  if (where === 'relation' && mods.some(({ def }) => def.entityOnly)) {
    const names = modulesWith('entityOnly');
    fail('Semantic Data Alignment', `${names.slice(0, -1).join(', ')} and ${names.at(-1)} belong on an entity, not a relation`);
  }
  for (const { module, def, options } of mods) def.check?.({ module, name, p, options, siblings, where, fail });

  // Spec 2.3: validation settings by type.
  if ((p.minimum !== undefined || p.maximum !== undefined) && !numeric && !temporal) fail('Validation Settings', `minimum and maximum apply to numbers, dates, times and datetimes, not ${p.type}`);
  for (const key of ['minimum', 'maximum'] as const) {
    const v = p[key];
    if (v === undefined) continue;
    if (numeric && typeof v !== 'number') fail('Validation Settings', `${key} of a Number must be a number`, key);
    if (temporal && (typeof v !== 'string' || !ISO[p.type as keyof typeof ISO].test(v))) fail('Validation Settings', `${key} of a ${p.type} must be an ISO 8601 ${p.type} string${isoNote(p.type)}`, key);
  }
  if (p.exclusiveMinimum !== undefined && p.minimum === undefined) fail('Validation Settings', 'exclusiveMinimum needs minimum', 'exclusiveMinimum');
  if (p.exclusiveMaximum !== undefined && p.maximum === undefined) fail('Validation Settings', 'exclusiveMaximum needs maximum', 'exclusiveMaximum');
  if (typeof p.minimum === 'number' && typeof p.maximum === 'number' && p.minimum > p.maximum) fail('Validation Settings', 'minimum is greater than maximum');
  if (p.multipleOf !== undefined && !numeric) fail('Validation Settings', 'multipleOf applies only to Number properties', 'multipleOf');
  if (p.enum && p.type !== 'String') fail('Validation Settings', 'enum applies only to String properties', 'enum');
  if (p.pattern !== undefined) {
    if (p.type !== 'String') fail('Validation Settings', 'pattern applies only to String properties', 'pattern');
    try { new RegExp(p.pattern, 'u'); } catch (err) { fail('Validation Settings', `pattern is not a valid regular expression: ${(err as Error).message}`, 'pattern'); }
    const unsupported = POSTGRES_REGEX_GAPS.find(([re]) => re.test(p.pattern!));
    if (unsupported) fail('Validation Settings', `pattern uses ${unsupported[1]}, which PostgreSQL regular expressions do not support`, 'pattern');
  }
  if (p.long && p.type !== 'String') fail('Validation Settings', 'long applies only to String properties', 'long');
  if (p.defaultValue !== undefined) checkDefault(p, (m) => fail('Validation Settings', m, 'defaultValue'));

  // Attributes that need a scalar column.
  if (p.multiple && (p.type === 'JSON' || p.type === 'Binary')) fail('Multiple', `multiple does not apply to ${p.type} (a JSON value can itself be a list)`, 'multiple');
  if (p.multiple && (p.unique || p.primary || p.references)) fail('Multiple', 'a multiple property cannot be unique, primary or a reference');
  if (p.searchIndexed && (p.type !== 'String' || p.multiple)) fail('Search Index', 'searchIndexed applies only to single String properties', 'searchIndexed');
  if (p.unique && (p.type === 'JSON' || p.type === 'Binary')) fail('Unique', `unique does not apply to ${p.type}`, 'unique');

  // Spec 2.3 web bindings.
  if (p.web?.format && !numeric) fail('Web Binding', `format applies only to numeric properties, not ${p.type}`, 'web/format');
  if (p.web?.fileTypes) {
    if (!isFile) fail('Web Binding', `fileTypes applies only to ${files} properties`, 'web/fileTypes');
  }

  // Spec 2.5 JSON properties.
  if (p.schema !== undefined && p.type !== 'JSON') fail('JSON Schema', 'schema applies only to JSON properties', 'schema');
  if (p.type === 'JSON' && p.schema !== undefined) {
    try { new Ajv({ strict: false }).compile(p.schema); } catch (err) { fail('JSON Schema', `schema is not a valid JSON Schema: ${(err as Error).message}`, 'schema'); }
    // Request bodies and API documents embed the schema with its local references inlined.
    try { selfContained(p.schema); } catch (err) { fail('JSON Schema', (err as Error).message, 'schema'); }
  }
  if (p.index) {
    if (p.type !== 'JSON') fail('JSON Index', 'index options apply only to JSON properties (use indexed or unique)', 'index');
    else for (const e of jsonPathErrors(p)) fail('JSON Index', e.message, `index/paths/${e.index}`);
  }
  if (p.type === 'JSON' && (p.indexed || p.searchIndexed)) fail('JSON Index', 'a JSON property is indexed with index.whole or index.paths', p.indexed ? 'indexed' : 'searchIndexed');
  if (p.references && p.type === 'JSON') fail('Foreign Key', 'Foreign keys cannot point to or from nested JSON keys.', 'references');
}

function checkDefault(p: Property, fail: (m: string) => void): void {
  const values = p.multiple ? (Array.isArray(p.defaultValue) ? p.defaultValue : null) : [p.defaultValue];
  if (values === null) return fail('defaultValue of a multiple property must be a list');
  for (const v of values) {
    const problem = valueProblem(p, v, 'defaultValue');
    if (problem) return fail(problem);
  }
}

/**
 * Why `v` is no value a single (not JSON, not Binary) property `p` can hold, named `what` in the message; undefined
 * when it can. Used for a defaultValue and for the values a matchResourceAttribute rule compares the property with.
 */
export function valueProblem(p: Property, v: unknown, what: string): string | undefined {
  const kind: Record<string, string> = { String: 'string', Number: 'number', Boolean: 'boolean', Date: 'string', Time: 'string', DateTime: 'string' };
  if (p.type === 'JSON' || p.type === 'Binary') return undefined;
  if (typeof v !== kind[p.type]) return `${what} must be a ${kind[p.type]}`;
  if (p.enum && !p.enum.includes(v as string)) return `${what} "${String(v)}" is not in the enum`;
  if (p.type in ISO && !ISO[p.type as keyof typeof ISO].test(v as string)) return `${what} must be an ISO 8601 ${p.type}${isoNote(p.type)}`;
  if (p.pattern && typeof v === 'string' && safeTest(p.pattern, v) === false) return `${what} "${v}" does not match the pattern`;
  if (typeof v === 'string' && baseType(p) === SHORT_STRING_TYPE && [...v].length > SHORT_STRING_CHARS) return `${what} is longer than the ${SHORT_STRING_CHARS} characters the column holds`;
  if (typeof v === 'number') {
    const { minimum: lo, maximum: hi } = p;
    if (typeof lo === 'number' && (p.exclusiveMinimum ? v <= lo : v < lo)) return `${what} ${v} is below the minimum`;
    if (typeof hi === 'number' && (p.exclusiveMaximum ? v >= hi : v > hi)) return `${what} ${v} is above the maximum`;
    if (p.multipleOf && !isMultiple(v, p.multipleOf)) return `${what} ${v} is not a multiple of ${p.multipleOf}`;
    const column = baseType(p);
    if ((column === 'integer' || column === 'bigint') && !fitsInteger(v, column)) return `${what} ${v} does not fit the ${column} column (format ${p.web?.format ?? 'of a Version'})`;
  }
  return undefined;
}

/** A whole number the column holds, and that JSON carried exactly (an int64 past 2^53 was already rounded). */
function fitsInteger(v: number, column: keyof typeof INTEGER_RANGES): boolean {
  const { minimum, maximum } = INTEGER_RANGES[column];
  return Number.isInteger(v) && v >= minimum && v <= maximum && (column === 'integer' || Number.isSafeInteger(v));
}

function safeTest(pattern: string, v: string): boolean | undefined {
  try { return new RegExp(pattern, 'u').test(v); } catch { return undefined; }
}

/** Decimal-safe multiple check (0.3 is a multiple of 0.1 here, as it is for numeric in SQL). */
function isMultiple(v: number, step: number): boolean {
  const scale = 10 ** Math.min(12, Math.max(decimals(v), decimals(step)));
  return Math.round(v * scale) % Math.round(step * scale) === 0;
}

function decimals(n: number): number {
  const s = String(n);
  return s.includes('.') ? s.length - s.indexOf('.') - 1 : 0;
}
