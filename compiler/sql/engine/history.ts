// Record history (design 9): api.<table>_history lists a record's versions, or answers one, from the change log,
// readable by whoever may read the record now; and how long each table's log rows are kept (lib.changes_keep).
import type { Model } from '../../model/types.ts';
import type { TableIR } from '../../ir/types.ts';
import { isFile } from '../../ir/columns.ts';
import { historyOf } from '../../model/history.ts';
import { mergedScenarios } from '../../access/merge.ts';
import type { RuleContext } from '../../access/rules.ts';
import { accessFunction, LIVE_ROW, ORGANIZATION_ROW, scenarioTree } from '../policies.ts';
import { DEFINER, ident, literal, pgName, qname } from '../ident.ts';
import { fn } from './refusals.ts';
import { head, keyCheck, parentCheck } from './records.ts';
import { jsonObject, keyCastable, keyEquals, plpgsql, recordWhere, type Shape } from './shape.ts';

/** The table's row in lib.changes_keep: a history's keep (NULL: for ever), else 0 (the log's retention alone). */
export function historyKeepDdl(t: TableIR): string {
  if (t.kind === 'subresource') return '';  // logged as its owner's update
  const policy = t.kind === 'entity' ? historyOf(t.entity) : undefined;
  const keep = policy ? policy.keepSeconds ?? 'NULL' : 0;
  return `INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES (${literal(t.name)}, ${keep})\n`
    + '  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;';
}

/** Tables the model no longer has: their rows go by the log's retention alone. */
export function staleKeepDdl(tables: TableIR[]): string {
  const names = tables.filter((t) => t.kind !== 'subresource').map((t) => literal(t.name));
  return `UPDATE lib.changes_keep SET keep_seconds = 0 WHERE keep_seconds IS DISTINCT FROM 0 AND table_name <> ALL (ARRAY[${names.join(', ')}]::text[]);`;
}

/** The version entry of log row `c` with the record image rebuilt as row `t`: what a GET shows, file links only while held. */
function entryJson(s: Shape): string {
  const files = new Set(s.table.columns.filter((c) => c.prop && isFile(c.prop)).map((c) => c.name));
  const data = jsonObject(s.output.map((c) => [s.keys[c] ?? c, files.has(c) ? `lib.held_file(t.${ident(c)})` : `t.${ident(c)}`]));
  return `json_build_object('version', c.etag::bigint, 'etag', c.etag, 'action', c.action, 'at', c.at, 'by', c.sub,\n      'data', ${data})`;
}

/**
 * app.<table>_versions: the record's log rows, newest first (`_version`: the row that made that version). Definer, to
 * read lib.changes; it gives nothing unless the caller may read the record now (the read scenario's own conditions, as
 * its policy has them, on the live row of the caller's organization), so any caller may call it. Only this record's
 * rows since it was last created count: a key used again after a permanent delete starts a new history.
 */
