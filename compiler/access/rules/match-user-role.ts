// matchUserRole: a caller whose roles claim holds one of the roles named.
import { textArray } from '../../sql/ident.ts';
import { defineRule } from './def.ts';

export const matchUserRole = defineRule<{ type: 'matchUserRole'; roles: string[] }>({
  kind: 'identity',
  summary: 'a caller holding one of the roles',
  schema: { additionalProperties: false, required: ['roles'], properties: { type: { const: 'matchUserRole' }, roles: { $ref: '#/definitions/nonEmptyStrings' } } },
  sql: (rule) => `(SELECT auth.roles() && ${textArray(rule.roles)})`,
});
