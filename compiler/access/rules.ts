// Each access rule as SQL (spec 2.8, 2.9, design.md 4). Identity rules read the caller's claims through
// (SELECT auth.…()) so PostgreSQL evaluates them once per statement; data rules are row conditions.
import type { Entity, Model, PredicateGroup, Rule } from '../model/types.ts';
import { IDENTITY_RULES, isGroup } from '../model/types.ts';
import { tableName } from '../model/names.ts';
import { baseType } from '../ir/columns.ts';
import { ident, literal, pgName, qname, scalarLiteral, textArray } from '../sql/ident.ts';
import { group } from '../sql/layout.ts';
import { ownerProperty } from '../modules/owner.ts';
import { statusProperties } from '../modules/status.ts';

/**
 * How data rules count: all true (PRE_FETCH 'identity'), as conditions on the existing row ('row':
 * UPDATE and DELETE policies, explanations), or for SELECT policies ('select'): PostgreSQL also checks
 * an UPDATE's new row against them, and access rules judge existing records only (spec 3.1), so rules
 * on mutable state (lifecycle, attributes) hold there for the actions that write, whose own policies
 * judge the existing row; lifecycle never applies to a record being created.
 */
export type Mode = 'identity' | 'row' | 'select';

const WRITES = ['create', 'update', 'delete', 'restore'];
// Conditions on the caller alone are whole sub-selects (`(SELECT auth.roles() && …)`), not a sub-select
// compared outside (`(SELECT auth.roles()) && …`): both run once per statement, but the planner estimates a
// boolean parameter at one half and a comparison without a column at 1/200, which, ANDed and ORed through the
// policies, made it expect a few hundred visible rows of a hundred thousand and give up the key's index.
const unlessActing = (actions: string[], cond: string) =>
  `((SELECT lib.action() = ANY (${textArray(actions)})) OR ${cond})`;

export interface RuleContext {
  model: Model;
  entityName: string;
  entity: Entity;
  /** The scenario can win an update: its SELECT policy lets the row an update makes be returned (see movable). */
  updates?: boolean;
  /**
   * matchProjectStakeholder on one known row (a refusal's explanation): whether the caller is a stakeholder of the
   * `table` row whose key `column` holds, probed by that key, instead of `column IN (SELECT <table>_stakeholder_keys())`.
   */
  stakeholder?: (table: string, column: string) => string;
}

const claims = {
  uid: '(SELECT auth.uid())',
  roles: '(SELECT auth.roles())',
  email: '(SELECT auth.email())',
  ip: '(SELECT auth.ip())',
  org: '(SELECT auth.org())',
};

export { ownerProperty };

function statusProperty(e: Entity): string {
  return statusProperties(e)[0]!;
}

/** An identity rule: a condition on the caller alone, evaluated once per statement (see unlessActing). */
function identitySql(rule: Rule, ctx: RuleContext): string {
  switch (rule.type) {
    case 'allowPublic': return 'true';
    case 'allowAuthenticated': return '(SELECT auth.uid() IS NOT NULL)';
    case 'matchUserRole': return `(SELECT auth.roles() && ${textArray(rule.roles)})`;
    case 'matchOrganizationRole': {
      // EnterpriseRBAC: enterprise roles hold in every organization of the caller's enterprise.
      const roles = ctx.model.api.strategy === 'EnterpriseRBAC'
        ? '(auth.org_roles() || CASE WHEN auth.enterprise() IS NOT NULL THEN auth.enterprise_roles() ELSE \'{}\'::text[] END)'
        : 'auth.org_roles()';
      const named = rule.roles.filter((r) => r !== 'any');
      const any = rule.roles.includes('any') ? [`cardinality(${roles}) > 0`] : [];
      const match = named.length ? [`${roles} && ${textArray(named)}`] : [];
      return `(SELECT auth.org() IS NOT NULL AND (${[...any, ...match].join(' OR ')}))`;
    }
    case 'matchEmailDomain':
      // The domain is what follows the last @: in "a@corp.com@evil.com" (or a quoted "a@corp.com"@evil.com) it is evil.com.
      return `(SELECT substring(auth.email() FROM '@([^@]*)$') = ANY (${textArray(rule.domains.map((d) => d.toLowerCase()))}))`;
    case 'matchIpAddress':
      return `(SELECT auth.ip() <<= ANY (ARRAY[${rule.cidrs.map(literal).join(', ')}]::cidr[]))`;
    default:
      throw new Error(`${rule.type} is not an identity rule`);
  }
}

function dataSql(rule: Rule, ctx: RuleContext, mode: Mode = 'row'): string {
  const e = ctx.entity;
  switch (rule.type) {
    case 'matchResourceOwner':
      return movable(mode, ctx, `(${ident(rule.property ?? ownerProperty(e)!)} = ${claims.uid})`);
    case 'matchResourceAttribute': {
      const p = e.properties[rule.attribute]!;
      const cond = `(${ident(rule.attribute)} = ANY (ARRAY[${rule.values.map(scalarLiteral).join(', ')}]::${baseType(p)}[]))`;
      return mode === 'select' ? unlessActing(WRITES.filter((a) => a !== 'create'), cond) : cond;
    }
    case 'lifecycleStatus': {
      // Lifecycle rules judge existing records only; a record being created passes (spec 3.1).
      const col = ident(statusProperty(e));
      const parts = [
        ...(rule.deniedStatuses ? [`(${col} IS NULL OR NOT (${col}::text = ANY (${textArray(rule.deniedStatuses)})))`] : []),
        ...(rule.allowedStatuses ? [`(${col}::text = ANY (${textArray(rule.allowedStatuses)}))`] : []),
      ];
      return unlessActing(mode === 'select' ? WRITES : ['create'], `(${parts.join(' AND ')})`);
    }
    case 'matchProjectStakeholder':
      return movable(mode, ctx, stakeholderCall(ctx, rule.via));
    default:
      throw new Error(`${rule.type} is not a data rule`);
  }
}

