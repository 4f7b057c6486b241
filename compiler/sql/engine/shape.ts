// What the compiled engine needs to know about one table, resolved once from the IR: its key, the
// columns a response shows and a body may write, ETag, parent and soft delete, and the SQL for each.
import type { ColumnIR, TableIR } from '../../ir/types.ts';
import { hasOrganization, serverManaged } from '../../ir/columns.ts';
import { EMBED_DEPTH } from '../../query/embeds.ts';
import { ident, literal, qname } from '../ident.ts';
import { resourceOf, wireOfColumns } from '../../resource/build.ts';
import { buildObject, chain, clauses, fill, hang, indent, paren, wrap } from '../layout.ts';
import { moduleFlag } from '../../modules/index.ts';

export interface Writable {
  name: string;
  json: boolean;
  primary: boolean;
  /**
   * Kept when a PUT leaves it out instead of reset: immutable (locked once set), or writeOnly (no client can read it
   * back to send it again, as with a Password).
   */
  kept: boolean;
  /** The column's default expression, for PUT resets and creates that omit it ('NULL' when none). */
  fallback: string;
}

export interface Shape {
  table: TableIR;
  name: string;
  /** app."<table>" */
  rel: string;
  /** Entity name in messages: Post, or Post.tags for join and sub-resource tables. */
  entity: string;
  pk: string;
  keyType: string;
  soft: boolean;
  org: boolean;
  version?: string;
  parent?: { column: string; type: string; table: string };
  /** Readable columns, in model order. */
  output: string[];
  /** The key of each column in a row as the API shows it: the property's wire name (web.name), else the column's. */
  keys: Record<string, string>;
  /** Columns a body sets (neither readOnly nor managed by the server). */
  writable: Writable[];
  /** Server-managed columns a body may name without setting them (a Version for the version lock). */
  managed: string[];
  /** Body members refused with 400 (readOnly properties and identities). */
  readOnly: string[];
  /** What a read or list may embed (compiler/query/embeds.ts), with the embedded tables' shapes. */
  embeds: EmbedShape[];
}

export interface EmbedShape {
  name: string;
  kind: 'reference' | 'manyToMany' | 'oneToOne';
  /** The embedded rows' table: an entity's, or the sub-resource's. */
  target: Shape;
  /** reference: the column of this table holding the target's key. */
  column?: string;
  /** manyToMany: the join table, its key columns and its edge properties. */
  join?: { rel: string; ownerColumn: string; targetColumn: string; edge: string[] };
}

/** A text type: any string is a value of it (a longer one than a bound matches no row), so a key of it needs no check. */
export const isText = (type: string) => type === 'text' || type.startsWith('character varying');

/** Whether text `key` can be a key of `s` (lib.castable), or undefined for a text key, which always can. */
export const keyCastable = (s: Shape, key: string): string | undefined =>
  (isText(s.keyType) ? undefined : `lib.castable(${key}, ${literal(s.keyType)})`);

/** `col = value` for a key given as text (already checked with lib.castable). */
export function keyEquals(col: string, type: string, value: string): string {
  return isText(type) ? `${col} = ${value}` : `${col} = ${value}::${type}`;
}

/**
 * `depth` levels of embeds below this table; `path` holds the tables above it, which an embed never
 * repeats (a table's policies judge by one scenario per statement).
 */
