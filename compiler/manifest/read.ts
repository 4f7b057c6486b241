// What a returned record looks like, for the generated API specifications: the JSON Schema of a row
// (never Password or writeOnly properties; files as {id, name, mime, url}) and the docs-only facts.
import type { Property } from '../model/types.ts';
import { isFile, serverManaged } from '../ir/columns.ts';
import { acceptedFileTypes } from '../model/mime.ts';
import { valueSchema } from './schemas.ts';
import type { NumberFormat, PropertyManifest } from './types.ts';
import { moduleFlag, modulesOf } from '../modules/index.ts';

type Schema = Record<string, unknown>;

/** The format a Number property has on the wire: web.format, else what its column type implies. */
export function numberFormat(p: Property): NumberFormat | undefined {
  if (p.type !== 'Number') return undefined;
  if (p.web?.format) return p.web.format;
  const byModule = modulesOf(p).map(({ def }) => def.wire?.format).find((f) => f !== undefined);
  if (byModule) return byModule;
  return p.primary && p.readOnly ? 'int64' : undefined;
}

/**
 * A value the server sets whatever a body says (a CreatedTimestamp, UpdatedTimestamp or Owner, flagged readOnly or
 * not): readOnly in the API documents, as spec 2.2 has readOnly values. A Version is not: update bodies name it.
 */
export const setByServer = (p: Property): boolean => serverManaged(p) && !moduleFlag(p, 'clientNames');

/** The docs-only part of a property's manifest entry. */
export function docsFacts(p: Property): Partial<PropertyManifest> {
  const format = numberFormat(p);
  return {
    ...(setByServer(p) && !p.readOnly ? { serverSet: true as const } : {}),
    ...(p.description ? { description: p.description } : {}),
    ...(p.deprecated ? { deprecated: true } : {}),
    ...(format ? { format } : {}),
    ...(p.defaultValue !== undefined ? { defaultValue: p.defaultValue } : {}),
  };
}

/** Spec 2.7: reads put {id, name, mime, url} (url signed for 15 minutes) in place of the stored block. */
function fileMetadata(p: Property): Schema {
  // The declared type as uploaded, parameters kept (`text/plain; charset=utf-8`): no enum of the accepted media types.
  const allowed = acceptedFileTypes(p);
  return {
    type: 'object',
    description: 'Stored file: the reference token, the original name, its content type and a download link signed for 15 minutes.',
    properties: {
      id: { type: 'string', description: 'The file reference token.' },
      name: { type: 'string', description: 'Original file name.' },
      mime: { type: 'string', description: `The content type declared at upload${allowed ? `; its media type is one of ${allowed.join(', ')}` : ''}.` },
      url: { type: 'string', format: 'uri-reference', description: 'Signed download link (15 minutes).' },
    },
    required: ['id', 'name', 'mime', 'url'],
  };
}

/** Whether a row always holds a value (never null) for the property. */
function alwaysSet(p: Property): boolean {
  return Boolean(p.required || p.primary) || moduleFlag(p, 'alwaysSet');
}

function readProperty(p: Property): Schema {
  const format = numberFormat(p);
  const byModule = modulesOf(p).map(({ def }) => def.wire?.read).find((s) => s !== undefined);
  const one = isFile(p) ? fileMetadata(p)
    : byModule ? { ...byModule }
    : format === 'int64' && p.readOnly ? { type: 'integer' } : valueSchema(p);
  const value: Schema = p.multiple ? { type: 'array', items: one } : one;
  const s: Schema = alwaysSet(p) ? { ...value } : { anyOf: [value, { type: 'null' }] };
  if (p.description) s.description = p.description;
  if (p.deprecated) s.deprecated = true;
  if (setByServer(p)) s.readOnly = true;
  return s;
}

/**
 * A row of `props` (by wire name); `key` adds a column that is not a model property (a sub-resource's owner key).
 * No `required`: include/exclude projections may leave any property out.
 */
export function readSchema(props: Record<string, Property>, key?: { name: string; schema: Schema }): Schema {
  const properties: Record<string, Schema> = {};
  if (key) properties[key.name] = { ...key.schema, readOnly: true };
  for (const [name, p] of Object.entries(props)) {
    if (p.writeOnly || moduleFlag(p, 'hidden')) continue;
    properties[name] = readProperty(p);
  }
  return { type: 'object', properties };
}

/** The schema of a key value (a primary key, or a key column that points at one). */
export function keySchema(p: Property): Schema {
  return p.type === 'Number' ? { type: 'integer' } : valueSchema(p);
}
