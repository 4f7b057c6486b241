// matchResourceAttribute: the row's property holds one of the values.
import type { Scalar } from '../../model/types.ts';
import { ident, scalarLiteral } from '../../sql/ident.ts';
import { baseType } from '../../ir/columns.ts';
import { comparable } from '../../model/checks/scenarios.ts';
import { valueProblem } from '../../model/checks/properties.ts';
import { unlessActing, WRITES } from '../rules.ts';
import { defineRule } from './def.ts';

export const matchResourceAttribute = defineRule<{ type: 'matchResourceAttribute'; attribute: string; values: Scalar[] }>({
  kind: 'data',
  summary: "records whose property holds one of the values",
  schema: {
    additionalProperties: false, required: ['attribute', 'values'],
    properties: {
      type: { const: 'matchResourceAttribute' },
      attribute: { $ref: '#/definitions/propertyName' },
      values: { type: 'array', minItems: 1, items: { type: ['string', 'number', 'boolean'] } },
    },
  },
  check({ ctx, rule, at, entityName, entity, onEntity, hasProp }) {
    if (!hasProp(rule.attribute)) return ctx.fail(`${at}/attribute`, 'Unknown property', `no property "${rule.attribute}" on ${entityName}${onEntity}`);
    if (!comparable(entity.properties[rule.attribute]!)) {
      return ctx.fail(`${at}/attribute`, 'Rule Target', `matchResourceAttribute compares "${rule.attribute}" with single values: it needs a single String, Number, Boolean, Date, Time or DateTime property, not a JSON, file, Password or multiple one`);
    }
    // Each value is one the property can hold: any other could never match, or fails the migration, or is
    // cast to something else (1.5 into an int32 is 2, a long text cut to 255 characters).
    rule.values.forEach((v, i) => {
      const problem = valueProblem(entity.properties[rule.attribute]!, v, 'a matchResourceAttribute value');
      if (problem) ctx.fail(`${at}/values/${i}`, 'Rule Target', `${problem} (${rule.attribute} on ${entityName}${onEntity})`);
    });
  },
  sql(rule, ctx, mode) {
    const p = ctx.entity.properties[rule.attribute]!;
    const cond = `(${ident(rule.attribute)} = ANY (ARRAY[${rule.values.map(scalarLiteral).join(', ')}]::${baseType(p)}[]))`;
    return mode === 'select' ? unlessActing(WRITES.filter((a) => a !== 'create'), cond) : cond;
  },
  describe: (r) => `matchResourceAttribute (${r.attribute} in ${r.values.join(', ')})`,
});
