// Per entity table, the compiled 403/404 split (spec 5.2): whether a record exists past the policies,
// which data rules of a scenario it breaks, the refusal that names them, and the pre-flight of a parent,
// owner or link target. They run only when a statement returned no row, or before a nested request.
import type { Model } from '../../model/types.ts';
import { mergedScenarios } from '../../access/merge.ts';
import { dataRules, describeRule, ownerProperty, ruleSql, type RuleContext } from '../../access/rules.ts';
import type { TableIR } from '../../ir/types.ts';
import { isGroup, type PredicateGroup, type Rule } from '../../model/types.ts';
import { IDENTITY_RULES } from '../../access/rules/index.ts';
import { DEFINER, ident, literal, pgName, qname } from '../ident.ts';
import { keyCastable, keyEquals, plpgsql, type Shape } from './shape.ts';
import { resourceOf } from '../../resource/build.ts';

const STABLE_DEFINER = ` STABLE ${DEFINER}`;
export const fn = (s: Shape | string, what: string) => qname('app', pgName(typeof s === 'string' ? s : s.name, what));

/**
 * The caller's identity before any row of the table is touched (spec 5.1): no scenario lets it `action` (SQL) the
 * entity, 401 or 403, so a missing record and one it may not see answer alike (no existence oracle).
 */
export const identityFirst = (table: Shape | string, entity: string, action: string) =>
  `IF ${fn(table, 'access')}(${action}) IS NULL THEN PERFORM lib.no_scenario(${action}, ${literal(entity)}); END IF;`;

/** app.<t>_exists(key, parent): the record exists for the caller's API (live, in the organization, under the parent). */
function existsDdl(s: Shape): string {
  const where = [keyEquals(`t.${ident(s.pk)}`, s.keyType, '_key'),
    ...(s.soft ? ['t.deleted_at IS NULL'] : []),
    ...(s.parent ? [`(_parent IS NULL OR t.${ident(s.parent.column)}::text = _parent)`] : []),
    ...(s.org ? ['t.organization_id = auth.org()'] : [])];
  const castable = keyCastable(s, '_key');
  return plpgsql(fn(s, 'exists'), [['_key', 'text'], ['_parent', 'text', 'NULL']], 'boolean', [], [
    ...(castable ? [`IF NOT ${castable} THEN RETURN false; END IF;`] : []),
    `RETURN EXISTS (SELECT 1 FROM ${s.rel} t WHERE ${where.join(' AND ')});`,
  ], `Whether ${s.entity} _key exists (live, in the caller's organization, under _parent), whatever the policies say. Definer: it says only that.`, STABLE_DEFINER);
}

/** app.<t>_scenario(key): {label, level, data rules} of a scenario, for refusals. */
function scenarioDdl(s: Shape, model: Model): string {
  const ctx: RuleContext = { model, entityName: s.table.entityName, entity: s.table.entity };
  const seen = new Map<string, string>();
  for (const list of mergedScenarios(model, s.table.entity).values()) {
    for (const p of list) {
      const rules = dataRules(p.scenario.predicate, ctx).map((r) => r.rule).join(', ');
      seen.set(p.key, `ARRAY[${[p.scenario.label, p.level, rules].map(literal).join(', ')}]`);
    }
  }
  const whens = [...seen].map(([key, v]) => `    WHEN ${literal(key)} THEN ${v}`);
  return [`CREATE OR REPLACE FUNCTION ${fn(s, 'scenario')}(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$`,
    ...(whens.length ? ['  SELECT CASE _scenario', ...whens, '  END'] : ['  SELECT NULL::text[]']), '$fn$;',
    `COMMENT ON FUNCTION ${fn(s, 'scenario')}(text) IS ${literal(`Label, level and data rules of each scenario of ${s.entity}.`)};`].join('\n');
}

/**
 * A scenario's rules, each computed once for a refusal: its identity rules as `_g.g<n>` (one per distinct condition),
 * its data rules as `_r.r<n>` with the identity rules of their enclosing and-groups (their guards: PRE_FETCH pruned
 * the branches whose identity fails, so only rules of kept branches are reported), and its tree over those names.
 */
