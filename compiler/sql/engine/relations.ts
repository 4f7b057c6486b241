// The compiled relation actions: list linked records, link and unlink (manyToMany join tables), read and
// replace a oneToOne sub-resource. The owning record must be visible as the action (pre-flight); a link
// target as a read. A sub-resource answers with its owner's ETag and Last-Modified.
import { ident, literal, pgName, qname, textArray } from '../ident.ts';
import { fn } from './refusals.ts';
import { byPasswordsNamed, explainMiss, head, keyCheck, ownerParentCheck, readPreconditions, type Head } from './records.ts';
import { call, ifThen } from '../layout.ts';
import {
  emptyRow, etagSql, isText, jsonObject, keyEquals, member, plpgsql, preconditionAssignments, PRECONDITION_DECLARE, preconditionWhere, recordWhere, rowJsonText, selectList,
  withMembers, type Shape,
} from './shape.ts';

export interface JoinShape {
  join: Shape;
  owner: Shape;
  target: Shape;
  ownerColumn: string;
  targetColumn: string;
  edge: string[];
}

const ARGS: Array<[string, string]> = [['args', 'jsonb']];
const api = (s: Shape, action: string) => qname('api', pgName(s.name, action));
/** The owner: inside the nested path's chain, then visible as the action (pre-flight). */
const ownerCheck = (owner: Shape, action: string) => `${ownerParentCheck(owner)}\nPERFORM ${fn(owner, 'require')}(_key, ${literal(action)});`;
const edgeJson = (j: JoinShape, alias: string) => `jsonb_build_object(${j.edge.map((e) => `${literal(e)}, ${alias}.${ident(e)}`).join(', ')})`;
/** A link's edge properties as a linked record shows them: json, in the model's order. */
const edgeJsonText = (j: JoinShape, alias: string) => jsonObject(j.edge.map((e) => [e, `${alias}.${ident(e)}`]));

function linked(j: JoinShape): string {
  const h = head(j.owner, 'relationList');
  const t = j.target;
  const from = `${j.join.rel} j JOIN ${t.rel} t ON t.${ident(t.pk)} = j.${ident(j.targetColumn)}
    WHERE ${keyEquals(`j.${ident(j.ownerColumn)}`, j.owner.keyType, '_key')}${t.soft ? ' AND t.deleted_at IS NULL' : ''}`;
  return plpgsql(api(j.join, 'list'), ARGS, 'json', [...h.declare, '_page int := lib.page(args);', '_per_page int := lib.per_page(args);',
    '_total bigint;', '_rows json;'], [
    ownerCheck(j.owner, h.action),
    `SELECT count(*) INTO _total FROM ${from};`,
    `SELECT coalesce(json_agg(${withMembers(t, rowJsonText(t, 'x'), member('edge', 'x.edge'))}), '[]') INTO _rows FROM (`,
    `  SELECT ${selectList(t)}, ${edgeJsonText(j, 'j')} AS edge FROM ${from}`,
    `  ORDER BY t.${ident(t.pk)} LIMIT _per_page OFFSET (_page - 1)::bigint * _per_page) x;`,
    `RETURN json_build_object('data', _rows, 'meta', json_build_object('total', _total, 'count', 'exact', 'page', _page, 'per_page', _per_page), 'scenario', ${h.scenarioLabel});`,
  ], `list linked records: ${j.join.entity}`);
}

/** Creates the link or replaces its edge properties; `created` comes from the statement itself. */
function link(j: JoinShape): string {
  const h = head(j.owner, 'link');
  const cols = [j.ownerColumn, j.targetColumn, ...j.edge].map(ident).join(', ');
  const values = [keyValue(j.owner, '_key'), keyValue(j.target, '_target'), ...j.edge.map((e) => `_body ->> ${literal(e)}`)].join(', ');
  const sets = ['_rev = gen_random_uuid()', ...j.edge.map((e) => `${ident(e)} = EXCLUDED.${ident(e)}`)].join(', ');
  return plpgsql(api(j.join, 'link'), ARGS, 'jsonb', [...h.declare, "_target text := args ->> 'target';",
    "_body jsonb := coalesce(args -> 'body', '{}'::jsonb);", '_edge jsonb;', '_created boolean;'], [
    ownerCheck(j.owner, h.action),
    `PERFORM ${fn(j.target, 'require')}(_target, 'read');`,
    `PERFORM lib.check_edge(_body, ${textArray(j.edge)});`,
    ...linkPrecondition(j, true),
    `INSERT INTO ${j.join.rel} AS j (${cols}) VALUES (${values})`,
    `ON CONFLICT (${j.join.org ? 'organization_id, ' : ''}${ident(j.ownerColumn)}, ${ident(j.targetColumn)}) DO UPDATE SET ${sets}`,
    `RETURNING ${edgeJson(j, 'j')}, j.xmax = 0 INTO _edge, _created;`,
    `RETURN jsonb_build_object('data', jsonb_build_object(${literal(j.ownerColumn)}, _key, ${literal(j.targetColumn)}, _target) || _edge,`,
    `  'created', _created) || ${h.scenario};`,
  ], `link a record: ${j.join.entity}`);
}

