// The api.* functions, compiled per table and action (compiler/sql/engine/*), api.dispatch over them,
// each entity's field list for filters and sort (lib.fields), and the manifest the gateway reads.
import type { Model } from '../model/types.ts';
import type { TableIR } from '../ir/types.ts';
import { manifestHead, resourceManifest } from '../manifest/build.ts';
import { resourceOf } from '../resource/build.ts';
import type { PropertyIR, ResourceIR } from '../resource/types.ts';
import { literal, pgName, qname } from './ident.ts';
import { json } from './layout.ts';
import { shapeOf, type Shape } from './engine/shape.ts';
import { recordFunctions } from './engine/records.ts';
import { stream } from './engine/stream.ts';
import { historyFunctions } from './engine/history.ts';
import { historyOf } from '../model/history.ts';
import { joinFunctions, subresourceFunctions, type JoinShape } from './engine/relations.ts';
import { refusalsDdl } from './engine/refusals.ts';
import { identityFunctionNames } from './identity.ts';
import { areDefault, requestRoles, type RoleNames } from './roles.ts';
import { modulesOf } from '../modules/index.ts';

/** api.* functions that are not compiled per table but go through dispatch too (compiler/sql/files.sql). */
const FIXED_FUNCTIONS = ['upload_intent', 'upload_prepare'];

/**
 * The type a filter value or cursor value is cast to before it meets the column: the column's own, but a
 * bounded `character varying(255)` compares as unbounded `character varying`, since a cast to the bound
 * truncates silently and a 256-character value would then equal the 255-character row that begins it.
 */
const comparisonType = (sqlType: string) => sqlType.replace(/^character varying\(\d+\)/, 'character varying');

/** What a filter or sort may name on a column, and how to compare it (read by lib.field_expr). */
function fieldOf(p: PropertyIR): Record<string, unknown> {
  const casts = p.casts ?? {};
  return {
    type: comparisonType(p.sqlType), kind: p.type, multiple: p.flags.multiple, json: p.type === 'JSON',
    readable: !p.flags.writeOnly, search: p.flags.searchIndexed,
    ...Object.assign({}, ...modulesOf(p.model).map(({ def }) => def.field ?? {})), // how a module's values compare (an Email's are lowercase)
    ...(Object.keys(casts).length ? { casts } : {}),
  };
}

/** lib.fields of an entity: a projection of its ResourceIR. */
function fieldsDdl(r: ResourceIR, tables: TableIR[]): string {
  // A filter may name a property of a referenced record (`project.name`): lib.field_expr reads it from a
  // subquery on the target's table, under the target's own policies.
  const target = (entity: string) => resourceOf(tables.find((o) => o.kind === 'entity' && o.entityName === entity)!, tables);
  const refs = r.embeds.flatMap((e) => {
    if (e.kind !== 'reference') return [];
    const x = target(e.target);
    return [[e.name, { table: x.table, pk: x.key.column, column: e.column, live: x.softDelete }]];
  });
  const fields = {
    pk: r.key.column, columns: Object.fromEntries(Object.values(r.properties).map((p) => [p.column, fieldOf(p)])),
    ...(refs.length ? { embeds: Object.fromEntries(refs) } : {}),
  };
  return `INSERT INTO lib.fields (tbl, fields) VALUES (${literal(r.table)}, ${literal(json(fields))}::jsonb)\n`
    + '  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;';
}

/** [function suffix, definition] of every api.* function of a table. */
function tableFunctions(model: Model, t: TableIR, shapes: Map<string, Shape>, tables: TableIR[]): Array<[string, string]> {
  const s = shapes.get(t.name)!;
  const owner = shapes.get(tables.find((o) => o.kind === 'entity' && o.entityName === t.entityName)!.name)!;
  if (t.kind === 'entity') return [...recordFunctions(s), ['stream', stream(s)], ...historyFunctions(s, model)];
  if (t.kind === 'subresource') return subresourceFunctions(s, owner);
  const r = t.relation!;
  const target = shapes.get(tables.find((o) => o.kind === 'entity' && o.entityName === r.target)!.name)!;
  const j: JoinShape = { join: s, owner, target, ownerColumn: r.ownerColumn, targetColumn: r.targetColumn!, edge: r.edge ?? [] };
  return joinFunctions(j);
}

export function functionNames(tables: TableIR[]): string[] {
  const suffixes = (t: TableIR) => t.kind === 'join' ? ['list', 'link', 'unlink'] : t.kind === 'subresource' ? ['read', 'replace']
    : ['list', 'search', 'read', 'create', 'replace', 'patch', 'delete', ...(t.entity.softDelete ? ['restore'] : []), 'stream',
      ...(historyOf(t.entity) ? ['history'] : [])];
  return tables.flatMap((t) => suffixes(t).map((a) => pgName(t.name, a)));
}

/** Names one CASE compares `fn` with, one after the other (each comparison is about a third of a µs). */
const ROUTE_LEAF = 8;

/**
 * The call of the function `fn` names, among `sorted` (in byte order, as COLLATE "C" compares): halves split by
 * IF down to CASEs of ROUTE_LEAF names, so a call makes about log2(n) + 4 comparisons, not up to n.
 */
function route(sorted: string[], indent: string): string[] {
  if (sorted.length <= ROUTE_LEAF) {
    return [`${indent}CASE fn`, ...sorted.map((n) => `${indent}  WHEN ${literal(n)} THEN _result := ${qname('api', n)}(args);`),
      `${indent}  ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);`, `${indent}END CASE;`];
  }
  const half = Math.ceil(sorted.length / 2);
  return [`${indent}IF fn COLLATE "C" < ${literal(sorted[half]!)} THEN`, ...route(sorted.slice(0, half), `${indent}  `),
    `${indent}ELSE`, ...route(sorted.slice(half), `${indent}  `), `${indent}END IF;`];
}