interface Explained { identities: string[]; rules: Array<{ rule: string; sql: string; guards: string[] }>; tree: string }

function explained(g: PredicateGroup, ctx: RuleContext): Explained {
  const out: Explained = { identities: [], rules: [], tree: '' };
  const identity = (c: Rule) => {
    const sql = ruleSql(c, ctx, 'row');
    if (sql === 'true') return sql;
    if (!out.identities.includes(sql)) out.identities.push(sql);
    return `_g.g${out.identities.indexOf(sql)}`;
  };
  // The same traversal and `true` folding as treeSql (compiler/access/rules.ts), over the computed names.
  const walk = (group: PredicateGroup, guards: string[]): string => {
    const here = group.style === 'and'
      ? [...guards, ...group.children.filter((c): c is Rule => !isGroup(c) && IDENTITY_RULES.includes(c.type)).map(identity).filter((x) => x !== 'true')]
      : guards;
    const all = group.children.map((c) => {
      if (isGroup(c)) return walk(c, here);
      if (IDENTITY_RULES.includes(c.type)) return identity(c);
      out.rules.push({ rule: describeRule(c), sql: ruleSql(c, ctx, 'row'), guards: here });
      return `_r.r${out.rules.length - 1}`;
    });
    if (group.style !== 'and' && all.includes('true')) return 'true';
    const parts = group.style === 'and' ? all.filter((p) => p !== 'true') : all;
    if (parts.length === 0) return group.style === 'and' ? 'true' : 'false';
    return parts.length === 1 ? parts[0]! : `(${parts.join(group.style === 'and' ? ' AND ' : ' OR ')})`;
  };
  out.tree = walk(g, []);
  return out;
}

/**
 * matchProjectStakeholder probed for one row: the caller owns or is a member of the project the key `column` names
 * (through the parent chain for an entity below the projects), each step one lookup by key. The policies build the
 * caller's whole key set once per statement (app.<table>_stakeholder_keys), which pays off over many rows; a refusal
 * judges one, where the set cost more than the rest of the refusal (a call, two queries, a hash of every key).
 * Definer, as the refusal: past the policies, within the caller's organization under the organization strategies.
 */
function stakeholderProbe(model: Model, tables: TableIR[]): (table: string, column: string) => string {
  const projects = model.api.projects!;
  const entityTable = (name: string) => tables.find((t) => t.kind === 'entity' && t.entityName === name)!;
  const keyOf = (t: TableIR) => resourceOf(t, tables).key.column;
  const project = entityTable(projects?.entity ?? '');
  const inOrg = (alias: string) => (model.api.strategy === 'RBAC' ? '' : ` AND ${alias}.organization_id = (SELECT auth.org())`);
  const probe = (table: string, value: string, depth: number): string => {
    const t = tables.find((x) => x.kind === 'entity' && x.name === table)!;
    if (t.entityName === projects.entity) {
      const members = tables.find((x) => x.kind === 'join' && x.entityName === projects.entity && x.relation!.name === projects.members)!;
      const owner = ownerProperty(project.entity);
      const byMembers = `EXISTS (SELECT 1 FROM ${qname('app', members.name)} m${depth} WHERE m${depth}.${ident(members.relation!.ownerColumn)} = ${value}`
        + ` AND m${depth}.${ident(members.relation!.targetColumn!)} = (SELECT auth.uid())${inOrg(`m${depth}`)})`;
      return owner
        ? `(EXISTS (SELECT 1 FROM ${qname('app', t.name)} p${depth} WHERE p${depth}.${ident(keyOf(t))} = ${value} AND p${depth}.${ident(owner)} = (SELECT auth.uid())${inOrg(`p${depth}`)}) OR ${byMembers})`
        : `(${byMembers})`;
    }
    const parent = entityTable(t.entity.parent!.entity);
    const x = `x${depth}`;
    return `(EXISTS (SELECT 1 FROM ${qname('app', t.name)} ${x} WHERE ${x}.${ident(keyOf(t))} = ${value}${inOrg(x)}`
      + ` AND ${probe(parent.name, `${x}.${ident(t.entity.parent!.property)}`, depth + 1)}))`;
  };
  return (table, column) => probe(table, `t.${column}`, 0);
}