/**
 * If-Match on a link (RFC 9110 13.1.1): a link has no ETag, so only `*` can match, and only an existing link
 * (kept locked for the upsert). Linking: else 412. Unlinking: a link that is not there stays 404 (a status
 * preconditions leave alone), one that is there and not matched 412. A link has no modification time, so
 * If-Unmodified-Since has nothing to compare (13.1.4) and is not passed.
 */
function linkPrecondition(j: JoinShape, linking: boolean): string[] {
  const where = `${keyEquals(`j.${ident(j.ownerColumn)}`, j.owner.keyType, '_key')} AND ${keyEquals(`j.${ident(j.targetColumn)}`, j.target.keyType, '_target')}`;
  const refuse = (why: string) => `PERFORM ${call('lib.link_precondition_failed', [
    call('format', [`'If-Match: %s "%s" and %s "%s" ${why}'`, literal(j.owner.entity), '_key', literal(j.target.entity), '_target']), "args -> 'if_match'"])};`;
  if (linking) {
    return ["IF args ? 'if_match' THEN",
      `  PERFORM 1 FROM ${j.join.rel} j WHERE ${where} FOR UPDATE;`,
      `  ${ifThen("NOT (FOUND AND (args -> 'if_match') ? '*')", [refuse('are not linked, or a link has no ETag (only * matches an existing link)')])}`,
      'END IF;'];
  }
  return ["IF args ? 'if_match' AND NOT (args -> 'if_match') ? '*'", `  AND EXISTS (SELECT 1 FROM ${j.join.rel} j WHERE ${where}) THEN`,
    `  ${refuse('are linked, and a link has no ETag (only * matches it)')}`, 'END IF;'];
}

const keyValue = (s: Shape, v: string) => (isText(s.keyType) ? v : `${v}::${s.keyType}`);

function unlink(j: JoinShape): string {
  const h = head(j.owner, 'unlink');
  const t = j.target;
  return plpgsql(api(j.join, 'unlink'), ARGS, 'jsonb', [...h.declare, "_target text := args ->> 'target';"], [
    ownerCheck(j.owner, h.action),
    ...keyCheck(t, '_target'),
    ...linkPrecondition(j, false),
    `DELETE FROM ${j.join.rel} j WHERE ${keyEquals(`j.${ident(j.ownerColumn)}`, j.owner.keyType, '_key')}`,
    `  AND ${keyEquals(`j.${ident(j.targetColumn)}`, t.keyType, '_target')};`,
    'IF NOT FOUND THEN',
    `  PERFORM lib.refuse('PT404', format('%s "%s" is not linked to %s "%s"', ${literal(t.entity)}, _target, ${literal(j.owner.entity)}, _key), NULL, NULL);`,
    'END IF;',
    `RETURN ${h.scenario};`,
  ], `unlink a record: ${j.join.entity}`);
}

/** The sub-resource's answer: its row with the owner's ETag and Last-Modified. */
function ownerSingle(owner: Shape, h: Head, preconditions = false): string[] {
  return [
    `SELECT ${etagSql(owner)}, t._modified_at INTO _etag, _modified FROM ${owner.rel} t WHERE ${keyEquals(`t.${ident(owner.pk)}`, owner.keyType, '_key')};`,
    ...(preconditions ? [readPreconditions(owner, '_etag', '_modified')] : []),
    `RETURN json_build_object('data', _row, 'id', _key, 'etag', _etag, 'last_modified', _modified, 'scenario', ${h.scenarioLabel});`,
  ];
}

