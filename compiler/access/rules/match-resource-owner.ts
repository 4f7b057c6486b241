// matchResourceOwner: the row's Owner property (or the one named) is the caller's sub.
import { ident } from '../../sql/ident.ts';
import { ownerProperty } from '../../modules/owner.ts';
import { comparable } from '../../model/checks/scenarios.ts';
import { CLAIMS, movable } from '../rules.ts';
import { defineRule } from './def.ts';

export const matchResourceOwner = defineRule<{ type: 'matchResourceOwner'; property?: string }>({
  kind: 'data',
  summary: "records whose owner (the Owner property, or the one named) is the caller",
  schema: { additionalProperties: false, properties: { type: { const: 'matchResourceOwner' }, property: { $ref: '#/definitions/propertyName' } } },
  check({ ctx, rule, at, entityName, entity, onEntity, hasProp }) {
    if (rule.property) {
      if (!hasProp(rule.property)) ctx.fail(`${at}/property`, 'Unknown property', `no property "${rule.property}" on ${entityName}${onEntity}`);
      else if (!comparable(entity.properties[rule.property]!, 'String')) {
        ctx.fail(`${at}/property`, 'Rule Target', `matchResourceOwner compares "${rule.property}" with the sub claim: it needs a single String property, not a file, Password or multiple one`);
      }
    } else if (!ownerProperty(entity)) {
      ctx.fail(at, 'Unknown property', `matchResourceOwner needs a property with the Owner module on ${entityName}, or "property"${onEntity}`);
    }
  },
  sql: (rule, ctx, mode) => movable(mode, ctx, `(${ident(rule.property ?? ownerProperty(ctx.entity)!)} = ${CLAIMS.uid})`),
  describe: (r) => `matchResourceOwner${r.property ? ` (${r.property})` : ''}`,
});
