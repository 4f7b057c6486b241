// Version (spec 2.6, 4.4): an integer that is 1 on create and one more on every write; the entity's ETag and the
// version an update body expects (a stale one is 409).
import type { Entity, Property } from '../model/types.ts';
import { defineModule, NO_OPTIONS } from './def.ts';

const INT32 = { minimum: -2147483648, maximum: 2147483647 };

export const Version = defineModule({
  summary: 'an integer, 1 on create and one more on every write: the ETag and the optimistic lock',
  options: NO_OPTIONS,
  appliesTo: {
    ok: (p) => p.type === 'Number' && !p.multiple && p.web?.format !== 'float' && p.web?.format !== 'double',
    what: 'an integer Number property (format int32, int64 or none)',
  },
  entityOnly: true,
  onePerEntity: true,
  managed: true,
  changesOnEveryWrite: true,
  fills: true,
  serverManaged: true,
  clientNames: true,
  alwaysSet: true,
  check({ p, fail }) {
    // A Version is 1, then + 1: a setting that excludes those values would break every write.
    const startsAbove1 = typeof p.minimum === 'number' && (p.minimum > 1 || (p.minimum === 1 && p.exclusiveMinimum === true));
    if (p.enum || p.defaultValue !== undefined || startsAbove1) {
      fail('Version', 'a Version is 1 on create and one more on every write: it cannot carry enum, defaultValue or a minimum that excludes 1', 'modules/Version');
    }
  },
  column: { type: (p) => (p.web?.format ? undefined : 'integer'), default: '1', notNull: true },
  trigger({ col, softDelete, onInsert, onUpdate }) {
    onInsert.push(`NEW.${col} := 1;  -- Version starts at 1, whatever was supplied (spec 2.6)`);
    // It grows by exactly one per write (PUT, PATCH, a sub-resource PUT, a restore); a soft delete only
    // hides the row and leaves it alone, so the restored record's ETag differs from the one it had.
    onUpdate.push(softDelete
      ? `NEW.${col} := OLD.${col} + CASE WHEN soft_delete_only THEN 0 ELSE 1 END;`
      : `NEW.${col} := OLD.${col} + 1;`);
  },
  wire: {
    format: 'int32',
    value: (base, p) => (p.web?.format ? base : { type: 'integer', ...INT32 }),
    read: { type: 'integer', minimum: 1 },
    // Spec 4.4: ignored on create (a record starts at 1); on update the version it expects.
    body: (kind) => (kind === 'create' ? { description: 'ignored: a new record starts at version 1' }
      : { type: 'integer', minimum: 1, description: 'the version this update expects (409 when it moved on); null is no version (422)' }),
  },
});

/** The entity's Version property (its ETag, its history's versions), if it has one. */
export function versionProperty(e: Entity): [string, Property] | undefined {
  return Object.entries(e.properties).find(([, p]) => p.modules?.Version);
}
