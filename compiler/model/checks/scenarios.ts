// Domain rules for access scenarios (spec 2.8, 2.9, design.md 4): placement of lifecycleStatus,
// its pairing with an identity rule, and data rules that must name real properties.
import { BlockList } from 'node:net';
import type { Entity, PredicateGroup, Property, Rule, Scenario } from '../types.ts';
import { ACTION_NAMES, IDENTITY_RULES, isGroup } from '../types.ts';
import { pointer as ptr } from '../errors.ts';
import { CheckContext } from './context.ts';
import { valueProblem } from './properties.ts';
import { moduleFlag } from '../../modules/index.ts';
import { ownerProperty } from '../../modules/owner.ts';
import { statusProperties } from '../../modules/status.ts';

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
    if (rule.type === 'lifecycleStatus' && level !== 'api' && !pairedWithIdentity(ancestors)) {
      ctx.fail(rat, 'Lifecycle Identity', 'lifecycleStatus is not identity-constraining: pair it with an identity rule in an enclosing "and" group of the same scenario');
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
  switch (rule.type) {
    case 'allowPublic':
    case 'allowAuthenticated':
    case 'matchUserRole':
    case 'matchEmailDomain':
      return;
    case 'matchOrganizationRole':
      if (ctx.model.api.strategy === 'RBAC') ctx.fail(at, 'Strategy', 'matchOrganizationRole needs strategy OrganizationRBAC or EnterpriseRBAC');
      return;
    case 'matchIpAddress':
      rule.cidrs.forEach((c, i) => { if (!validCidr(c)) ctx.fail(`${at}/cidrs/${i}`, 'Invalid CIDR', `"${c}" is not an IPv4 or IPv6 CIDR block`); });
      return;
    case 'matchResourceOwner': {
      if (rule.property) {
        if (!hasProp(rule.property)) ctx.fail(`${at}/property`, 'Unknown property', `no property "${rule.property}" on ${entityName}${onEntity}`);
        else if (!comparable(entity.properties[rule.property]!, 'String')) {
          ctx.fail(`${at}/property`, 'Rule Target', `matchResourceOwner compares "${rule.property}" with the sub claim: it needs a single String property, not a file, Password or multiple one`);
        }
      } else if (!ownerProperty(entity)) {
        ctx.fail(at, 'Unknown property', `matchResourceOwner needs a property with the Owner module on ${entityName}, or "property"${onEntity}`);
      }
      return;
    }
    case 'matchProjectStakeholder': {
      const projects = ctx.model.api.projects;
      if (!projects) return ctx.fail(at, 'Projects', 'matchProjectStakeholder needs api.projects');
      if (rule.via) return checkVia(ctx, rule.via, `${at}/via`, entityName, entity, projects.entity);
      if (!reachesProject(ctx, entityName, projects.entity)) {
        ctx.fail(at, 'Projects', `${entityName} is not ${projects.entity} and has no parent chain up to it${onEntity}`);
      }
      return;
    }
    case 'matchResourceAttribute':
      if (!hasProp(rule.attribute)) ctx.fail(`${at}/attribute`, 'Unknown property', `no property "${rule.attribute}" on ${entityName}${onEntity}`);
      else if (!comparable(entity.properties[rule.attribute]!)) {
        ctx.fail(`${at}/attribute`, 'Rule Target', `matchResourceAttribute compares "${rule.attribute}" with single values: it needs a single String, Number, Boolean, Date, Time or DateTime property, not a JSON, file, Password or multiple one`);
      } else {
        // Each value is one the property can hold: any other could never match, or fails the migration, or is
        // cast to something else (1.5 into an int32 is 2, a long text cut to 255 characters).
        rule.values.forEach((v, i) => {
          const problem = valueProblem(entity.properties[rule.attribute]!, v, 'a matchResourceAttribute value');
          if (problem) ctx.fail(`${at}/values/${i}`, 'Rule Target', `${problem} (${rule.attribute} on ${entityName}${onEntity})`);
        });
      }
      return;
    case 'lifecycleStatus': {
      if (level === 'api') return ctx.fail(at, 'Lifecycle Placement', 'lifecycleStatus is not allowed at the API level; place it on an entity or an action');
      const status = statusProperties(entity);
      if (status.length !== 1) return ctx.fail(at, 'Lifecycle Target', `lifecycleStatus needs exactly one property with the Status module on ${entityName}`);
      const values = entity.properties[status[0]!]!.enum;
      for (const key of ['allowedStatuses', 'deniedStatuses'] as const) {
        (rule[key] ?? []).forEach((v, i) => {
          if (values && !values.includes(v)) ctx.fail(`${at}/${key}/${i}`, 'Lifecycle Target', `"${v}" is not a value of ${status[0]}`);
        });
      }
      return;
    }
    default: {
      const never: never = rule;
      throw new Error(`unhandled rule ${JSON.stringify(never)}`);
    }
  }
}

/** Whether a rule can compare the property's column with a plain value (of `type`, when given). */
function comparable(p: Property, type?: Property['type']): boolean {
  if (p.multiple || p.type === 'JSON' || p.type === 'Binary' || moduleFlag(p, 'file') || moduleFlag(p, 'hidden')) return false;
  return type === undefined || p.type === type;
}

/**
 * matchProjectStakeholder.via: a single property referencing the key of an entity that is the projects entity or
 * reaches it by its parents; the row's project is that record's (the entity itself need not reach it).
 */
function checkVia(ctx: CheckContext, via: string, at: string, entityName: string, entity: Entity, projectEntity: string): void {
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

function reachesProject(ctx: CheckContext, entityName: string, projectEntity: string): boolean {
  const seen = new Set<string>();
  let cur: string | undefined = entityName;
  while (cur && !seen.has(cur)) {
    if (cur === projectEntity) return true;
    seen.add(cur);
    cur = ctx.model.entities[cur]?.parent?.entity;
  }
  return false;
}

function validCidr(cidr: string): boolean {
  const [addr, bits, ...rest] = cidr.split('/');
  if (!addr || bits === undefined || rest.length || !/^\d{1,3}$/.test(bits)) return false;
  const type = addr.includes(':') ? 'ipv6' : 'ipv4';
  try {
    new BlockList().addSubnet(addr, Number(bits), type);
    return true;
  } catch {
    return false;
  }
}
