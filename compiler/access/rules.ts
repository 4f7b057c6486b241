// A scenario's rules as SQL (spec 2.8, 2.9, design.md 4): each rule type's SQL is in its file (compiler/access/rules/),
// listed by the registry; here are the tree, the modes and what the types share. Identity rules read the caller's
// claims through (SELECT auth.…()) so PostgreSQL evaluates them once per statement; data rules are row conditions.
import type { Entity, Model, PredicateGroup, Rule } from '../model/types.ts';
import { isGroup } from '../model/types.ts';
import { primaryKeyOf, tableName } from '../model/names.ts';
import { ident, pgName, qname, textArray } from '../sql/ident.ts';
import { IDENTITY_RULES, ruleDef } from './rules/index.ts';
import { group } from '../sql/layout.ts';

/**
 * How data rules count: all true (PRE_FETCH 'identity'), as conditions on the existing row ('row':
 * UPDATE and DELETE policies, explanations), or for SELECT policies ('select'): PostgreSQL also checks
 * an UPDATE's new row against them, and access rules judge existing records only (spec 3.1), so rules
 * on mutable state (lifecycle, attributes) hold there for the actions that write, whose own policies
 * judge the existing row; lifecycle never applies to a record being created.
 */
export type Mode = 'identity' | 'row' | 'select';

/** The actions that write. */
export const WRITES = ['create', 'update', 'delete', 'restore'];
// Conditions on the caller alone are whole sub-selects (`(SELECT auth.roles() && …)`), not a sub-select
// compared outside (`(SELECT auth.roles()) && …`): both run once per statement, but the planner estimates a
// boolean parameter at one half and a comparison without a column at 1/200, which, ANDed and ORed through the
// policies, made it expect a few hundred visible rows of a hundred thousand and give up the key's index.
export const unlessActing = (actions: string[], cond: string) =>
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

/** The caller's claims, each a sub-select evaluated once per statement. */
export const CLAIMS = {
  uid: '(SELECT auth.uid())',
  roles: '(SELECT auth.roles())',
  email: '(SELECT auth.email())',
  ip: '(SELECT auth.ip())',
  org: '(SELECT auth.org())',
};

export { ownerProperty } from '../modules/owner.ts';

/** An identity rule: a condition on the caller alone, evaluated once per statement (see unlessActing). */
function identitySql(rule: Rule, ctx: RuleContext): string {
  const def = ruleDef(rule);
  if (def.kind !== 'identity') throw new Error(`${rule.type} is not an identity rule`);
  return def.sql(rule, ctx, 'identity');
}

function dataSql(rule: Rule, ctx: RuleContext, mode: Mode = 'row'): string {
  const def = ruleDef(rule);
  if (def.kind !== 'data') throw new Error(`${rule.type} is not a data rule`);
  return def.sql(rule, ctx, mode);
}

/**
 * Updates are judged on the existing record (spec 3.1): its UPDATE policy holds the whole tree, but the row an
 * update makes must also pass the SELECT policy to be returned, so an owner who handed a task to someone else,
 * or moved a post to a project of which she is no member, got PostgreSQL's 42501 (a 403 naming nothing). In the
 * SELECT policy of a scenario that can win an update (only the winner's policies apply), such a rule gives way
 * while an update runs; other scenarios' policies (a list's) keep it plain.
 */
export const movable = (mode: Mode, ctx: RuleContext, cond: string) => (mode === 'select' && ctx.updates ? unlessActing(['update'], cond) : cond);

/** app.<table>_stakeholder_keys(): the keys of that table's rows in the caller's projects. */
export const stakeholderKeys = (table: string) => qname('app', pgName(table, 'stakeholder_keys'));

/** The row's project (itself, its parent chain, or the entity `via` references) is one the caller owns or is a member of. */
export function stakeholderCall(ctx: RuleContext, via: string | undefined): string {
  const projectEntity = ctx.model.api.projects!.entity;
  if (ctx.entityName === projectEntity && !via) {
    const [pk] = primaryKeyOf(ctx.entity);
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
  return ruleDef(r).describe?.(r) ?? r.type;
}
