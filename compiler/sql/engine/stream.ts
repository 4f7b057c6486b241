// api.<table>_stream: which events of a page of an entity's change log one stream's caller may see (design 9): the
// rows its read rules allow (app.<table>_changes), narrowed by the list's filters and parent, as positions.
import { ident, literal, pgName, qname } from '../ident.ts';
import { keyEquals, plpgsql, type Shape } from './shape.ts';
import { call, query } from '../layout.ts';
import { head, parentCheck } from './records.ts';
import { embedScenarios } from './embed.ts';

/**
 * Without `before` it only checks, as a list would: the caller may list, the parent is there and readable, the
 * filters are sound. With it: of the first `limit` log rows past (after_tx, after_id) of transactions below `before`
 * (the page lib.<table>_change_records shapes, once for all), the positions (`<tx>-<id>`) the caller may see.
 */
export function stream(s: Shape): string {
  const h = head(s, 'list');
  const fields = `lib.fields(${literal(s.name)})`;
  const rows = `${call(qname('app', pgName(s.name, 'changes')),
    ["($1 ->> 'after_tx')::xid8", "($1 ->> 'after_id')::bigint", "($1 ->> 'before')::xid8", "($1 ->> 'limit')::integer"])} c`;
  return plpgsql(qname('api', pgName(s.name, 'stream')), [['args', 'jsonb']], 'json',
    [...h.declare.filter((l) => !l.startsWith('_key')), '_where text;', '_sql text;', '_visible json;'], [
      parentCheck(s),
      `_where := lib.filter_sql(${fields}, args -> 'filter', '{filter}');`,
      ...(s.parent ? [`IF _parent IS NOT NULL THEN _where := ${literal(`${keyEquals(`t.${ident(s.parent.column)}`, s.parent.type, '$2')} AND `)} || _where; END IF;`] : []),
      "IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;",
      'PERFORM lib.statement_params(args, _parent, 0, 0);',
      ...embedScenarios(s, "coalesce(args -> 'joined', '{}'::jsonb)"),
      // A stream without filters reads no record back from its image.
      `_sql := $q$${query(["SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')", `FROM ${rows}`])}$q$`,
      `  || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::${s.rel}, c.image) t WHERE $q$ || _where END;`,
      '_visible := lib.query_generic(_sql, NULL::json);',
      "RETURN json_build_object('data', _visible);",
    ], `which changes of ${s.entity} (and its links) past a position the caller may list, narrowed by the list's filters and parent (design 9)`);
}
