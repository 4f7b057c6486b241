// Per entity table, the compiled 403/404 split (spec 5.2): whether a record exists past the policies,
// which data rules of a scenario it breaks, the refusal that names them, and the pre-flight of a parent,
// owner or link target. They run only when a statement returned no row, or before a nested request.
import type { Model } from '../../model/types.ts';
import { mergedScenarios } from '../../access/merge.ts';
import { dataRules, treeSql, type RuleContext } from '../../access/rules.ts';
import { DEFINER, ident, literal, pgName, qname } from '../ident.ts';
import { keyCastable, keyEquals, plpgsql, type Shape } from './shape.ts';

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
 * app.<t>_failing(scenario, key): the data rules of the scenario that record `key` breaks (definer); none
 * when its tree holds for the record, though a rule of another or-branch fails (that branch is not needed).
 */
function failingDdl(s: Shape, model: Model): string {
  const ctx: RuleContext = { model, entityName: s.table.entityName, entity: s.table.entity };
  const whens = new Map<string, string>();
  for (const list of mergedScenarios(model, s.table.entity).values()) {
    for (const p of list) {
      const checks = dataRules(p.scenario.predicate, ctx).map((r) =>
        `CASE WHEN (NOT (${r.guard}) OR coalesce(${r.sql}, false)) IS NOT TRUE THEN ${literal(r.rule)} END`);
      const holds = treeSql(p.scenario.predicate, ctx, 'row');
      whens.set(p.key, checks.length ? `CASE WHEN coalesce(${holds}, false) THEN '' ELSE concat_ws(', ', ${checks.join(', ')}) END` : "''");
    }
  }
  // One statement per scenario, chosen by IF: one statement holding every scenario's rules cost its whole plan's
  // start-up on each call (a refused read: about 0.3 ms of the 0.35 its refusal took), whichever scenario was asked.
  const from = `FROM ${s.rel} WHERE ${keyEquals(ident(s.pk), s.keyType, '_key')}${s.org ? ' AND organization_id = auth.org()' : ''}`;
  const branches = [...whens].flatMap(([key, sql], i) => [
    `${i === 0 ? 'IF' : 'ELSIF'} _scenario = ${literal(key)} THEN`,
    // Definer, past the policies: the caller's organization's record alone (another may hold the same key).
    `  SELECT ${sql} ${from} INTO _failing;`,
  ]);
  return plpgsql(fn(s, 'failing'), [['_scenario', 'text'], ['_key', 'text']], 'text', ['_failing text;'], [
    ...(branches.length ? [...branches, 'END IF;'] : [`SELECT ''::text ${from} INTO _failing;`]),
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

/** app.<t>_refuse(action, key, parent, star): the record was not returned: 403 when it exists, else 404 (412 for If-Match: *). */
function refuseDdl(s: Shape): string {
  const e = literal(s.entity);
  return plpgsql(fn(s, 'refuse'), [['_action', 'text'], ['_key', 'text'], ['_parent', 'text', 'NULL'], ['_star', 'boolean', 'false']], 'void', [], [
    `IF ${fn(s, 'exists')}(_key, _parent) THEN`,
    `  PERFORM ${fn(s, 'deny')}(_action, _key);`,
    `  RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('You may not %s this %s.', _action, ${e});`,
    'END IF;',
    `IF _star THEN PERFORM lib.absent_for_star(${e}, ${literal(s.pk)}, _key); END IF;`,
    `PERFORM lib.not_found(${e}, ${literal(s.pk)}, _key);`,
  ], `A ${s.entity} the caller cannot _action was asked for: 403 when it exists, else 404.`);
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

export function refusalsDdl(s: Shape, model: Model): string {
  return [existsDdl(s), scenarioDdl(s, model), failingDdl(s, model), denyDdl(s), refuseDdl(s), requireDdl(s), withinDdl(s)].join('\n\n');
}