export function shapeOf(t: TableIR, all: TableIR[], depth = EMBED_DEPTH, path: string[] = []): Shape {
  // The key, wire names, version and parent come from the entity's resource description.
  const r = resourceOf(t, all);
  const sub = t.kind === 'subresource' ? r.relations[t.relation!.name] : undefined;
  const wire = t.kind === 'entity' ? wireOfColumns(r.properties) : sub?.kind === 'oneToOne' ? wireOfColumns(sub.properties) : {};
  const props = t.columns.filter((c) => c.prop || (t.kind === 'subresource' && c.name === t.relation!.ownerColumn));
  const pk = t.kind !== 'entity' ? t.relation!.ownerColumn : r.key.column;
  const col = (name: string) => t.columns.find((c) => c.name === name)!;
  const readable = (c: ColumnIR) => !c.prop || !(c.prop.writeOnly || moduleFlag(c.prop, 'hidden'));
  const readOnly = (c: ColumnIR) => Boolean(c.prop?.readOnly) || c.identity;
  const managed = (c: ColumnIR) => !readOnly(c) && Boolean(c.prop && serverManaged(c.prop));
  const parent = t.kind === 'entity' ? r.parent : undefined;
  return {
    table: t,
    name: t.name,
    rel: qname('app', t.name),
    entity: t.kind === 'entity' ? t.entityName : `${t.entityName}.${t.relation!.name}`,
    pk,
    keyType: col(pk).sqlType,
    soft: t.kind === 'entity' && r.softDelete,
    org: hasOrganization(t),
    version: t.kind === 'entity' ? r.version?.column : undefined,
    parent: parent ? { column: parent.column, type: parent.type, table: parent.table } : undefined,
    output: props.filter(readable).map((c) => c.name),
    keys: Object.fromEntries(props.map((c) => [c.name, wire[c.name] ?? c.name])),
    writable: props.filter((c) => !readOnly(c) && !managed(c)).map((c) => ({
      name: c.name, json: c.prop?.type === 'JSON', primary: c.name === pk,
      kept: Boolean(c.prop?.immutable || c.prop?.writeOnly), fallback: c.defaultSql ?? 'NULL',
    })),
    managed: props.filter(managed).map((c) => c.name),
    readOnly: props.filter(readOnly).map((c) => c.name),
    embeds: depth > 0 && t.kind === 'entity' ? embedShapes(t, all, depth, [...path, t.name]) : [],
  };
}

function embedShapes(t: TableIR, all: TableIR[], depth: number, path: string[]): EmbedShape[] {
  const entityTable = (entity: string) => all.find((x) => x.kind === 'entity' && x.entityName === entity)!;
  const relationTable = (relation: string) => all.find((x) => x.kind !== 'entity' && x.entityName === t.entityName && x.relation!.name === relation)!;
  const below = (x: TableIR) => shapeOf(x, all, depth - 1, path);
  const out: EmbedShape[] = [];
  for (const e of resourceOf(t, all).embeds) {
    if (e.kind === 'oneToOne') {
      out.push({ name: e.name, kind: e.kind, target: below(relationTable(e.relation)) });
      continue;
    }
    const target = entityTable(e.target);
    if (path.includes(target.name)) continue;
    if (e.kind === 'reference') {
      out.push({ name: e.name, kind: e.kind, column: e.column, target: below(target) });
    } else {
      const j = relationTable(e.relation), r = j.relation!;
      out.push({ name: e.name, kind: e.kind, target: below(target),
        join: { rel: qname('app', j.name), ownerColumn: r.ownerColumn, targetColumn: r.targetColumn!, edge: r.edge ?? [] } });
    }
  }
  return out;
}

/**
 * A JSON object of `pairs` ([key, SQL expression]) in their order, written as every record is (`{"key":value,…}`, as
 * the gateway's JSON.stringify writes too): row_to_json of a one-row subquery whose columns the keys name.
 */
export function jsonObject(pairs: Array<[string, string]>): string {
  if (!pairs.length) return "'{}'::json";
  return fill('(SELECT row_to_json(r) FROM (SELECT ', pairs.map(([key, value]) => `${value} AS ${ident(key)}`), ') r)');
}

/** The row as json, keys in the model's order, as every answer shows a record. */
export function rowJsonText(s: Shape, alias = 't'): string {
  return jsonObject(s.output.map((c) => [s.keys[c] ?? c, `${alias}.${ident(c)}`]));
}

/**
 * `row` (json: a record of `s`) with `members` (text: `,"name":value…`, or '') after its own: text put together in
 * the statement (a function, called for each row, would be a statement of its own for each).
 */
export function withMembers(s: Shape, row: string, members: string): string {
  if (!members) return row;
  return s.output.length ? `(${chain([`left((${row})::text, -1)`, members, "'}'"], '||')})::json` : `(${chain(["'{'", `substr(${members}, 2)`, "'}'"], '||')})::json`;
}

/** Text that adds the member `name` with the json value `value` to an object (withMembers): `,"name":value`. */
export const member = (name: string, value: string) => `${literal(`,${JSON.stringify(name)}:`)} || coalesce(${paren(value, 60)}::text, 'null')`;

/** A sub-resource never written, as json: every property null but its owner's key. */
export function emptyRow(s: Shape, key: string): string {
  return jsonObject(s.output.map((c) => [s.keys[c] ?? c, c === s.pk ? key : 'NULL::text']));
}