/**
 * Per scenario, one statement that reads the record `where` finds (definer, past the policies) and says which data
 * rules of the scenario it breaks: '' when its tree holds (though a rule of another or-branch fails), no row when
 * there is none. Each rule is computed once, in a subquery kept apart (OFFSET 0): written out in the tree and again
 * in the list of failures, a stakeholder rule built the caller's project keys twice, each a query of its own.
 * One statement per scenario, chosen by IF: one holding every scenario's rules cost its whole plan's start-up on
 * each call, whichever scenario was asked.
 */
function failingBranches(s: Shape, model: Model, tables: TableIR[], where: string): string[] {
  const ctx: RuleContext = { model, entityName: s.table.entityName, entity: s.table.entity, stakeholder: stakeholderProbe(model, tables) };
  const whens = new Map<string, string>();
  for (const list of mergedScenarios(model, s.table.entity).values()) {
    for (const p of list) {
      const e = explained(p.scenario.predicate, ctx);
      if (!e.rules.length) { whens.set(p.key, `SELECT ''::text FROM ${s.rel} t WHERE ${where}`); continue; }
      // The caller's conditions once (each is a query on the claims), then the record's rules once each, a rule under
      // its guards: the tree ANDs it with them anyway, and a caller without them never builds what it needs.
      const identities = e.identities.length ? e.identities.map((sql, i) => `${sql} AS g${i}`).join(', ') : 'true AS g';
      const computed = e.rules.map((r, i) =>
        `coalesce(${r.guards.length ? `CASE WHEN (${r.guards.join(' AND ')}) IS NOT FALSE THEN ${r.sql} END` : r.sql}, false) AS r${i}`).join(', ');
      const checks = e.rules.map((r, i) => `CASE WHEN ${r.guards.length ? `(NOT (${r.guards.join(' AND ')}) OR _r.r${i}) IS NOT TRUE` : `NOT _r.r${i}`} THEN ${literal(r.rule)} END`);
      whens.set(p.key, `SELECT CASE WHEN ${e.tree} THEN '' ELSE concat_ws(', ', ${checks.join(', ')}) END\n`
        + `    FROM (SELECT ${identities} OFFSET 0) _g,\n`
        + `    LATERAL (SELECT ${computed} FROM ${s.rel} t WHERE ${where} OFFSET 0) _r`);
    }
  }
  const branches = [...whens].flatMap(([key, sql], i) => [`${i === 0 ? 'IF' : 'ELSIF'} _scenario = ${literal(key)} THEN`, `  ${sql} INTO _failing;`]);
  return branches.length ? [...branches, 'ELSE', `  SELECT ''::text FROM ${s.rel} t WHERE ${where} INTO _failing;`, 'END IF;']
    : [`SELECT ''::text FROM ${s.rel} t WHERE ${where} INTO _failing;`];
}

/** app.<t>_failing(scenario, key): the data rules of the scenario that record `key` breaks (definer), for deny. */
function failingDdl(s: Shape, model: Model, tables: TableIR[]): string {
  // Definer, past the policies: the caller's organization's record alone (another may hold the same key).
  const where = `${keyEquals(`t.${ident(s.pk)}`, s.keyType, '_key')}${s.org ? ' AND t.organization_id = auth.org()' : ''}`;
  return plpgsql(fn(s, 'failing'), [['_scenario', 'text'], ['_key', 'text']], 'text', ['_failing text;'], [
    ...failingBranches(s, model, tables, where),
    'RETURN _failing;',
  ], `The data rules of a ${s.entity} scenario that an existing record breaks (for 403 details).`, STABLE_DEFINER);
}