/**
 * One statement per request: switch to the request role, set the claims, call the function `fn` names.
 * A later call in the same transaction (a batch) first empties the scenario each table's policies read
 * (lib.scenario), so it sees what its own request would see, not what an earlier operation left behind;
 * the first call, the only one of a plain request, has nothing to empty.
 */
function dispatchDdl(names: string[], tables: string[], roles: RoleNames): string {
  // The gateway names the logical role ('anon' or 'authenticated'); the database's may be called otherwise.
  const role = areDefault(roles) ? 'req_role' : `CASE req_role WHEN 'anon' THEN ${literal(roles.anon)} ELSE ${literal(roles.authenticated)} END`;
  return [
    // json, not jsonb: a page of rows is built as json text and goes out as it is (earlier versions: jsonb).
    "SELECT meta.drop_if_returns('api.dispatch(text, jsonb, text, text, jsonb)', 'json');",
    // The definer helpers it reaches (stakeholder keys, refusals) run under `pg_catalog, pg_temp`; a request under the
    // same path never switches it. Switched on each call, from the session's path and back, it made PostgreSQL plan
    // again the statements of those helpers called after a policy had run one (a refused read: 563 -> 293 µs).
    'CREATE OR REPLACE FUNCTION api.dispatch(req_role text, claims jsonb, ip text, fn text, args jsonb) RETURNS json LANGUAGE plpgsql',
    '  SET search_path = pg_catalog, pg_temp AS $fn$',
    'DECLARE _result json; _set text;',
    'BEGIN',
    "  IF req_role NOT IN ('anon', 'authenticated') THEN",
    "    RAISE EXCEPTION 'unknown request role %', req_role USING ERRCODE = '42501';",
    '  END IF;',
    '  -- Assignments, not PERFORM: an expression is evaluated directly, a PERFORM runs as a query with its executor.',
    '  -- An anonymous call carries no identity, whatever claims came with it.',
    `  _set := set_config('role', ${role}, true)`,
    "    || set_config('request.jwt.claims', CASE WHEN req_role = 'anon' THEN '{}' ELSE coalesce(claims, '{}'::jsonb)::text END, true)",
    "    || set_config('request.ip', coalesce(ip, ''), true);",
    "  IF current_setting('request.dispatched', true) = 'yes' THEN",
    `    PERFORM ${tables.map((t) => `set_config(${literal(`request.scenario.${t}`)}, '', true)`).join(',\n      ')};`,
    '  END IF;',
    "  _set := set_config('request.dispatched', 'yes', true);",
    ...route([...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))), '  '),
    '  -- Files queued for deletion (lib.discard_file): the gateway drains the outbox after commit.',
    `  IF current_setting('request.outbox', true) = 'queued' THEN _result := (left(_result::text, -1) || ',"outbox":true}')::json; END IF;`,
    '  RETURN _result;',
    'END $fn$;',
    "COMMENT ON FUNCTION api.dispatch(text, jsonb, text, text, jsonb) IS 'The one statement of a request: role, claims and IP for this transaction, then api.<fn>(args).';",
  ].join('\n');
}

/** A table's part of the API: its filter fields, its resource in the manifest, and its api.* functions. */
export function tableApiDdl(model: Model, t: TableIR, tables: TableIR[]): string {
  const shapes = new Map(tables.map((x) => [x.name, shapeOf(x, tables)]));
  const out: string[] = [];
  if (t.kind === 'entity') {
    const r = resourceOf(t, tables);
    const resource = resourceManifest(r);
    out.push(fieldsDdl(r, tables),
      `INSERT INTO lib.manifest_resources (entity, resource) VALUES (${literal(t.entityName)}, ${literal(json(resource))}::jsonb)`
      + '\n  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;');
  }
  for (const [, ddl] of tableFunctions(model, t, shapes, tables)) out.push(ddl);
  return out.join('\n\n');
}

/** What the API as a whole says: api.dispatch, the manifest's head, and the removal of what the model dropped. */
export function apiDdl(model: Model, tables: TableIR[], roles: RoleNames): string {
  const entities = tables.filter((t) => t.kind === 'entity');
  const list = (xs: string[]) => `ARRAY[${xs.map(literal).join(', ')}]::text[]`;
  const own = [...functionNames(tables), ...identityFunctionNames(model)];
  return [
    `DELETE FROM lib.fields WHERE tbl <> ALL (${list(entities.map((t) => t.name))});`,
    `DELETE FROM lib.manifest_resources WHERE entity <> ALL (${list(entities.map((t) => t.entityName))});`,
    dispatchDdl([...own, ...FIXED_FUNCTIONS], tables.map((t) => t.name), roles),
    `INSERT INTO lib.manifest (singleton, manifest) VALUES (true, ${literal(json(manifestHead(model)))}::jsonb)`,
    '  ON CONFLICT (singleton) DO UPDATE SET manifest = EXCLUDED.manifest;',
    `SELECT meta.drop_stale_functions(${list(own)});`,
    `GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA api TO ${requestRoles(roles)};`,
  ].join('\n\n');
}

/** Per entity: existence past the policies, failing rules, refusals and pre-flights (after the access functions). */
export function refusalsTableDdl(model: Model, t: TableIR, tables: TableIR[]): string {
  return t.kind === 'entity' ? refusalsDdl(shapeOf(t, tables), model, tables) : '';
}