function subRead(s: Shape, owner: Shape): string {
  const h = head(owner, 'subRead');
  return plpgsql(api(s, 'read'), ARGS, 'json', [...h.declare, '_row json;', '_etag text;', '_modified timestamptz;'], [
    ownerCheck(owner, h.action),
    `SELECT ${rowJsonText(s)} INTO _row FROM ${s.rel} t WHERE ${keyEquals(`t.${ident(s.pk)}`, owner.keyType, '_key')};`,
    '-- Never written: every property null.',
    `_row := coalesce(_row, ${emptyRow(s, '_key')});`,
    ...ownerSingle(owner, h, true),
  ], `read the sub-resource ${s.entity}`);
}

/** Creates or replaces the sub-resource; the owner's preconditions decide, and its row stays locked until commit. */
function subReplace(s: Shape, owner: Shape): string {
  const h = head(owner, 'subReplace');
  const cols = s.writable;
  const hidden = new Set(s.table.hiddenColumns);
  return plpgsql(api(s, 'replace'), ARGS, 'json', [...h.declare, "_body jsonb := args -> 'body';", ...PRECONDITION_DECLARE, '_row json;', '_etag text;', '_modified timestamptz;'], [
    ownerCheck(owner, h.action),
    `PERFORM lib.check_body(_body, ${textArray(cols.map((c) => c.name).concat(s.managed))}, ${textArray(s.readOnly)});`,
    `IF _body ? ${literal(s.pk)} AND _body ->> ${literal(s.pk)} IS DISTINCT FROM _key THEN`,
    `  PERFORM lib.bad_request(${literal(`"${s.pk}" is the owner's key and cannot differ from the path`)}, ${literal(s.pk)}, 'primary');`,
    'END IF;',
    `_body := _body || jsonb_build_object(${literal(s.pk)}, _key);`,
    ...preconditionAssignments(owner, "(args - 'body')"),
    `PERFORM FROM ${owner.rel} t WHERE ${recordWhere(owner)}`,
    `  AND ${preconditionWhere(owner)}`,
    '  FOR UPDATE;',
    'IF NOT FOUND THEN',
    ...explainMiss(owner, h.action, 'live', 'NULL').map((l) => `  ${l}`),
    'END IF;',
    `-- Omitted properties go back to their default${hidden.size ? ', but an omitted Password is kept (no client can read it back)' : ''}.`,
    ...byPasswordsNamed(s.table.hiddenColumns, (present) => upsert(s, cols.filter((c) => !hidden.has(c.name) || present.includes(c.name)), hidden)),
    ...ownerSingle(owner, h),
  ], `replace the sub-resource ${s.entity}`);
}

/**
 * The sub-resource's row written with `cols`: inserted, or its existing row's columns replaced. A Password column
 * (in `hidden`) takes the body's value, not EXCLUDED's: reading EXCLUDED needs the SELECT the request role lacks.
 * An immutable or writeOnly column the body leaves out keeps its value, as an entity's PUT keeps it (spec 2.2: an
 * immutable one is set once, then locked, and resetting it was 400 on every PUT after the first; a writeOnly one
 * cannot be read back to be sent again).
 */
function upsert(s: Shape, cols: Shape['writable'], hidden: Set<string>): string[] {
  const given = (c: Shape['writable'][number]) => (hidden.has(c.name)
    ? `(jsonb_populate_record(NULL::${s.rel}, _body)).${ident(c.name)}` : `EXCLUDED.${ident(c.name)}`);
  const set = (c: Shape['writable'][number]) => `${ident(c.name)} = ${c.kept
    ? `CASE WHEN _body ? ${literal(c.name)} THEN ${given(c)} ELSE t.${ident(c.name)} END` : given(c)}`;
  return [
    `INSERT INTO ${s.rel} AS t (${cols.map((c) => ident(c.name)).join(', ')})`,
    `SELECT ${cols.map((c) => `CASE WHEN _body ? ${literal(c.name)} THEN r.${ident(c.name)} ELSE ${c.fallback} END`).join(',\n    ')}`,
    `FROM jsonb_populate_record(NULL::${s.rel}, _body) r`,
    `ON CONFLICT (${s.org ? 'organization_id, ' : ''}${ident(s.pk)}) DO UPDATE SET ${cols.filter((c) => !c.primary).map(set).join(', ') || `${ident(s.pk)} = EXCLUDED.${ident(s.pk)}`}`,
    `RETURNING ${rowJsonText(s)} INTO _row;`,
  ];
}

export function joinFunctions(j: JoinShape): Array<[string, string]> {
  return [['list', linked(j)], ['link', link(j)], ['unlink', unlink(j)]];
}

export function subresourceFunctions(s: Shape, owner: Shape): Array<[string, string]> {
  return [['read', subRead(s, owner)], ['replace', subReplace(s, owner)]];
}
