// The registry of access rule types: a scenario's predicate names them. The model schema's rule `oneOf`, the
// `Rule` type, the identity rules and the SQL, checks and descriptions all come from this table; a new rule
// type is its file and one line here.
import type { JsonSchema, RuleDef, RuleOf } from './def.ts';
import { allowPublic } from './allow-public.ts';
import { allowAuthenticated } from './allow-authenticated.ts';
import { matchUserRole } from './match-user-role.ts';
import { matchOrganizationRole } from './match-organization-role.ts';
import { matchEmailDomain } from './match-email-domain.ts';
import { matchIpAddress } from './match-ip-address.ts';
import { matchResourceOwner } from './match-resource-owner.ts';
import { matchProjectStakeholder } from './match-project-stakeholder.ts';
import { matchResourceAttribute } from './match-resource-attribute.ts';
import { lifecycleStatus } from './lifecycle-status.ts';

export const RULES = {
  allowPublic,
  allowAuthenticated,
  matchUserRole,
  matchOrganizationRole,
  matchEmailDomain,
  matchIpAddress,
  matchResourceOwner,
  matchProjectStakeholder,
  matchResourceAttribute,
  lifecycleStatus,
} satisfies Record<string, RuleDef<any>>;

export type RuleType = keyof typeof RULES;

/** A rule of a scenario's predicate: each type's shape, from its definition. */
export type Rule = { [K in RuleType]: RuleOf<(typeof RULES)[K]> }[RuleType];

export const RULE_TYPES = Object.keys(RULES) as RuleType[];

/** The rule's definition. */
export const ruleDef = (rule: { type: string }): RuleDef<any> => RULES[rule.type as RuleType] as RuleDef<any>;

/** Rules on the caller alone (PRE_FETCH decides them before any row is read). */
export const IDENTITY_RULES: readonly RuleType[] = RULE_TYPES.filter((t) => RULES[t].kind === 'identity');

/** The model schema's `rule`: one `oneOf` branch per type, told apart by `type`. */
export function rulesSchema(): JsonSchema {
  return { discriminator: { propertyName: 'type' }, oneOf: RULE_TYPES.map((t) => RULES[t].schema) };
}