function versionsDdl(s: Shape, model: Model): string {
  const t = s.table;
  const ctx: RuleContext = { model, entityName: t.entityName, entity: t.entity };
  const merged = mergedScenarios(model, t.entity);
  const whens = (merged.get('read') ?? []).map((p) => `WHEN ${literal(p.key)} THEN ${scenarioTree(p, ctx, merged, 'select')}`);
  const conditions = [
    keyEquals(ident(s.pk), s.keyType, '_key'),
    ...(s.parent ? [`(_parent IS NULL OR ${ident(s.parent.column)}::text = _parent)`] : []),
    whens.length ? `CASE _winner\n        ${whens.join('\n        ')}\n        ELSE false END` : 'false',
    ...(s.soft ? [LIVE_ROW] : []),
    ...(model.api.strategy !== 'RBAC' ? [ORGANIZATION_ROW] : []),
  ];
  // Under the organization strategies a key is unique within an organization only: the caller's organization's rows.
  const record = `c.table_name = ${literal(s.name)} AND c.record_key = _key${s.org ? " AND c.image ->> 'organization_id' = (SELECT auth.org())" : ''}`;
  const mine = `${record} AND c.id >= _since`;
  const name = fn(s, 'versions');
  const signature = `${name}${VERSIONS_PARAMS}`;
  const castable = keyCastable(s, '_key');
  return [
    `CREATE OR REPLACE FUNCTION ${name}(_key text, _parent text, _version text, _limit integer, _offset bigint,`,
    '  OUT readable boolean, OUT total bigint, OUT entries json)',
    `LANGUAGE plpgsql ${DEFINER} AS $fn$`,
    'DECLARE',
    `  _winner text := ${accessFunction(t)}('read');`,
    "  _was text := current_setting('request.action', true);",
    '  _since bigint;',
    'BEGIN',
    ...(castable ? [`  IF NOT ${castable} THEN readable := false; RETURN; END IF;`] : []),
    "  PERFORM set_config('request.action', 'read', true);  -- the rules of a read, whatever the session set",
    `  readable := _winner IS NOT NULL AND EXISTS (SELECT FROM ${s.rel} WHERE ${conditions.join('\n    AND ')});`,
    "  PERFORM set_config('request.action', coalesce(_was, ''), true);",
    '  IF NOT readable THEN RETURN; END IF;',
    `  SELECT coalesce(max(c.id), 0) INTO _since FROM lib.changes c WHERE ${record} AND c.action = 'created';`,
    '  IF _version IS NOT NULL THEN',
    `    SELECT json_agg(${entryJson(s)}) INTO entries`,
    `    FROM (SELECT * FROM lib.changes c WHERE ${mine} AND c.etag = _version ORDER BY c.id LIMIT 1) c`,
    `    CROSS JOIN LATERAL jsonb_populate_record(NULL::${s.rel}, c.image) t;`,
    '    RETURN;',
    '  END IF;',
    `  SELECT count(*) INTO total FROM lib.changes c WHERE ${mine};`,
    `  SELECT coalesce(json_agg(${entryJson(s)} ORDER BY c.id DESC), '[]') INTO entries`,
    `  FROM (SELECT * FROM lib.changes c WHERE ${mine} ORDER BY c.id DESC LIMIT _limit OFFSET _offset) c`,
    `  CROSS JOIN LATERAL jsonb_populate_record(NULL::${s.rel}, c.image) t;`,
    'END $fn$;',
    `COMMENT ON FUNCTION ${signature} IS ${literal(`The versions of ${s.entity} _key the caller may read now, newest first, from lib.changes (design 9).`)};`,
  ].join('\n');
}

/**
 * api.<table>_history(args): {id, parent?, version?, page?, per_page?}. The record is read first, as a GET reads it
 * (its parent chain, then the row under the policies), so a caller who may not read it gets the GET's 404 or 403.
 * Without `version`: {data: [entry…], meta}; with it: {data: entry}, 404 when the record has no such version.
 */
function historyFn(s: Shape): string {
  const h = head(s, 'history');
  const versions = fn(s, 'versions');
  return plpgsql(qname('api', pgName(s.name, 'history')), [['args', 'jsonb']], 'json', [...h.declare,
    "_version text := args ->> 'version';", '_page int := lib.page(args);', '_per_page int := lib.per_page(args);',
    '_readable boolean;', '_total bigint;', '_entries json;'], [
    ...keyCheck(s),
    parentCheck(s),
    `PERFORM FROM ${s.rel} t WHERE ${recordWhere(s)};`,
    `IF NOT FOUND THEN PERFORM ${fn(s, 'refuse')}(${literal(h.action)}, _key, _parent); END IF;`,
    `SELECT v.readable, v.total, v.entries INTO _readable, _total, _entries`,
    `  FROM ${versions}(_key, _parent, _version, _per_page, (_page - 1)::bigint * _per_page) v;`,
    `IF NOT _readable THEN PERFORM ${fn(s, 'refuse')}(${literal(h.action)}, _key, _parent); END IF;`,
    'IF _version IS NOT NULL THEN',
    '  IF _entries IS NULL THEN',
    `    PERFORM lib.refuse('PT404', format('%s "%s" has no version %s (or it is no longer kept)', ${literal(s.entity)}, _key, _version), NULL, NULL);`,
    '  END IF;',
    `  RETURN json_build_object('data', _entries -> 0, 'scenario', ${h.scenarioLabel});`,
    'END IF;',
    "RETURN json_build_object('data', _entries, 'meta', json_build_object('total', _total, 'count', 'exact', 'page', _page, 'per_page', _per_page),",
    `  'scenario', ${h.scenarioLabel});`,
  ], `history of a ${s.entity}: its versions newest first, or one version (design 9), for whoever may read it`);
}

const VERSIONS_PARAMS = '(text, text, text, integer, bigint)';

/** The history functions of an entity table that keeps history; otherwise the removal of its versions function. */
export function historyFunctions(s: Shape, model: Model): Array<[string, string]> {
  if (s.table.kind !== 'entity') return [];
  if (!historyOf(s.table.entity)) return [['versions', `DROP FUNCTION IF EXISTS ${fn(s, 'versions')}${VERSIONS_PARAMS};  -- no history kept`]];
  return [['versions', versionsDdl(s, model)], ['history', historyFn(s)]];
}
