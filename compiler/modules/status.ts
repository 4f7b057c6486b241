// Status: the record's lifecycle state (lifecycleStatus rules read it); with initialStatuses a new record must
// start in one of them.
import type { Entity } from '../model/types.ts';
import { textArray } from '../sql/ident.ts';
import { defineModule } from './def.ts';

export const Status = defineModule<{ initialStatuses?: string[] }>({
  summary: 'the lifecycle state; initialStatuses: where a new record may start',
  options: { type: 'object', additionalProperties: false, properties: { initialStatuses: { $ref: '#/definitions/nonEmptyStrings' } } },
  appliesTo: { ok: (p) => p.type === 'String' && !p.multiple, what: 'a String property' },
  entityOnly: true,
  onePerEntity: true,
  check({ p, options, fail }) {
    const initial = options.initialStatuses ?? [];
    for (const s of initial) if (p.enum && !p.enum.includes(s)) fail('Status', `initial status "${s}" is not in the enum`, 'modules/Status/initialStatuses');
    if (initial.length && typeof p.defaultValue === 'string' && !initial.includes(p.defaultValue)) {
      fail('Status', `defaultValue "${p.defaultValue}" is not one of the initialStatuses`, 'defaultValue');
    }
  },
  trigger({ name, col, options, refuse, onInsert }) {
    const allowed = options.initialStatuses;
    if (!allowed) return;
    onInsert.push(`IF NEW.${col} IS NULL OR NOT (NEW.${col}::text = ANY (${textArray(allowed)})) THEN ${refuse('PT422',
      `a new record must start in one of the initial statuses: ${allowed.join(', ')}`, name, 'initialStatuses')} END IF;`);
  },
});

/** The entity's Status property (lifecycleStatus reads it); the model checks made sure there is one. */
export function statusProperties(e: Entity): string[] {
  return Object.entries(e.properties).filter(([, p]) => p.modules?.Status).map(([n]) => n);
}
