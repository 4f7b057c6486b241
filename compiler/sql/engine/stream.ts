// api.<table>_stream: a page of an entity's change stream as one subscriber sees it (design 9): the change-log rows
// its read rules allow (app.<table>_changes), narrowed by the list's filters and parent, each record shaped as a GET.
import { ident, literal, pgName, qname } from '../ident.ts';
import { keyEquals, plpgsql, rowJsonText, type Shape } from './shape.ts';
import { head, parentCheck } from './records.ts';
import { embedScenarios } from './embed.ts';

/** A manyToMany relation of the entity, whose links and unlinks are events of its stream. */
export interface StreamLink { table: string; relation: string; targetColumn: string; edge: string[] }

/** A link's event data: {relation, target, edge}, from the join row the change wrote (c.link, c.source its table). */
function linkData(links: StreamLink[]): string {
  const each = (value: (l: StreamLink) => string) => `CASE c.source ${links.map((l) => `WHEN ${literal(l.table)} THEN ${value(l)}`).join(' ')} END`;
  const edge = (l: StreamLink) => `json_build_object(${l.edge.map((e) => `${literal(e)}, c.link -> ${literal(e)}`).join(', ')})`;
  return `json_build_object('relation', ${each((l) => literal(l.relation))}, 'target', ${each((l) => `c.link ->> ${literal(l.targetColumn)}`)}, 'edge', ${each(edge)})`;
}

/**
 * Without `before` it only checks, as a list would: the caller may list, the parent is there and readable, the
 * filters are sound. With it: the events past (after_tx, after_id) of transactions below `before`, `limit` log
 * rows read at most, and the position of the last row read (so a page the filters emptied still moves on).
 */
export function stream(s: Shape, links: StreamLink[]): string {
  const h = head(s, 'list');
  const fields = `lib.fields(${literal(s.name)})`;
  const data = [
    ...(links.length ? [`WHEN c.link IS NOT NULL THEN ${linkData(links)}`] : []),
    "WHEN c.action = 'deleted' THEN NULL",
    `ELSE ${rowJsonText(s)}`,
  ];
  const event = `json_build_object('id', c.tx::text || '-' || c.id::text, 'action', c.action, 'key', c.record_key, 'etag', c.etag, `
    + `'at', c.at, 'data', CASE ${data.join(' ')} END)`;
  const rows = `${qname('app', pgName(s.name, 'changes'))}(($1 ->> 'after_tx')::xid8, ($1 ->> 'after_id')::bigint, ($1 ->> 'before')::xid8, $3) c`;
  return plpgsql(qname('api', pgName(s.name, 'stream')), [['args', 'jsonb']], 'json',
    [...h.declare.filter((l) => !l.startsWith('_key')), '_where text;', '_sql text;', '_page lib.change_page;'], [
      parentCheck(s),
      `_where := lib.filter_sql(${fields}, args -> 'filter', '{filter}');`,
      ...(s.parent ? [`IF _parent IS NOT NULL THEN _where := ${literal(`${keyEquals(`t.${ident(s.parent.column)}`, s.parent.type, '$2')} AND `)} || _where; END IF;`] : []),
      "IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;",
      "PERFORM lib.statement_params(args, _parent, (args ->> 'limit')::integer, 0);",
      ...embedScenarios(s, "coalesce(args -> 'joined', '{}'::jsonb)"),
      // Every row read moves the position on; only those the filters keep become events.
      `_sql := $q$SELECT coalesce(json_agg(${event} ORDER BY c.tx, c.id) FILTER (WHERE $q$ || _where || $q$), '[]'),`,
      '    (array_agg(c.tx ORDER BY c.tx DESC, c.id DESC))[1], (array_agg(c.id ORDER BY c.tx DESC, c.id DESC))[1], count(*)::integer',
      `  FROM ${rows} CROSS JOIN LATERAL jsonb_populate_record(NULL::${s.rel}, c.image) t$q$;`,
      '_page := lib.query_prepared(_sql, NULL::lib.change_page);',
      "RETURN json_build_object('data', _page.events, 'last', _page.last_tx::text || '-' || _page.last_id::text, 'read', _page.n);",
    ], `the change stream of ${s.entity}: events past a position that the caller may list, narrowed by the list's filters and parent (design 9)`);
}
