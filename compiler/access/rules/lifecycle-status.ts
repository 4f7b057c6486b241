// lifecycleStatus: the row's Status is one of the allowed and none of the denied; existing records only (spec 3.1).
import { ident, textArray } from '../../sql/ident.ts';
import { statusProperties } from '../../modules/status.ts';
import { unlessActing, WRITES } from '../rules.ts';
import { defineRule } from './def.ts';

export const lifecycleStatus = defineRule<{ type: 'lifecycleStatus'; allowedStatuses?: string[]; deniedStatuses?: string[] }>({
  kind: 'data',
  summary: "records whose Status is allowed and not denied",
  schema: {
    additionalProperties: false,
    anyOf: [{ required: ['allowedStatuses'] }, { required: ['deniedStatuses'] }],
    properties: {
      type: { const: 'lifecycleStatus' },
      allowedStatuses: { $ref: '#/definitions/nonEmptyStrings' },
      deniedStatuses: { $ref: '#/definitions/nonEmptyStrings' },
    },
  },
  needsIdentity: true,
  check({ ctx, rule, at, level, entityName, entity }) {
    if (level === 'api') return ctx.fail(at, 'Lifecycle Placement', 'lifecycleStatus is not allowed at the API level; place it on an entity or an action');
    const status = statusProperties(entity);
    if (status.length !== 1) return ctx.fail(at, 'Lifecycle Target', `lifecycleStatus needs exactly one property with the Status module on ${entityName}`);
    const values = entity.properties[status[0]!]!.enum;
    for (const key of ['allowedStatuses', 'deniedStatuses'] as const) {
      (rule[key] ?? []).forEach((v, i) => {
        if (values && !values.includes(v)) ctx.fail(`${at}/${key}/${i}`, 'Lifecycle Target', `"${v}" is not a value of ${status[0]}`);
      });
    }
  },
  sql(rule, ctx, mode) {
    // Lifecycle rules judge existing records only; a record being created passes (spec 3.1).
    const col = ident(statusProperties(ctx.entity)[0]!);
    const parts = [
      ...(rule.deniedStatuses ? [`(${col} IS NULL OR NOT (${col}::text = ANY (${textArray(rule.deniedStatuses)})))`] : []),
      ...(rule.allowedStatuses ? [`(${col}::text = ANY (${textArray(rule.allowedStatuses)}))`] : []),
    ];
    return unlessActing(mode === 'select' ? WRITES : ['create'], `(${parts.join(' AND ')})`);
  },
  describe: (r) => `lifecycleStatus (${[r.deniedStatuses ? `denied: ${r.deniedStatuses.join(', ')}` : '', r.allowedStatuses ? `allowed: ${r.allowedStatuses.join(', ')}` : ''].filter(Boolean).join('; ')})`,
});
