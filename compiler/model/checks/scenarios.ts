// Domain rules for access scenarios (spec 2.8, 2.9, design.md 4): placement of lifecycleStatus,
// its pairing with an identity rule, and data rules that must name real properties.
import type { Entity, PredicateGroup, Property, Rule, Scenario } from '../types.ts';
import { ACTION_NAMES, isGroup } from '../types.ts';
import { IDENTITY_RULES, ruleDef } from '../../access/rules/index.ts';
import { pointer as ptr } from '../errors.ts';
import { CheckContext } from './context.ts';
import { moduleFlag } from '../../modules/index.ts';

type Level = 'api' | 'entity' | 'action';

export function checkScenarios(ctx: CheckContext): void {
  const { model } = ctx;
  const apiScenarios = model.api.scenarios ?? [];
  // API-level scenarios apply to every entity, so their data rules must make sense on each one.
  for (const [name, entity] of Object.entries(model.entities)) {
    apiScenarios.forEach((s, i) => checkScenario(ctx, s, ptr('api', 'scenarios', i), 'api', name, entity));
    (entity.scenarios ?? []).forEach((s, i) => checkScenario(ctx, s, ptr('entities', name, 'scenarios', i), 'entity', name, entity));
    for (const action of ACTION_NAMES) {
      const settings = entity.actions?.[action];
      (settings?.scenarios ?? []).forEach((s, i) =>
        checkScenario(ctx, s, ptr('entities', name, 'actions', action, 'scenarios', i), 'action', name, entity));
      if (settings && (action === 'restore') && !entity.softDelete) {
        ctx.fail(ptr('entities', name, 'actions', action), 'Action', 'restore applies only to entities with softDelete');
      }
      if (settings && (action === 'link' || action === 'unlink') && !Object.values(entity.relations ?? {}).some((r) => r.kind === 'manyToMany')) {
        ctx.fail(ptr('entities', name, 'actions', action), 'Action', `${action} applies only to entities with a manyToMany relation`);
      }
    }
  }
}

function checkScenario(ctx: CheckContext, s: Scenario, at: string, level: Level, entityName: string, entity: Entity): void {
  walk(s.predicate, `${at}/predicate`, [], (rule, rat, ancestors) => {
    checkRule(ctx, rule, rat, level, entityName, entity);
    if (ruleDef(rule).needsIdentity && level !== 'api' && !pairedWithIdentity(ancestors)) {
      ctx.fail(rat, 'Lifecycle Identity', `${rule.type} is not identity-constraining: pair it with an identity rule in an enclosing "and" group of the same scenario`);
    }
  });
}

/**
 * True when some enclosing `and` group has a child that constrains identity: an identity rule, or a group
 * of them (`and: [allowAuthenticated, {or: [matchUserRole, matchIpAddress]}, lifecycleStatus]` is paired).
 */
function pairedWithIdentity(ancestors: PredicateGroup[]): boolean {
  return ancestors.some((g) => g.style === 'and' && g.children.some(constrainsIdentity));
}

/** Whether a node is an identity rule, or a group whose every branch holds one (data rules alone do not). */
function constrainsIdentity(node: PredicateGroup | Rule): boolean {
  if (!isGroup(node)) return IDENTITY_RULES.includes(node.type);
  return node.style === 'and' ? node.children.some(constrainsIdentity) : node.children.every(constrainsIdentity);
}

function walk(g: PredicateGroup, at: string, ancestors: PredicateGroup[], visit: (r: Rule, at: string, anc: PredicateGroup[]) => void): void {
  g.children.forEach((c, i) => {
    const cat = `${at}/children/${i}`;
    if (isGroup(c)) walk(c, cat, [...ancestors, g], visit);
    else visit(c, cat, [...ancestors, g]);
  });
}

function checkRule(ctx: CheckContext, rule: Rule, at: string, level: Level, entityName: string, entity: Entity): void {
  const onEntity = level === 'api' ? ` (this api-level rule applies to ${entityName})` : '';
  const hasProp = (n: string) => Object.prototype.hasOwnProperty.call(entity.properties, n);
  ruleDef(rule).check?.({ ctx, rule, at, level, entityName, entity, onEntity, hasProp });
}

/** Whether a rule can compare the property's column with a plain value (of `type`, when given). */
export function comparable(p: Property, type?: Property['type']): boolean {
  if (p.multiple || p.type === 'JSON' || p.type === 'Binary' || moduleFlag(p, 'file') || moduleFlag(p, 'hidden')) return false;
  return type === undefined || p.type === type;
}

/**
 * matchProjectStakeholder.via: a single property referencing the key of an entity that is the projects entity or
 * reaches it by its parents; the row's project is that record's (the entity itself need not reach it).
 */
export function checkVia(ctx: CheckContext, via: string, at: string, entityName: string, entity: Entity, projectEntity: string): void {
  const p = Object.hasOwn(entity.properties, via) ? entity.properties[via] : undefined;
  if (!p) return ctx.fail(at, 'Unknown property', `no property "${via}" on ${entityName}`);
  if (!p.references || p.multiple) {
    return ctx.fail(at, 'Projects', `matchProjectStakeholder.via names a single property that references a record on the way to ${projectEntity}; "${via}" on ${entityName} ${p.multiple ? 'is multiple' : 'references nothing'}`);
  }
  const [target, column] = p.references.split('.');
  const key = Object.entries(ctx.model.entities[target!]?.properties ?? {}).find(([, tp]) => tp.primary)?.[0];
  if (column !== undefined && column !== key) {
    return ctx.fail(at, 'Projects', `matchProjectStakeholder.via follows a reference to a record's key; "${via}" references ${p.references}`);
  }
  if (ctx.model.entities[target!] && !reachesProject(ctx, target!, projectEntity)) {
    ctx.fail(at, 'Projects', `${target}, which "${via}" references, is not ${projectEntity} and has no parent chain up to it`);
  }
}

export function reachesProject(ctx: CheckContext, entityName: string, projectEntity: string): boolean {
  const seen = new Set<string>();
  let cur: string | undefined = entityName;
  while (cur && !seen.has(cur)) {
    if (cur === projectEntity) return true;
    seen.add(cur);
    cur = ctx.model.entities[cur]?.parent?.entity;
  }
  return false;
}