/** app.<t>_deny(action, key): 403 naming the winner's failing rules, when record `key` breaks any. */
function denyDdl(s: Shape): string {
  const e = literal(s.entity);
  return plpgsql(fn(s, 'deny'), [['_action', 'text'], ['_key', 'text']], 'void',
    [`_winner text := ${fn(s, 'access')}(_action);`, '_failing text;', '_about text[];'], [
      `IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, ${e}); END IF;`,
      `_failing := ${fn(s, 'failing')}(_winner, _key);`,
      `IF _failing <> '' THEN`,
      `  _about := ${fn(s, 'scenario')}(_winner);`,
      '  RAISE EXCEPTION USING ERRCODE = \'PT403\',',
      `    MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, ${e}, _failing),`,
      "    DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;",
      'END IF;',
    ], `Refuses (403) when the scenario that wins _action rejects the existing ${s.entity} _key, naming the rules it breaks.`);
}

/**
 * app.<t>_refusal(action, key, parent, star): why a record the caller asked for was not returned, as the refusal
 * ({refused: {code, message, detail, hint}}) a raise would carry: 404 when there is none (412 for If-Match: *), 401/403
 * when no scenario lets the caller act, 403 naming the winner's rules the record breaks, else a plain 403. One
 * statement finds the record (live, in the organization, under the parent) and judges it under the winner.
 */
function refusalDdl(s: Shape, model: Model, tables: TableIR[]): string {
  const e = literal(s.entity);
  const where = [keyEquals(`t.${ident(s.pk)}`, s.keyType, '_key'),
    ...(s.soft ? ['t.deleted_at IS NULL'] : []),
    ...(s.parent ? [`(_parent IS NULL OR t.${ident(s.parent.column)}::text = _parent)`] : []),
    ...(s.org ? ['t.organization_id = auth.org()'] : [])].join(' AND ');
  const castable = keyCastable(s, '_key');
  const refused = (code: string, message: string, detail: string, hint = 'NULL') =>
    `RETURN json_build_object('refused', json_build_object('code', ${literal(code)}, 'message', ${message}, 'detail', ${detail}, 'hint', ${hint}));`;
  return plpgsql(fn(s, 'refusal'), [['_action', 'text'], ['_key', 'text'], ['_parent', 'text', 'NULL'], ['_star', 'boolean', 'false']], 'json',
    [`_scenario text := ${fn(s, 'access')}(_action);`, '_failing text;', '_about text[];'], [
      ...(castable ? [`IF ${castable} THEN`] : []),
      ...failingBranches(s, model, tables, where).map((l) => (castable ? `  ${l}` : l)),
      ...(castable ? ['END IF;'] : []),
      'IF _failing IS NULL THEN',
      `  IF _star THEN ${refused('PT412', `format('If-Match: * requires an existing %s, and there is none with %s "%s"', ${e}, ${literal(s.pk)}, _key)`,
        "jsonb_build_object('current', NULL, 'supplied', '*')::text",
        "'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.'")} END IF;`,
      `  ${refused('PT404', `format('no %s with %s "%s"', ${e}, ${literal(s.pk)}, coalesce(_key, ''))`, "jsonb_build_object('property', NULL, 'rule', NULL)::text")}`,
      'END IF;',
      'IF _scenario IS NULL THEN',
      `  IF auth.uid() IS NULL THEN ${refused('PT401', `format('No access scenario lets an anonymous caller %s %s: sign in.', _action, ${e})`, 'NULL')} END IF;`,
      `  ${refused('PT403', `format('No access scenario lets you %s %s.', _action, ${e})`, 'NULL')}`,
      'END IF;',
      `IF _failing <> '' THEN`,
      `  _about := ${fn(s, 'scenario')}(_scenario);`,
      `  ${refused('PT403', `format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, ${e}, _failing)`,
        "jsonb_build_object('scenario', _about[1], 'rules', _failing)::text")}`,
      'END IF;',
      refused('PT403', `format('You may not %s this %s.', _action, ${e})`, 'NULL'),
    ], `Why a ${s.entity} the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.`, STABLE_DEFINER);
}