/** The ETag of a row: its Version when the entity has one, else its revision token. */
export function etagSql(s: Shape, alias = 't'): string {
  return s.version ? `${alias}.${ident(s.version)}::text` : `${alias}._rev::text`;
}

/** The members of a Single beside `data`: its key, ETag and Last-Modified. */
const singleMembers = (s: Shape, alias: string): Array<[string, string]> =>
  [["'id'", `${alias}.${ident(s.pk)}::text`], ["'etag'", etagSql(s, alias)], ["'last_modified'", `${alias}._modified_at`]];

/**
 * {data, id, etag, last_modified, scenario} of a row (the Single of the api.* protocol) as json, `label` the winning
 * scenario's: what a read or a write returns as it is, the record in the model's order. `more`: members after the
 * record's own (embeds: embedMembers).
 */
export function singleJsonText(s: Shape, label: string, alias = 't', more = ''): string {
  return buildObject('json_build_object', [["'data'", withMembers(s, rowJsonText(s, alias), more)], ...singleMembers(s, alias), ["'scenario'", label]]);
}

/** The columns a query must select for rowJsonText/singleJsonText over a derived table. */
export function selectList(s: Shape, alias = 't'): string {
  return wrap([...s.output.map((c) => `${alias}.${ident(c)}`), `${alias}._rev`, `${alias}._modified_at`]);
}

/** WHERE conditions that pick record `_key` (live unless `rows` says otherwise) under `_parent`. */
export function recordWhere(s: Shape, rows: 'live' | 'deleted' | 'any' = 'live'): string {
  const parts = [keyEquals(`t.${ident(s.pk)}`, s.keyType, '_key')];
  if (s.parent) parts.push(`(_parent IS NULL OR ${keyEquals(`t.${ident(s.parent.column)}`, s.parent.type, '_parent')})`);
  if (s.soft && rows === 'live') parts.push('t.deleted_at IS NULL');
  if (s.soft && rows === 'deleted') parts.push('t.deleted_at IS NOT NULL');
  return parts.join(' AND ');
}

/** The preconditions of a write as conditions of its statement (design: one statement decides). */
export function preconditionWhere(s: Shape): string {
  return [
    `(_if_match IS NULL OR '*' = ANY (_if_match) OR ${etagSql(s)} = ANY (_if_match))`,
    `(_since IS NULL OR date_trunc('second', t._modified_at) <= _since)`,
    ...(s.version ? [`(_expected IS NULL OR t.${ident(s.version)} = _expected)`] : []),
  ].join('\nAND ');
}

/** The variables the preconditions read (declared by the caller), and their assignments from the request. */
export const PRECONDITION_DECLARE = ['_if_match text[];', '_since timestamptz;', '_expected numeric;'];

export function preconditionAssignments(s: Shape, args = 'args'): string[] {
  return [
    `_if_match := lib.if_match(${args});`,
    `_since := lib.if_unmodified_since(${args});`,
    ...(s.version ? [`_expected := lib.expected_version(${literal(s.version)}, ${args} -> 'body');`] : []),
  ];
}

/** A function parameter: name, type and, optionally, its default. */
export type Param = [name: string, type: string, fallback?: string];

/** A plpgsql function definition with its comment; `extra` adds attributes (SECURITY DEFINER …). */
export function plpgsql(name: string, params: Param[], returns: string, declare: string[], body: string[], comment: string, extra = ''): string {
  const list = params.map(([n, type, d]) => `${n} ${type}${d ? ` DEFAULT ${d}` : ''}`).join(', ');
  const signature = `${name}(${params.map(([, type]) => type).join(', ')})`;
  return [
    // Functions that return json returned jsonb in earlier versions: CREATE OR REPLACE cannot change that.
    ...(returns === 'json' ? [`SELECT meta.drop_if_returns(${literal(signature)}, 'json');`] : []),
    clauses(`CREATE OR REPLACE FUNCTION ${name}(${list})`, [`RETURNS ${returns} LANGUAGE plpgsql${extra}`, 'AS $fn$']),
    ...(declare.length ? ['DECLARE', ...declare.map((l) => indent(hang(l)))] : []),
    'BEGIN',
    ...body.map((l) => indent(hang(l))),
    'END $fn$;',
    clauses(`COMMENT ON FUNCTION ${signature}`, [`IS ${literal(comment)};`]),
  ].join('\n');
}
