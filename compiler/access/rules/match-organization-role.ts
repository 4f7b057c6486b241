// matchOrganizationRole: a caller with an active organization holding one of the roles there ('any': some role).
import { textArray } from '../../sql/ident.ts';
import { defineRule } from './def.ts';

export const matchOrganizationRole = defineRule<{ type: 'matchOrganizationRole'; roles: string[] }>({
  kind: 'identity',
  summary: "a caller holding one of the roles in the active organization ('any': some role)",
  schema: { additionalProperties: false, required: ['roles'], properties: { type: { const: 'matchOrganizationRole' }, roles: { $ref: '#/definitions/nonEmptyStrings' } } },
  check({ ctx, at }) {
    if (ctx.model.api.strategy === 'RBAC') ctx.fail(at, 'Strategy', 'matchOrganizationRole needs strategy OrganizationRBAC or EnterpriseRBAC');
  },
  sql(rule, ctx) {
    // EnterpriseRBAC: enterprise roles hold in every organization of the caller's enterprise.
    const roles = ctx.model.api.strategy === 'EnterpriseRBAC'
      ? '(auth.org_roles() || CASE WHEN auth.enterprise() IS NOT NULL THEN auth.enterprise_roles() ELSE \'{}\'::text[] END)'
      : 'auth.org_roles()';
    const named = rule.roles.filter((r) => r !== 'any');
    const any = rule.roles.includes('any') ? [`cardinality(${roles}) > 0`] : [];
    const match = named.length ? [`${roles} && ${textArray(named)}`] : [];
    return `(SELECT auth.org() IS NOT NULL AND (${[...any, ...match].join(' OR ')}))`;
  },
});