/**
 * Updates are judged on the existing record (spec 3.1): its UPDATE policy holds the whole tree, but the row an
 * update makes must also pass the SELECT policy to be returned, so an owner who handed a task to someone else,
 * or moved a post to a project of which she is no member, got PostgreSQL's 42501 (a 403 naming nothing). In the
 * SELECT policy of a scenario that can win an update (only the winner's policies apply), such a rule gives way
 * while an update runs; other scenarios' policies (a list's) keep it plain.
 */
const movable = (mode: Mode, ctx: RuleContext, cond: string) => (mode === 'select' && ctx.updates ? unlessActing(['update'], cond) : cond);

/** app.<table>_stakeholder_keys(): the keys of that table's rows in the caller's projects. */
export const stakeholderKeys = (table: string) => qname('app', pgName(table, 'stakeholder_keys'));

/** The row's project (itself, its parent chain, or the entity `via` references) is one the caller owns or is a member of. */
function stakeholderCall(ctx: RuleContext, via: string | undefined): string {
  const projectEntity = ctx.model.api.projects!.entity;
  if (ctx.entityName === projectEntity && !via) {
    const pk = Object.entries(ctx.entity.properties).find(([, p]) => p.primary)![0];
    if (ctx.stakeholder) return ctx.stakeholder(tableName(ctx.entity), ident(pk));
    return `(${ident(pk)} IN (SELECT ${stakeholderKeys(tableName(ctx.entity))}()))`;
  }
  const hop = via ?? ctx.entity.parent!.property;
  const target = via ? ctx.entity.properties[via]!.references!.split('.')[0]! : ctx.entity.parent!.entity;
  if (ctx.stakeholder) return ctx.stakeholder(tableName(ctx.model.entities[target]!), ident(hop));
  return `(${ident(hop)} IN (SELECT ${stakeholderKeys(tableName(ctx.model.entities[target]!))}()))`;
}

export function ruleSql(rule: Rule, ctx: RuleContext, mode: Mode): string {
  if (IDENTITY_RULES.includes(rule.type)) return identitySql(rule, ctx);
  return mode === 'identity' ? 'true' : dataSql(rule, ctx, mode);
}

/** A scenario's tree as SQL, without `true` noise: true drops out of an AND and decides an OR. */
export function treeSql(g: PredicateGroup, ctx: RuleContext, mode: Mode): string {
  const all = g.children.map((c) => (isGroup(c) ? treeSql(c, ctx, mode) : ruleSql(c, ctx, mode)));
  if (g.style !== 'and' && all.includes('true')) return 'true';
  const parts = g.style === 'and' ? all.filter((p) => p !== 'true') : all;
  if (parts.length === 0) return g.style === 'and' ? 'true' : 'false';
  // A long condition is laid out one operand a line, nested groups indented (compiler/sql/layout.ts).
  return parts.length === 1 ? parts[0]! : group(parts, g.style === 'and' ? 'AND' : 'OR');
}

/**
 * The data rules of a scenario for 403 details: each with a description, its SQL, and `guard`, the
 * identity rules of its enclosing and-groups, so only rules of branches the caller's identity kept
 * (PRE_FETCH prunes the others) are reported as failing.
 */
export function dataRules(g: PredicateGroup, ctx: RuleContext, guards: string[] = []): Array<{ rule: string; sql: string; guard: string }> {
  const here = g.style === 'and'
    ? [...guards, ...g.children.filter((c) => !isGroup(c) && IDENTITY_RULES.includes(c.type)).map((c) => identitySql(c as Rule, ctx))]
    : guards;
  return g.children.flatMap((c) => {
    if (isGroup(c)) return dataRules(c, ctx, here);
    if (IDENTITY_RULES.includes(c.type)) return [];
    return [{ rule: describeRule(c), sql: dataSql(c, ctx), guard: here.length ? here.join(' AND ') : 'true' }];
  });
}

export function describeRule(r: Rule): string {
  switch (r.type) {
    case 'matchResourceOwner': return `matchResourceOwner${r.property ? ` (${r.property})` : ''}`;
    case 'matchResourceAttribute': return `matchResourceAttribute (${r.attribute} in ${r.values.join(', ')})`;
    case 'lifecycleStatus': return `lifecycleStatus (${[r.deniedStatuses ? `denied: ${r.deniedStatuses.join(', ')}` : '', r.allowedStatuses ? `allowed: ${r.allowedStatuses.join(', ')}` : ''].filter(Boolean).join('; ')})`;
    case 'matchProjectStakeholder': return 'matchProjectStakeholder';
    default: return r.type;
  }
}
