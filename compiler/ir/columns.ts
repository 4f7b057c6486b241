// Type mapping of spec 2.1 and the column-level attributes (NOT NULL, defaults, identity).
// Server-managed values (readOnly, modules) get no column default: the write-rules trigger fills
// them after checking nothing was supplied.
import type { Model, Property } from '../model/types.ts';
import { literal, scalarLiteral } from '../sql/ident.ts';
import type { ColumnIR } from './types.ts';
import { moduleFlag, modulesOf } from '../modules/index.ts';
import { primaryKeyOf } from '../model/names.ts';

/** Whether the property holds a stored file (a file module: FileURL, ImageURL). */
export function isFile(p: Property): boolean {
  return moduleFlag(p, 'file');
}

/** Characters of a String that is not long (VARCHAR(255)); also the identifiers of the caller the rows store (owner, organization). */
export const SHORT_STRING_CHARS = 255;
/** The column type of a String that is not long. */
export const SHORT_STRING_TYPE = `character varying(${SHORT_STRING_CHARS})`;

/** Spec 2.1: String VARCHAR(255)/TEXT, Number by format, Date, Time, timestamptz, Binary/JSON jsonb. */
export function baseType(p: Property): string {
  switch (p.type) {
    case 'String':
      return isFile(p) ? 'jsonb' : p.long ? 'text' : SHORT_STRING_TYPE;
    case 'Number':
      switch (p.web?.format) {
        case 'int32': return 'integer';
        case 'int64': return 'bigint';
        case 'float': return 'double precision';
        case 'double': return 'numeric';
        default: {
          const byModule = modulesOf(p).map(({ def }) => def.column?.type?.(p)).find((t) => t !== undefined);
          if (byModule) return byModule;
          if (p.primary && p.readOnly) return 'bigint';
          return 'numeric';
        }
      }
    case 'Boolean': return 'boolean';
    case 'Date': return 'date';
    case 'Time': return 'time without time zone';
    case 'DateTime': return 'timestamp with time zone';
    case 'Binary':
    case 'JSON': return 'jsonb';
    default: {
      const never: never = p.type;
      throw new Error(`unknown type ${String(never)}`);
    }
  }
}

/** Whether a table's rows belong to an organization (OrganizationRBAC, EnterpriseRBAC: entities, joins, sub-resources). */
export const hasOrganization = (t: { columns: ReadonlyArray<{ name: string }> }) => t.columns.some((c) => c.name === 'organization_id');

/** The values an integer column holds (a Number of format int32 or int64, or a Version), by its type. */
export const INTEGER_RANGES = {
  integer: { minimum: -2147483648, maximum: 2147483647 },
  bigint: { minimum: -9223372036854775808, maximum: 9223372036854775807 },
} as const;

/** The bigint column's range exactly (INTEGER_RANGES.bigint's maximum is a double: 2^63, one past it). */
export const INT64_EXACT = { minimum: -(2n ** 63n), maximum: 2n ** 63n - 1n } as const;

/**
 * Whether the server gives the property a value on insert when the client cannot (readOnly): a String key
 * (a uuid), a Number key (an identity column), a defaultValue, or a module that fills it (Version, Owner, timestamps).
 */
export function serverFills(p: Property): boolean {
  if (p.primary && (p.type === 'String' || p.type === 'Number')) return true;
  return p.defaultValue !== undefined || moduleFlag(p, 'fills');
}

/** Properties whose value only the server writes. */
export function serverManaged(p: Property): boolean {
  return Boolean(p.readOnly) || moduleFlag(p, 'serverManaged');
}

/** The column type of a property; a reference takes the type of the key it points at. */
export function columnType(model: Model, p: Property): string {
  if (p.references) {
    const [entityName, propName] = p.references.split('.');
    const target = model.entities[entityName!]!;
    const tp = propName ? target.properties[propName]! : primaryKeyOf(target)[1];
    return baseType(tp);
  }
  return baseType(p) + (p.multiple ? '[]' : '');
}

/** The SQL value of a property's defaultValue, typed as its column (`type`). */
export function defaultValueSql(p: Property, type: string): string {
  if (p.type === 'JSON') return `${literal(JSON.stringify(p.defaultValue))}::jsonb`;
  if (p.multiple) {
    const items = (p.defaultValue as Array<string | number | boolean>).map(scalarLiteral);
    return `ARRAY[${items.join(', ')}]::${type}`;
  }
  return `${scalarLiteral(p.defaultValue as string | number | boolean)}::${type}`;
}

/** Column default; readOnly values have none, their trigger fills them after a supplied-value check. */
export function defaultSql(p: Property, type: string): string | undefined {
  const byModule = modulesOf(p).map(({ def }) => def.column?.default).find((d) => d !== undefined);
  if (byModule !== undefined) return byModule;
  if (p.readOnly) return undefined;
  if (p.defaultValue !== undefined) return defaultValueSql(p, type);
  if (p.primary && p.type === 'String') return 'gen_random_uuid()::text';
  return undefined;
}

export function propertyColumn(model: Model, name: string, p: Property): ColumnIR {
  const sqlType = columnType(model, p);
  const col: ColumnIR = {
    name,
    sqlType,
    notNull: Boolean(p.required || p.primary) || modulesOf(p).some(({ def }) => def.column?.notNull),
    identity: Boolean(p.primary && p.readOnly && p.type === 'Number'),
    prop: p,
    comment: describe(p),
  };
  const def = col.identity ? undefined : defaultSql(p, sqlType);
  if (def !== undefined) col.defaultSql = def;
  return col;
}

/** A one-line column comment for psql \d+: description, flags and modules. */
function describe(p: Property): string {
  const flags = (['primary', 'required', 'unique', 'readOnly', 'immutable', 'writeOnly', 'deprecated'] as const).filter((f) => p[f]);
  const mods = Object.keys(p.modules ?? {});
  const parts = [p.description, flags.join(', '), mods.length ? `modules: ${mods.join(', ')}` : ''];
  return parts.filter(Boolean).join('; ');
}

export const SYSTEM_COLUMNS: ColumnIR[] = [
  { name: '_rev', sqlType: 'uuid', notNull: true, defaultSql: 'gen_random_uuid()', identity: false,
    comment: 'Revision token, new on every write (the ETag where there is no Version property).' },
  { name: '_modified_at', sqlType: 'timestamp with time zone', notNull: true, defaultSql: 'now()', identity: false,
    comment: 'Time of the last write (Last-Modified).' },
];
