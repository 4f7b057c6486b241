// Access scenarios as row-level security (spec part 5, design.md 4): per table an access function that
// picks the winning scenario for an action (PRE_FETCH) and one policy per scenario and command whose
// USING is that scenario's tree (FETCH / POST_FETCH). `\dp app.<table>` shows them by label.
import type { ActionName, Model } from '../model/types.ts';
import type { TableIR } from '../ir/types.ts';
import { hasOrganization } from '../ir/columns.ts';
import { mergedScenarios, type PlacedScenario } from '../access/merge.ts';
import { dataRules, ownerProperty, stakeholderKeys, treeSql, type RuleContext } from '../access/rules.ts';
import { DEFINER, ident, literal, pgName, qname } from './ident.ts';
import { caseExpr, clauses, group, hang } from './layout.ts';
import { fn } from './engine/refusals.ts';
import { requestRoles, type RoleNames } from './roles.ts';
import { primaryKeyOf } from '../model/names.ts';
import { resourceOf } from '../resource/build.ts';

type Command = 'select' | 'insert' | 'update' | 'delete';

/** The actions that run each command on an entity's table. */
function commandActions(t: TableIR): Record<Command, ActionName[]> {
  const soft = Boolean(t.entity.softDelete);
  return {
    select: ['list', 'search', 'read', 'create', 'update', 'delete', 'restore', 'link', 'unlink'],
    insert: ['create'],
    update: ['update', ...(soft ? ['delete' as const, 'restore' as const] : [])],
    delete: ['delete'],
  };
}

export const accessFunction = (t: TableIR) => fn(t.name, 'access');

/**
 * app.<table>_access(action): the key of the first scenario whose identity rules pass, else NULL. pl/pgSQL, one
 * branch per outcome: a call evaluates its action's conditions alone (a SQL CASE over every action was set up
 * whole, sub-selects and all, on each call: 15 µs of a 130 µs read by id), and an action an open scenario wins
 * is a constant.
 */
function accessFunctionDdl(t: TableIR, ctx: RuleContext, merged: Map<ActionName, PlacedScenario[]>): string {
  const branches = new Map<string, string[]>();
  for (const [action, list] of merged) {
    // The first scenario whose identity rules always pass wins outright: no CASE after it.
    const conds = list.map((p) => [treeSql(p.scenario.predicate, ctx, 'identity'), literal(p.key)] as const);
    const open = conds.findIndex(([cond]) => cond === 'true');
    const whens = (open < 0 ? conds : conds.slice(0, open)).map(([cond, key]) => `WHEN ${cond} THEN ${key}`);
    const otherwise = open < 0 ? [] : [`ELSE ${conds[open]![1]}`];
    const choice = whens.length ? caseExpr([...whens, ...otherwise]) : open < 0 ? 'NULL' : conds[open]![1];
    branches.set(choice, [...branches.get(choice) ?? [], literal(action)]);
  }
  return [
    `CREATE OR REPLACE FUNCTION ${accessFunction(t)}(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$`,
    'BEGIN',
    '  CASE action',
    ...[...branches].map(([choice, actions]) => hang(`    WHEN ${actions.join(', ')} THEN RETURN ${choice};`)),
    '    ELSE RETURN NULL;',
    '  END CASE;',
    'END $fn$;',
    `COMMENT ON FUNCTION ${accessFunction(t)}(text) IS ${literal(`PRE_FETCH for ${t.entityName}: the scenario that wins an action (first whose identity rules pass), or NULL.`)};`,
  ].join('\n');
}

/** A scenario's data rules as one condition on a row of the table (its policy's USING, a change's visibility). */
export function scenarioTree(placed: PlacedScenario, ctx: RuleContext, merged: Map<ActionName, PlacedScenario[]>, mode: 'select' | 'row'): string {
  const updates = (merged.get('update') ?? []).some((p) => p.key === placed.key);
  return treeSql(placed.scenario.predicate, { ...ctx, updates }, mode);
}

/** softDelete: a live row (restrictive on every command but restore and delete). */
export const LIVE_ROW = 'deleted_at IS NULL';
/** The organization strategies: a row of the caller's active organization (restrictive on every command). */
export const ORGANIZATION_ROW = '(organization_id = (SELECT auth.org()))';

