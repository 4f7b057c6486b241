// Request-body checks before SQL: unknown and readOnly properties are 400 (naming the property), then
// the manifest's JSON Schema (compiled once, at startup, with ajv) gives a 422 listing every error.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Manifest, PropertyManifest } from '../../compiler/manifest/types.ts';
import { bodySchemaOf } from '../../compiler/manifest/schemas.ts';
import { badRequest, validationFailed, type FieldError } from '../problem/types.ts';
import { exactOf } from '../codec/json.ts';
import { fractionStandIns, int64Overflows } from './exact-numbers.ts';
import { dateHeld, dateTimeHeld, DATE_TIME_RULE } from '../../compiler/model/temporal.ts';
import { isDotSegment } from '../request/path.ts';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/** Decimal digits a quotient may be off a whole number for `multipleOf` (ajv's multipleOfPrecision). */
const MULTIPLE_OF_DIGITS = 9;

type Format = { validate: (v: string) => boolean; compare: (a: string, b: string) => number | undefined };

/**
 * `date` and `date-time` as PostgreSQL holds them (compiler/model/temporal.ts): RFC 3339 alone let a body store
 * 9999-12-31T23:59:59-01:00, read back as 10000-01-01T00:59:59+00:00. JSON documents' formats judge the same way.
 */
const held = (name: 'date' | 'date-time', inRange: (v: string) => boolean): Format => {
  const rfc = fullFormats[name] as Format;
  return { validate: (v) => rfc.validate(v) && inRange(v), compare: rfc.compare };
};

export interface BodyRule {
  /** Properties a body may hold, by name; undefined for edge bodies (names only). */
  props?: Record<string, PropertyManifest>;
  names?: string[];
  /** A required property the SQL fills in itself (the parent key on a nested create). */
  supplied?: string;
  /** PATCH: object values of JSON properties are RFC 7396 merge patches, not whole documents. */
  mergePatch?: boolean;
}

export class BodyValidators {
  readonly #compiled = new Map<string, ValidateFunction>();
  /** JSON properties with a JSON Schema, by `<entity>.<property>`: merged PATCH results are checked too. */
  readonly #documents = new Map<string, ValidateFunction>();

  constructor(manifest: Manifest) {
    // multipleOf by decimal digits, as the database's numeric check and the model's validation judge it: in binary
    // floating point 19.99 / 0.01 is 1998.9999999999998, so a price of 19.99 was 422 for a step of 0.01.
    const ajv = new Ajv({ allErrors: true, strict: false, multipleOfPrecision: MULTIPLE_OF_DIGITS });
    addFormats(ajv);
    ajv.addFormat('date', held('date', dateHeld));
    ajv.addFormat('date-time', held('date-time', dateTimeHeld));
    const add = (key: string, schema: object) => {
      try {
        this.#compiled.set(key, ajv.compile(schema));
      } catch (err) {
        throw new Error(`The manifest's ${key} schema does not compile: ${(err as Error).message}`);
      }
    };
    for (const [entity, r] of Object.entries(manifest.resources)) {
      for (const kind of ['create', 'replace', 'patch'] as const) add(`${entity}.${kind}`, bodySchemaOf(r.schemas, kind));
      const shapes = (bodySchemaOf(r.schemas, 'create') as { properties?: Record<string, object> }).properties ?? {};
      for (const [name, p] of Object.entries(r.properties)) {
        const schema = shapes[name];
        if (p.type === 'JSON' && schema && Object.keys(schema).length > 0) this.#documents.set(`${entity}.${name}`, ajv.compile(schema));
      }
      for (const [name, rel] of Object.entries(r.relations)) {
        add(`${entity}.${name}`, rel.kind === 'manyToMany' ? rel.schemas.link : rel.schemas.replace);
      }
    }
  }

  documentValidator(key: string): ValidateFunction | undefined {
    return this.#documents.get(key);
  }

  /** Throws 400 or 422 when `body` breaks the rule or the schema stored under `key`. */
  check(key: string, body: Record<string, unknown>, rule: BodyRule): void {
    for (const name of Object.keys(body)) {
      const prop = rule.props && Object.hasOwn(rule.props, name) ? rule.props[name] : undefined;
      const known = rule.props ? prop !== undefined : rule.names?.includes(name);
      if (!known) throw badRequest(`Unknown property "${name}" in the request body.`);
      if (prop?.readOnly) throw badRequest(`readOnly property "${name}" cannot be supplied.`);
    }
    const validate = this.#compiled.get(key);
    if (!validate) throw new Error(`no body schema compiled for ${key}`);
    const patched = rule.mergePatch ? mergePatchedProps(body, rule.props ?? {}) : new Set<string>();
    const view = patched.size ? viewOf(body, patched) : body;
    const keys = dotSegmentKeys(body, rule);
    if (validate(view)) {
      const exact = [...exactNumberErrors(validate, body, rule, patched), ...keys];
      if (exact.length > 0) throw validationFailed(exact);
      return;
    }
    // A merge patch may leave out what the document requires; the stored document keeps it. A patch is an
    // object, never null: its nullable wrapper's failures (the null branch, the anyOf) say nothing more.
    const patchedAt = (e: ErrorObject) => patched.has(e.instancePath.split('/')[1] ?? '');
    const errors = fieldErrors((validate.errors ?? []).filter((e) => !(patchedAt(e) && (e.keyword === 'required'
      || ((e.keyword === 'anyOf' || isNullBranch(e)) && e.instancePath.split('/').length === 2)))))
      .filter((e) => !(e.rule === 'required' && e.property === rule.supplied));
    if (errors.length + keys.length > 0) throw validationFailed([...errors, ...keys]);
  }
}