/** app.<t>_refuse(action, key, parent, star): the record was not returned: raises its refusal (app.<t>_refusal). */
function refuseDdl(s: Shape): string {
  return plpgsql(fn(s, 'refuse'), [['_action', 'text'], ['_key', 'text'], ['_parent', 'text', 'NULL'], ['_star', 'boolean', 'false']], 'void', [], [
    `PERFORM lib.raise_refusal(${fn(s, 'refusal')}(_action, _key, _parent, _star));`,
  ], `A ${s.entity} the caller cannot _action was asked for: 403 when it exists, else 404 (raised).`);
}

/** app.<t>_require(key, action): pre-flight of a parent, relation owner or link target, as `action`. */
function requireDdl(s: Shape): string {
  const setting = literal(`request.scenario.${s.name}`);
  const castable = keyCastable(s, '_key');
  const found = `SELECT EXISTS (SELECT 1 FROM ${s.rel} t WHERE ${keyEquals(`t.${ident(s.pk)}`, s.keyType, '_key')}${s.soft ? ' AND t.deleted_at IS NULL' : ''}) INTO _found;`;
  return plpgsql(fn(s, 'require'), [['_key', 'text'], ['_action', 'text']], 'void', [
    '_outer_action text := lib.action();',
    `_outer_scenario text := lib.scenario(${literal(s.name)});`,
    // Identity before any row: no winner is 401/403; the winner and the action are recorded for the policies.
    `_winner text := lib.enter(${literal(s.name)}, _action, ${fn(s, 'access')}(_action), ${literal(s.entity)});`,
    '_found boolean := false;',
    '_set text;',
  ], [
    ...(castable ? [`IF ${castable} THEN`, `  ${found}`, 'END IF;'] : [found]),
    // Refused as _action: its rules (lifecycle among them, which gives way to a create) name what fails.
    `IF NOT _found THEN PERFORM ${fn(s, 'refuse')}(_action, _key); END IF;`,
    "_set := set_config('request.action', coalesce(_outer_action, ''), true)",
    `  || set_config(${setting}, coalesce(_outer_scenario, ''), true);`,
  ], `Pre-flight: the caller must be able to _action ${s.entity} _key (404 when missing, 403 when hidden).`);
}

/**
 * app.<t>_within(key, above): the parent pre-flight along a nested path. `above` holds the keys of the
 * record's ancestors, outermost first; each must exist and contain the next (404 naming the first that
 * does not), and each is pre-flighted as a read, outermost first, then the record itself.
 */
function withinDdl(s: Shape): string {
  const depth = "jsonb_array_length(coalesce(_above, '[]'))";
  const up = s.parent
    ? [`IF ${depth} > 0 THEN`,
      `  PERFORM ${fn(s.parent.table, 'within')}(_above ->> -1, _above - -1);`,
      `  ${identityFirst(s, s.entity, "'read'")}`,
      `  IF NOT ${fn(s, 'exists')}(_key, _above ->> -1) THEN PERFORM lib.not_found(${literal(s.entity)}, ${literal(s.pk)}, _key); END IF;`,
      'END IF;']
    : [`IF ${depth} > 0 THEN PERFORM lib.bad_request(${literal(`${s.entity} has no parent`)}); END IF;`];
  return plpgsql(fn(s, 'within'), [['_key', 'text'], ['_above', 'jsonb']], 'void', [], [
    ...up,
    `PERFORM ${fn(s, 'require')}(_key, 'read');`,
  ], `Nested paths: ${s.entity} _key, under the ancestors _above (outermost first), each existing, containing the next and readable.`);
}

export function refusalsDdl(s: Shape, model: Model, tables: TableIR[]): string {
  return [existsDdl(s), scenarioDdl(s, model), failingDdl(s, model, tables), denyDdl(s), refusalDdl(s, model, tables), refuseDdl(s), requireDdl(s), withinDdl(s)].join('\n\n');
}