function policyDdl(t: TableIR, ctx: RuleContext, merged: Map<ActionName, PlacedScenario[]>, roles: RoleNames): string[] {
  const grantees = requestRoles(roles);
  const out: string[] = [];
  const rel = qname('app', t.name);
  const byKey = new Map<string, PlacedScenario>();
  for (const list of merged.values()) for (const p of list) byKey.set(p.key, p);
  for (const [command, actions] of Object.entries(commandActions(t)) as Array<[Command, ActionName[]]>) {
    for (const [key, placed] of byKey) {
      const uses = actions.flatMap((a) => (merged.get(a) ?? []).filter((p) => p.key === key).map((p) => `${a} (${p.level})`));
      if (!uses.length) continue;
      const name = pgName(`${key} [${command}]`);
      const tree = scenarioTree(placed, ctx, merged, command === 'select' ? 'select' : 'row');
      // The engine records the winner per table (lib.enter); plain SQL as a request role derives it from the action.
      // One boolean sub-select, once per statement, which the planner weighs as a half (compiler/access/rules.ts).
      const winner = `(SELECT coalesce(lib.scenario(${literal(t.name)}), ${accessFunction(t)}(lib.action())) = ${literal(key)})`;
      const cond = tree === 'true' ? `(${winner})` : group([winner, tree], 'AND');
      // Access rules judge the existing record; an update may change it freely (spec 3.1).
      const clause = command === 'insert' ? [`WITH CHECK ${cond};`] : command === 'update' ? [`USING ${cond}`, 'WITH CHECK (true);'] : [`USING ${cond};`];
      out.push(clauses(`CREATE POLICY ${ident(name)} ON ${rel}`, [`AS PERMISSIVE FOR ${command.toUpperCase()} TO ${grantees}`, ...clause]),
        clauses(`COMMENT ON POLICY ${ident(name)} ON ${rel}`, [`IS ${literal(`Scenario "${placed.scenario.label}"; ${uses.join(', ')}`)};`]));
    }
  }
  if (t.entity.softDelete) {
    const live = `(${LIVE_ROW} OR (SELECT lib.action()) = ANY (ARRAY['restore', 'delete']))`;
    out.push(clauses(`CREATE POLICY "live rows [all]" ON ${rel}`, [`AS RESTRICTIVE FOR ALL TO ${grantees}`, `USING ${live}`, `WITH CHECK ${live};`]),
      `COMMENT ON POLICY "live rows [all]" ON ${rel} IS 'softDelete: a soft-deleted row exists only for restore and (permanent) delete.';`);
  }
  if (ctx.model.api.strategy !== 'RBAC') {
    const org = ORGANIZATION_ROW;
    out.push(clauses(`CREATE POLICY "organization [all]" ON ${rel}`, [`AS RESTRICTIVE FOR ALL TO ${grantees}`, `USING ${org}`, `WITH CHECK ${org};`]),
      `COMMENT ON POLICY "organization [all]" ON ${rel} IS ${literal(`${ctx.model.api.strategy}: every row belongs to the caller's active organization (org claim).`)};`);
  }
  return out;
}

/** Join and sub-resource rows are visible and writable exactly when their owning record is. */
function ownedTableDdl(t: TableIR, owner: TableIR, roles: RoleNames): string[] {
  const grantees = requestRoles(roles);
  const [pk] = primaryKeyOf(owner.entity);
  const org = hasOrganization(t);
  // The row's own columns qualified by its table: unqualified, organization_id named the owner's own column.
  const own = (col: string) => `${qname('app', t.name)}.${ident(col)}`;
  const cond = `(EXISTS (SELECT 1 FROM ${qname('app', owner.name)} o WHERE o.${ident(pk)} = ${own(t.relation!.ownerColumn)}${org ? ` AND o.organization_id = ${own('organization_id')}` : ''}))`;
  const name = pgName(`through ${t.entityName} [all]`);
  return [clauses(`CREATE POLICY ${ident(name)} ON ${qname('app', t.name)}`, [`AS PERMISSIVE FOR ALL TO ${grantees}`, `USING ${cond}`, `WITH CHECK ${cond};`]),
    `COMMENT ON POLICY ${ident(name)} ON ${qname('app', t.name)} IS ${literal(`Rows of ${t.entityName}.${t.relation!.name} follow the access to their ${t.entityName}.`)};`];
}

/**
 * app.<table>_stakeholder_keys(): the keys of the rows whose project the caller owns or is a member of,
 * for the project entity and every entity whose parent chain reaches it. Policies test
 * `<column> IN (SELECT …)`, which PostgreSQL evaluates once per statement as a hashed subplan.
 */
function stakeholderDdl(model: Model, tables: TableIR[]): string[] {
  const projects = model.api.projects;
  if (!projects) return [];
  const out: string[] = [];
  const entityTable = (name: string) => tables.find((t) => t.kind === 'entity' && t.entityName === name)!;
  const keyOf = (t: TableIR) => resourceOf(t, tables).key.column;
  const keyType = (t: TableIR) => resourceOf(t, tables).key.type;
  // pl/pgSQL, not SQL: its query plan is kept for the connection instead of being made on every statement.
  const define = (t: TableIR, body: string[]) => out.push(
    clauses(`CREATE OR REPLACE FUNCTION ${stakeholderKeys(t.name)}() RETURNS SETOF ${keyType(t)}`, [`LANGUAGE plpgsql STABLE ${DEFINER}`, 'AS $fn$']),
    'BEGIN', '  RETURN QUERY', ...body.map((l) => `    ${l}`).map((l, i, a) => (i === a.length - 1 ? `${l};` : l)), 'END $fn$;',
    `COMMENT ON FUNCTION ${stakeholderKeys(t.name)}() IS ${literal(`matchProjectStakeholder: keys of the ${t.entityName} rows in projects the caller owns or is a member of.`)};`);
  const project = entityTable(projects.entity);
  const members = tables.find((t) => t.kind === 'join' && t.entityName === projects.entity && t.relation!.name === projects.members)!;
  const owner = ownerProperty(project.entity);
  // Definer, past the policies: under the organization strategies, the caller's organization's rows alone
  // (keys are the organization's own: another may hold a project with the same key).
  // The caller's claims as initplans, `(SELECT auth.uid())`: read once per statement, not once per row a scan meets.
  const inOrg = (alias: string) => (model.api.strategy === 'RBAC' ? '' : ` AND ${alias}.organization_id = (SELECT auth.org())`);
  define(project, [
    ...(owner ? [`SELECT p.${ident(keyOf(project))} FROM ${qname('app', project.name)} p WHERE p.${ident(owner)} = (SELECT auth.uid())${inOrg('p')}`, 'UNION'] : []),
    `SELECT m.${ident(members.relation!.ownerColumn)} FROM ${qname('app', members.name)} m WHERE m.${ident(members.relation!.targetColumn!)} = (SELECT auth.uid())${inOrg('m')}`,
  ]);
  // Every entity whose parent chain reaches the project: its rows under the parent's keys.
  const reaches = (name: string, seen = new Set<string>()): boolean =>
    name === projects.entity || (!seen.has(name) && !!model.entities[name]?.parent && reaches(model.entities[name]!.parent!.entity, seen.add(name)));
  for (const t of tables.filter((x) => x.kind === 'entity' && x.entityName !== projects.entity && reaches(x.entityName))) {
    const parent = entityTable(t.entity.parent!.entity);
    define(t, [`SELECT x.${ident(keyOf(t))} FROM ${qname('app', t.name)} x WHERE x.${ident(t.entity.parent!.property)} IN (SELECT ${stakeholderKeys(parent.name)}())${inOrg('x')}`]);
  }
  return out;
}

/** Scenario keys -> label, levels and data rules, for the engine's 403 details. */
export function scenarioDescriptors(model: Model, t: TableIR): Record<string, unknown> {
  const ctx: RuleContext = { model, entityName: t.entityName, entity: t.entity };
  const out: Record<string, unknown> = {};
  for (const list of mergedScenarios(model, t.entity).values()) {
    for (const p of list) out[p.key] = { label: p.scenario.label, level: p.level, rules: dataRules(p.scenario.predicate, ctx) };
  }
  return out;
}

/** matchProjectStakeholder's key sets, one function per entity under the projects (they call each other). */
export function stakeholdersDdl(model: Model, tables: TableIR[]): string {
  return stakeholderDdl(model, tables).join('\n');
}

/** A table's row-level security: its PRE_FETCH access function and policies, or an owned table's. */
export function tableAccessDdl(model: Model, t: TableIR, tables: TableIR[], roles: RoleNames): string {
  const rel = qname('app', t.name);
  const out = [`ALTER TABLE ${rel} ENABLE ROW LEVEL SECURITY;`, `SELECT meta.drop_policies(${literal(t.name)});`];
  if (t.kind === 'entity') {
    const ctx: RuleContext = { model, entityName: t.entityName, entity: t.entity };
    const merged = mergedScenarios(model, t.entity);
    out.push(accessFunctionDdl(t, ctx, merged), ...policyDdl(t, ctx, merged, roles),
      // The per-row stakeholder check of earlier versions, replaced by the key sets.
      `DROP FUNCTION IF EXISTS ${fn(t.name, 'stakeholder')}(text);`);
  } else {
    out.push(...ownedTableDdl(t, tables.find((o) => o.kind === 'entity' && o.entityName === t.entityName)!, roles));
  }
  return out.join('\n');
}
