// app.<table>_changes(after_tx, after_id, before, lim): the change-log rows of an entity table the caller may see (design 9), each
// record image judged by the read policy's own conditions (policies.ts), in one statement for a batch of changes.
import type { Model } from '../model/types.ts';
import type { TableIR } from '../ir/types.ts';
import { mergedScenarios } from '../access/merge.ts';
import type { RuleContext } from '../access/rules.ts';
import { DEFINER, ident, literal, qname, textArray } from './ident.ts';
import { keyEquals } from './engine/shape.ts';
import { fn } from './engine/refusals.ts';
import { accessFunction, LIVE_ROW, ORGANIZATION_ROW, scenarioTree } from './policies.ts';
import { resourceOf } from '../resource/build.ts';

export const changesFunction = (t: TableIR) => fn(t.name, 'changes');
const SIGNATURE = 'xid8, bigint, xid8, integer';
/** Signatures it had before, and its own (dropped first: its columns were others in an earlier version). */
const EARLIER = ['bigint, bigint', 'xid8, bigint, xid8, bigint', SIGNATURE];

/**
 * The function of an entity table, with its manyToMany relations' links (none for join and sub-resource tables). Definer, to read lib.changes: it returns
 * only the rows whose image the caller's claims would let it list now (the scenario that wins `list`, its data rules
 * on the image rebuilt as a row, a live row of the caller's organization), so any caller may call it.
 */
export function changeVisibilityDdl(model: Model, t: TableIR, tables: TableIR[]): string {
  const name = changesFunction(t);
  const drop = EARLIER.map((sig) => `DROP FUNCTION IF EXISTS ${name}(${sig});`).join('\n');
  if (t.kind !== 'entity') return drop;
  const ctx: RuleContext = { model, entityName: t.entityName, entity: t.entity };
  const merged = mergedScenarios(model, t.entity);
  // Volatile, for the action it sets: a session that set request.action itself ('update') must not widen what it sees.
  const whens = (merged.get('list') ?? []).map((p) => `WHEN ${literal(p.key)} THEN ${scenarioTree(p, ctx, merged, 'select')}`);
  const conditions = [
    whens.length ? `CASE _winner\n        ${whens.join('\n        ')}\n        ELSE false END` : 'false',
    ...(t.entity.softDelete ? [LIVE_ROW] : []),
    ...(model.api.strategy !== 'RBAC' ? [ORGANIZATION_ROW] : []),
  ];
  // Only the columns the rules name are rebuilt from an image (jsonb_populate_record converts each key it is given).
  const named = conditions.join(' ');
  const unread = t.columns.map((c) => c.name).filter((c) => !named.includes(ident(c)) && !new RegExp(`\\b${c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(named));
  const judged = unread.length ? `c.image - ${textArray(unread)}` : 'c.image';
  // Links and unlinks of its manyToMany relations are judged by the owner record as it is now (a join row holds no more).
  const joins = tables.filter((j) => j.kind === 'join' && j.entityName === t.entityName).map((j) => j.name);
  const rel = qname('app', t.name), pk = resourceOf(t, tables).key;
  // A join row's owner is read only for a join row (a scalar subquery under CASE), not for each of the entity's own.
  const owner = `(SELECT to_jsonb(o)${t.hiddenColumns.length ? ` - ${textArray(t.hiddenColumns)}` : ''} FROM ${rel} o WHERE ${keyEquals(`o.${ident(pk.column)}`, pk.type, 'c.record_key')})`;
  const image = joins.length ? `CASE WHEN c.table_name = ${literal(t.name)} THEN c.image ELSE ${owner} END` : 'c.image';
  return [
    drop,
    `CREATE OR REPLACE FUNCTION ${name}(after_tx xid8, after_id bigint, before xid8, lim integer)`,
    `RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)`,
    // Its plan is made once per connection (generic): planning the scenarios' conditions anew for every page cost
    // more than reading it (about 3 ms against well under one for a few dozen rows).
    `LANGUAGE plpgsql ${DEFINER} SET plan_cache_mode = force_generic_plan AS $fn$`,
    '#variable_conflict use_column',
    'DECLARE',
    `  _winner text := ${accessFunction(t)}('list');`,
    "  _was text := current_setting('request.action', true);",
    'BEGIN',
    '  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing',
    "  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set",
    '  RETURN QUERY',
    '    SELECT c.id, c.tx, c.action, c.record_key, c.image',
    `    FROM (SELECT c.id, c.tx, c.action, c.record_key, ${image} AS image FROM lib.changes c`,
    `      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN (${[t.name, ...joins].map(literal).join(', ')})`,
    '      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page',
    '    WHERE c.image IS NOT NULL AND EXISTS (',
    `        SELECT FROM jsonb_populate_record(NULL::${rel}, ${judged})  -- the record as that change wrote it (a link: its owner now)`,
    `        WHERE ${conditions.join('\n          AND ')})`,
    '    ORDER BY c.tx, c.id;',
    "  PERFORM set_config('request.action', coalesce(_was, ''), true);",
    'END $fn$;',
    `COMMENT ON FUNCTION ${name}(${SIGNATURE}) IS ${literal(`Of the first lim changes of app.${t.name} (and its links) past a position (tx, id) and of transactions below before, those the caller may list (design 9).`)};`,
  ].join('\n');
}