export interface MergedCheck {
  entity: string;
  properties: string[];
}

export interface MergedDocuments {
  /** The JSON properties a PATCH merges whose result must still match their schema. */
  merged(entity: string, body: Record<string, unknown>, props: Record<string, PropertyManifest>): MergedCheck | undefined;
  /** Throws 422 when a merged document (in the function's result row) breaks its schema. */
  verify(check: MergedCheck, row: Record<string, unknown>): void;
}

export function mergedDocuments(v: BodyValidators): MergedDocuments {
  return {
    merged: (entity, body, props) => {
      const properties = [...mergePatchedProps(body, props)].filter((p) => v.documentValidator(`${entity}.${p}`));
      return properties.length ? { entity, properties } : undefined;
    },
    verify: (check, row) => {
      const errors = check.properties.flatMap((p) => {
        const validate = v.documentValidator(`${check.entity}.${p}`)!;
        // The row keeps every digit (numbers a double cannot hold are LosslessNumbers); ajv judges their doubles, as
        // it judged the body's, with a fraction a double rounds away standing in as 0.5.
        const { stood } = fractionStandIns({ document: row[p] ?? null });
        if (validate(stood.document) || row[p] === null) return [];
        return fieldErrors((validate.errors ?? []).map((e) => ({ ...e, instancePath: `/${p}${e.instancePath}` })))
          .map((e) => ({ ...e, message: `after the merge patch, ${e.message}` }));
      });
      if (errors.length) throw validationFailed(errors);
    },
  };
}

/** A key given as `.` or `..`: its record's URL would resolve to another path (server/request/path.ts). */
function dotSegmentKeys(body: Record<string, unknown>, rule: BodyRule): FieldError[] {
  return Object.entries(body).filter(([name, v]) => rule.props?.[name]?.primary && typeof v === 'string' && isDotSegment(v))
    .map(([name, v]) => ({ property: name, rule: 'dotSegment', message: `${name} "${String(v)}" cannot be a key: a URL resolves the path segments "." and "..", so no request could reach the record` }));
}

/** JSON properties whose value in `body` is an object, i.e. merged into the stored one (RFC 7396). */
function mergePatchedProps(body: Record<string, unknown>, props: Record<string, PropertyManifest>): Set<string> {
  return new Set(Object.keys(body).filter((k) => props[k]?.type === 'JSON' && isObject(body[k])));
}

/** What the schema judges of a body whose `patched` JSON properties are merge patches: their additions only. */
const viewOf = (body: Record<string, unknown>, patched: Set<string>) =>
  Object.fromEntries(Object.entries(body).map(([k, v]) => [k, patched.has(k) ? withoutNulls(v) : v]));

/**
 * The errors ajv could not see in a body it passed, because a number there is not a double (server/plan/exact-numbers.ts):
 * a fraction a double rounds away, judged again standing in as 0.5; an int64 value rounded into the column's range.
 */
function exactNumberErrors(validate: ValidateFunction, body: object, rule: BodyRule, patched: Set<string>): FieldError[] {
  const twin = exactOf(body);
  if (twin === undefined) return []; // every number was a safe double: ajv saw them exactly
  const ranges = rule.props ? int64Overflows(twin as Record<string, unknown>, rule.props) : [];
  const { stood, places } = fractionStandIns(twin as object);
  if (places.size === 0 || validate(patched.size ? viewOf(stood, patched) : stood)) return ranges;
  return [...fieldErrors((validate.errors ?? []).filter((e) => places.has(e.instancePath) && (e.keyword === 'type' || e.keyword === 'anyOf'))), ...ranges];
}

/** A merge patch without its deletions (null members), as the schema sees what it adds. */
function withoutNulls(v: unknown): unknown {
  if (!isObject(v)) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, withoutNulls(x)]));
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** ajv errors as {property, rule, message}, with the noise of nullable `anyOf` wrappers removed. */
export function fieldErrors(errors: ErrorObject[]): FieldError[] {
  const out: FieldError[] = [];
  const described = errors.filter((e) => e.keyword !== 'anyOf' && !isNullBranch(e)).map((e) => e.instancePath);
  // A nullable wrapper's branches are noise once an error names the value or a place inside it (a JSON document's).
  const explained = (path: string) => described.some((d) => d === path || d.startsWith(`${path}/`));
  for (const e of errors) {
    if (e.keyword === 'anyOf' && explained(e.instancePath)) continue;
    if (isNullBranch(e) && explained(e.instancePath)) continue;
    if (e.keyword === 'additionalProperties' && e.instancePath === '') continue; // named above as unknown
    const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : undefined;
    const property = segments[0] ?? missing ?? '';
    const where = segments.length > 0 ? [...segments, ...(missing ? [missing] : [])].join('.') : property;
    const message = e.keyword === 'required' ? `${where} is required`
      : e.keyword === 'format' && (e.params as { format?: unknown }).format === 'date-time' ? `${where} must be ${DATE_TIME_RULE}`
        : `${where} ${e.message ?? 'is not valid'}`;
    const entry = { property, rule: e.keyword, message };
    if (!out.some((o) => o.property === entry.property && o.rule === entry.rule && o.message === entry.message)) out.push(entry);
  }
  return out;
}

const isNullBranch = (e: ErrorObject) => e.keyword === 'type' && (e.params as { type?: unknown }).type === 'null';
