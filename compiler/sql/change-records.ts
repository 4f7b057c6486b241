// lib.<table>_change_records: a page of an entity's change log (its rows and its links') shaped once for every
// stream of a gateway; each stream's caller then gets only the positions its rules allow (api.<table>_stream).
import type { TableIR } from '../ir/types.ts';
import { DEFINER, literal, pgName, qname } from './ident.ts';
import { roleSql, type RoleNames } from './roles.ts';
import { rowJsonText, shapeOf } from './engine/shape.ts';
import { buildObject, caseExpr, fill, hang } from './layout.ts';

/** The function's name, from the table's (the gateway's hub names it so too). */
export const changeRecordsFunction = (table: string) => qname('lib', pgName(table, 'change_records'));

/**
 * Definer, executable by the gateway's login alone (never by a request role: it shows every change): the events past a
 * position, of transactions below `before`, `lim` log rows at most, each record shaped as a GET shapes it (wire names, no
 * hidden column); a link's data is {relation, target, edge}. Returns {data, last, read}: `last` the position of the
 * last row read, which bounds what each stream's caller is then asked about.
 */
export function changeRecordsDdl(t: TableIR, tables: TableIR[], roles: RoleNames): string {
  const name = changeRecordsFunction(t.name);
  // In lib, where the gateway's login may run what is granted to it; app is the request roles' (and its definers PUBLIC's).
  const earlier = `DROP FUNCTION IF EXISTS ${qname('app', pgName(t.name, 'change_records'))}(xid8, bigint, xid8, integer);`;
  if (t.kind !== 'entity') return `${earlier}\nDROP FUNCTION IF EXISTS ${name}(xid8, bigint, xid8, integer);`;
  const s = shapeOf(t, tables, 0);
  const joins = tables.filter((j) => j.kind === 'join' && j.entityName === t.entityName);
  const each = (value: (j: TableIR) => string) => caseExpr([`c.table_name`, ...joins.map((j) => `WHEN ${literal(j.name)} THEN ${value(j)}`)]);
  const edge = (j: TableIR) => buildObject('json_build_object', (j.relation!.edge ?? []).map((e) => [literal(e), `c.image -> ${literal(e)}`]));
  const data = [
    ...(joins.length ? [`WHEN c.table_name <> ${literal(t.name)} THEN ${buildObject('json_build_object', [["'relation'", each((j) => literal(j.relation!.name))],
      ["'target'", each((j) => `c.image ->> ${literal(j.relation!.targetColumn!)}`)], ["'edge'", each(edge)]])}`] : []),
    "WHEN c.action = 'deleted' THEN NULL",
    `ELSE ${rowJsonText(s)}`,
  ];
  const record = buildObject('json_build_object', [["'id'", "c.tx::text || '-' || c.id::text"], ["'action'", 'c.action'], ["'key'", 'c.record_key'],
    ["'etag'", 'c.etag'], ["'at'", 'c.at'], ["'data'", caseExpr(data)]]);
  const page = buildObject('json_build_object', [["'data'", `coalesce(json_agg(${record} ORDER BY c.tx, c.id), '[]')`],
    ["'last'", "(array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1]"], ["'read'", 'count(*)']]);
  return [
    earlier,
    `CREATE OR REPLACE FUNCTION ${name}(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json`,
    `LANGUAGE sql STABLE ${DEFINER} AS $fn$`,
    hang(`  SELECT ${page}`),
    '  FROM (SELECT * FROM lib.changes c',
    hang(`    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ${fill('(', [t, ...joins].map((x) => literal(x.name)), ')')}`),
    '    ORDER BY c.tx, c.id LIMIT lim) c',
    `  LEFT JOIN LATERAL jsonb_populate_record(NULL::${s.rel}, CASE WHEN c.table_name = ${literal(t.name)} THEN c.image END) t ON true`,
    '$fn$;',
    `REVOKE EXECUTE ON FUNCTION ${name}(xid8, bigint, xid8, integer) FROM PUBLIC;`,
    `GRANT EXECUTE ON FUNCTION ${name}(xid8, bigint, xid8, integer) TO ${roleSql(roles.authenticator)};`,
    `COMMENT ON FUNCTION ${name}(xid8, bigint, xid8, integer) IS ${literal(`A page of the change log of app.${t.name} and its links, shaped as records; for the gateway's streams only (design 9).`)};`,
  ].join('\n');
}
