// The compiled record actions of an entity table: list/search, read, create, replace, patch, delete and
// restore, each an api.<table>_<action> function whose statements are written out for that table (list and search
// one page function, replace and patch one update), so PostgreSQL plans them once per connection and `\sf` shows them.
import { DATA_BYTES, ESTIMATE_EXACT_BELOW } from '../../query/paging.ts';
import { ident, literal, pgName, qname, textArray } from '../ident.ts';
import { OPERATIONS, type OperationName } from '../../query/operations.ts';
import { fn } from './refusals.ts';
import { call, clauses, fill, hang, ifThen, indent, query } from '../layout.ts';
import { embedMembers, embedScenarios } from './embed.ts';
import {
  keyCastable, keyEquals, plpgsql, preconditionAssignments, PRECONDITION_DECLARE, preconditionWhere, recordWhere, rowJsonText, selectList, singleJsonText, withMembers, type Shape,
} from './shape.ts';

export interface Head {
  /** The access action the operation is judged as (compiler/query/operations.ts). */
  action: string;
  declare: string[];
  /** The label of the winning scenario, merged into the result (Access-Scenario). */
  scenario: string;
  /** The winning scenario's label (what `scenario` holds), for results built as json. */
  scenarioLabel: string;
}

/**
 * PRE_FETCH of the operation's access action on the entity `owner` (before any row is read) and the request's common
 * arguments. `actionSql` names the action in SQL where one function serves several operations (a parameter).
 */
export function head(owner: Shape, operation: OperationName, actionSql = literal(OPERATIONS[operation].access)): Head {
  const action = OPERATIONS[operation].access;
  return {
    action,
    declare: [
      `_scenario text := lib.enter(${literal(owner.name)}, ${actionSql}, ${fn(owner, 'access')}(${actionSql}), ${literal(owner.entity)});`,
      "_key text := args ->> 'id';",
      "_parent text := args ->> 'parent';",
    ],
    scenario: `jsonb_build_object('scenario', (${fn(owner, 'scenario')}(_scenario))[1])`,
    scenarioLabel: `(${fn(owner, 'scenario')}(_scenario))[1]`,
  };
}

/** A key that cannot be of the key's type is not found (404); a text key needs no check (lib.castable would say yes). */
export function keyCheck(s: Shape, key = '_key'): string[] {
  const castable = keyCastable(s, key);
  return castable ? [ifThen(`NOT ${castable}`, [`PERFORM lib.not_found(${literal(s.entity)}, ${literal(s.pk)}, ${key});`])] : [];
}

/**
 * Nested paths: the parent, and each ancestor above it (`args -> 'ancestors'`, outermost first), must exist,
 * contain the next and be readable (the pre-flight), or the entity has no parent (400).
 */
export function parentCheck(s: Shape): string {
  return s.parent
    ? `IF _parent IS NOT NULL THEN PERFORM ${fn(s.parent.table, 'within')}(_parent, args -> 'ancestors'); END IF;`
    : `IF _parent IS NOT NULL THEN PERFORM lib.bad_request(${literal(`${s.entity} has no parent`)}); END IF;`;
}

/** A relation under a nested path: its owner's parent chain as parentCheck, and the owner inside its parent (404). */
export function ownerParentCheck(owner: Shape): string {
  if (!owner.parent) return parentCheck(owner);
  return [
    'IF _parent IS NOT NULL THEN',
    `  PERFORM ${fn(owner.parent.table, 'within')}(_parent, args -> 'ancestors');`,
    `  IF NOT ${fn(owner, 'exists')}(_key, _parent) THEN PERFORM lib.not_found(${literal(owner.entity)}, ${literal(owner.pk)}, _key); END IF;`,
    'END IF;',
  ].join('\n');
}

/** After a write matched no row: 403/404 when the record is not visible, 403 when the write's policy rejects it, else 412/409. */
export function explainMiss(s: Shape, action: string, rows: 'live' | 'any', expected: string): string[] {
  return [
    query([`SELECT ${s.version ? `t.${ident(s.version)}::text` : 't._rev::text'}, t._modified_at INTO _etag, _modified`, `FROM ${s.rel} t`,
      `WHERE ${recordWhere(s, rows)};`]),
    ifThen('NOT FOUND', [`PERFORM ${fn(s, 'refuse')}(${literal(action)}, _key, _parent, coalesce('*' = ANY (_if_match), false));`]),
    `PERFORM ${fn(s, 'deny')}(${literal(action)}, _key);`,
    `PERFORM lib.precondition_failed(${literal(s.entity)}, _etag, _modified, args, ${expected});`,
  ];
}

const api = (s: Shape, action: string) => qname('api', pgName(s.name, action));
const ARGS: Array<[string, string]> = [['args', 'jsonb']];
const bodyCheck = (s: Shape, body = '_body') =>
  `PERFORM ${call('lib.check_body', [body, textArray(s.writable.map((w) => w.name).concat(s.managed)), textArray(s.readOnly)])};`;

/**
 * A page's row, as json (cheaper than jsonb for a page of rows, and the page goes out as json), in the model's
 * order. Embeds are text of the list statement only when asked, so a list without them keeps its plain plan.
 */
const listRow = (s: Shape) => (s.embeds.length
  ? `$q$ || CASE WHEN args ? 'embed' THEN $q$${withMembers(s, rowJsonText(s), embedMembers(s, 't', "$1 -> 'embed'", '$1'))}$q$ ELSE $q$${rowJsonText(s)}$q$ END || $q$`
  : rowJsonText(s));

/** The operations one page function serves: they differ only in the access action judged (its `_action` parameter). */
const PAGED = ['list', 'search'] as const;

/**
 * app.<table>_page(_action, args): a page of records, for api.<table>_list and api.<table>_search alike (PAGED). Any
 * other action is refused, so that no caller reaches a page judged by, say, the read rules.
 */
function page(s: Shape): string {
  const h = head(s, 'list', '_action');
  const where = s.soft ? 't.deleted_at IS NULL AND ' : '';
  const fields = `lib.fields(${literal(s.name)})`;
  return plpgsql(fn(s, 'page'), [['_action', 'text'], ...ARGS], 'json', [...h.declare.filter((l) => !l.startsWith('_key')),
    '_page int := lib.page(args);', '_per_page int := lib.per_page(args);', '_count text := lib.count_mode(args);', "_sort jsonb := args -> 'sort';",
    "_before boolean := args ? 'before';", '_where text;', '_keys jsonb;', '_cursor jsonb;', '_total jsonb;',
    '_offset bigint;', '_few boolean;', '_sql text;', '_page_rows lib.page_rows;', '_rows json;', '_at jsonb;', '_more boolean;', '_meta jsonb;'], [
    ifThen(`_action IS NULL OR _action <> ALL (${textArray([...PAGED])})`, [`PERFORM lib.bad_request(${literal(`a page is one of ${PAGED.join(', ')}`)});`]),
    parentCheck(s),
    `_where := lib.filter_sql(${fields}, args -> 'filter', '{filter}');`,
    // Under a parent, its key is a condition of the text, not `$2 IS NULL OR …`: that form only a plan made for the
    // value turns into the column's index, so its generic plan walked the table.
    ...(s.parent ? [`IF _parent IS NOT NULL THEN _where := ${literal(`${keyEquals(`t.${ident(s.parent.column)}`, s.parent.type, '$2')} AND `)} || _where; END IF;`] : []),
    `_keys := lib.sort_keys(${fields}, _sort);`,
    "IF args ? 'after' OR _before THEN",
    "  _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);",
    "  args := args || jsonb_build_object('cursor', _cursor);",
    'END IF;',
    '_offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;',
    'PERFORM lib.statement_params(args, _parent, _per_page, _offset);',
    // Embedded tables, and those a filter reaches (`project.name`: args.joined), judge by their read rules.
    ...embedScenarios(s, "(coalesce(args -> 'joined', '{}'::jsonb) || coalesce(args -> 'embed', '{}'::jsonb))"),
    `_total := lib.page_total(_count, $q$SELECT count(*) FROM ${s.rel} t WHERE ${where}$q$ || _where,`,
    `  $q$SELECT count(*) FROM ${s.rel} t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE ${where}$q$ || _where,`,
    `  ${literal(s.rel)}::regclass, ${ESTIMATE_EXACT_BELOW});`,
    // An exact total no greater than the page's end means no walk in the order of the keys could stop early
    // (the planner, unaware of what the policies keep, may walk a whole index in order to fill a page of 1
    // from an indexed filter's few matches): the matches are then found first and sorted (a subquery planned
    // alone, OFFSET 0), never a worse plan; and none at all past the total.
    "_few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;",
    "IF _few AND (_total ->> 'total')::bigint <= _offset THEN",
    "  _page_rows := ('[]', '[]')::lib.page_rows;",
    'ELSE',
    // The keys are read in the outer query, over the page's columns: the inner one stays what the planner
    // sees for a plain page (its choice of the key's index is a close call under the policies' estimates).
    `  _sql := $q$SELECT coalesce(json_agg(${listRow(s)}), '[]'), coalesce(jsonb_agg($q$ || lib.keys_sql(_keys) || $q$), '[]')`,
    "    FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END",
    `    || $q$${hang(`      ${selectList(s)}`).trimStart()}`,
    `      FROM ${s.rel} t WHERE ${where}$q$ || _where`,
    "    || CASE WHEN _cursor IS NULL THEN '' ELSE ' AND ' || lib.keyset_sql(_keys, _cursor, _before) END",
    "    || CASE WHEN _few THEN ' OFFSET 0) t' ELSE '' END",
    "    || ' ORDER BY ' || lib.order_sql(_keys, _before) || ' LIMIT $3 OFFSET $4) t';",
    // A page with no condition but the policies' always takes its generic plan (lib.query_generic says why).
    "  IF _where = 'true' THEN _page_rows := lib.query_generic(_sql, NULL::lib.page_rows);",
    '  ELSE _page_rows := lib.query_prepared(_sql, NULL::lib.page_rows); END IF;',
    'END IF;',
    '_rows := _page_rows.rows;',
    '_at := _page_rows.at;',
    // More rows may follow a full page; an exact total says whether they do. (Not one row more than the page:
    // under the policies' low row estimates, LIMIT n+1 can tip the planner off the index order.)
    "_more := jsonb_array_length(_at) = _per_page AND (_cursor IS NOT NULL OR _total ->> 'count' <> 'exact'",
    "  OR _page::bigint * _per_page < (_total ->> 'total')::bigint);",
    'IF _before THEN _rows := lib.json_reverse(_rows); _at := lib.jsonb_reverse(_at); END IF;',
    "_meta := _total || jsonb_build_object('per_page', _per_page) || CASE WHEN _cursor IS NULL THEN jsonb_build_object('page', _page) ELSE '{}' END;",
    // next: rows follow the page; prev: rows come before it (a cursor page, or an offset page past the first).
    ifThen('jsonb_array_length(_at) > 0 AND (_more AND NOT _before OR _before)', ["_meta := _meta || jsonb_build_object('next', lib.cursor_text(_at -> -1, _sort));"]),
    "IF jsonb_array_length(_at) > 0 AND (_more AND _before OR args ? 'after' OR _cursor IS NULL AND _page > 1) THEN",
    "  _meta := _meta || jsonb_build_object('prev', lib.cursor_text(_at -> 0, _sort));",
    'END IF;',
    // The rows last, their byte length before them: the gateway reads the members before them and sends the
    // rows' text on as it is, without reading it through.
    `RETURN json_build_object('meta', _meta, 'scenario', ${h.scenarioLabel}, ${literal(DATA_BYTES)}, octet_length(_rows::text), 'data', _rows);`,
  ], `A page of ${s.entity} records for ${PAGED.join(' and ')}: filters and sort from the request, offset or keyset paging, total by count mode `
    + '(spec 5.2 FETCH under the policies).');
}

const bare = (name: string) => name.replace(/"/g, '');

/** An API function that is one call of a shared one (`call`, of `args`): LANGUAGE sql, so PostgreSQL inlines it. */
function delegate(name: string, call: string, comment: string): string {
  return [
    `SELECT meta.drop_if_returns(${literal(`${name}(jsonb)`)}, 'json');`,
    `CREATE OR REPLACE FUNCTION ${name}(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT ${call} $fn$;`,
    clauses(`COMMENT ON FUNCTION ${name}(jsonb)`, [`IS ${literal(comment)};`]),
  ].join('\n');
}

/** The record `_key` as a Single into _result (`more`: the embeds' members). */
const selectSingle = (s: Shape, h: Head, more = '') =>
  query([`SELECT ${singleJsonText(s, h.scenarioLabel, 't', more)} INTO _result`, `FROM ${s.rel} t`, `WHERE ${recordWhere(s)};`]);

function read(s: Shape): string {
  const h = head(s, 'read');
  return plpgsql(api(s, 'read'), ARGS, 'json', [...h.declare, '_result json;'], [
    ...keyCheck(s),
    parentCheck(s),
    ...embedScenarios(s),
    // A read without embeds keeps a plan of its own, as plain as the table's.
    ...(s.embeds.length ? [
      "IF args ? 'embed' THEN",
      `  ${selectSingle(s, h, embedMembers(s, 't', "args -> 'embed'", 'args'))}`,
      'ELSE',
      `  ${selectSingle(s, h)}`,
      'END IF;',
    ] : [selectSingle(s, h)]),
    'IF _result IS NULL THEN',
    // The gateway takes the refusal as the answer (`answer_refusal`): nothing to undo, and no error's cost on either
    // side (its context, the server log's line, the aborted transaction, the client's error object). Others get it raised.
    `  IF args ? 'answer_refusal' THEN RETURN ${fn(s, 'refusal')}(${literal(h.action)}, _key, _parent); END IF;`,
    `  PERFORM ${fn(s, 'refuse')}(${literal(h.action)}, _key, _parent);`,
    'END IF;',
    readPreconditions(s, "_result ->> 'etag'", "(_result ->> 'last_modified')::timestamptz"),
    'RETURN _result;',
  ], `read one ${s.entity}`);
}

/** A read's If-Match / If-Unmodified-Since, judged on the record it found (412); If-None-Match and If-Modified-Since are the gateway's (304). */
export function readPreconditions(s: Shape, etag: string, modified: string): string {
  return ifThen("args ? 'if_match' OR args ? 'if_unmodified_since'", [`PERFORM lib.precondition_check(${literal(s.entity)}, ${etag}, ${modified}, args);`]);
}

/**
 * `CASE WHEN body ? c THEN r.c ELSE <fallback> END` for each column a create may set. A Version in the body is
 * dropped before the body becomes a row (spec 2.6, 3.2: any client-supplied version is discarded, the record
 * starts at 1), so no value there, however malformed, reaches a cast.
 */
function create(s: Shape): string {
  const h = head(s, 'create');
  const managed = s.managed.filter((name) => name !== s.version);
  const cols = s.writable.concat(managed.map((name) => ({ name, json: false, primary: false, kept: false, fallback: 'NULL' })));
  const row = s.version ? `_body - ${literal(s.version)}` : '_body';
  const parent = s.parent ? [
    'IF _parent IS NOT NULL THEN',
    `  IF _body ? ${literal(s.parent.column)} AND _body ->> ${literal(s.parent.column)} IS DISTINCT FROM _parent THEN`,
    `    PERFORM lib.bad_request(format('"%s" must be the parent''s key "%s" on this path', ${literal(s.parent.column)}, _parent), ${literal(s.parent.column)}, 'parent');`,
    '  END IF;',
    `  _body := _body || jsonb_build_object(${literal(s.parent.column)}, _parent);`,
    'END IF;'] : [];
  return plpgsql(api(s, 'create'), ARGS, 'json', [...h.declare.filter((l) => !l.startsWith('_key')), "_body jsonb := args -> 'body';", '_result json;', '_about text[];'], [
    bodyCheck(s),
    parentCheck(s),
    ...parent,
    'BEGIN',
    // An entity whose every property the server fills (a readOnly key alone) has no column to list.
    ...(cols.length ? [
      `  INSERT INTO ${s.rel} AS t ${fill('(', cols.map((c) => ident(c.name)), ')')}`,
      `  SELECT ${cols.map((c) => `CASE WHEN _body ? ${literal(c.name)} THEN r.${ident(c.name)} ELSE ${c.fallback} END`).join(',\n  ')}`,
      `  FROM jsonb_populate_record(NULL::${s.rel}, ${row}) r`,
    ] : [`  INSERT INTO ${s.rel} AS t DEFAULT VALUES`]),
    `  RETURNING ${singleJsonText(s, h.scenarioLabel)} INTO _result;`,
    'EXCEPTION WHEN insufficient_privilege THEN',
    '  -- The row-level policy\'s WITH CHECK: the new record does not satisfy the winning scenario.',
    `  _about := ${fn(s, 'scenario')}(_scenario);`,
    `  RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], ${literal(s.entity)}),`,
    "    DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;",
    'END;',
    'RETURN _result;',
  ], `create a ${s.entity}`);
}

/** Every subset of `xs` (Password columns a PATCH body may name), the empty one first. */
function subsets(xs: string[]): string[][] {
  return xs.reduce<string[][]>((acc, x) => acc.concat(acc.map((sub) => [...sub, x])), [[]]);
}

/**
 * One statement per set of Password columns a body names (`statement(present)`), chosen by IF: a request role may
 * write a Password column but never read it, so one the body leaves out is kept by leaving it out of the statement.
 */
export function byPasswordsNamed(passwords: string[], statement: (present: string[]) => string[]): string[] {
  const variants = subsets(passwords);
  if (variants.length === 1) return statement([]);
  return variants.reverse().flatMap((present, i) => [
    i === variants.length - 1 ? 'ELSE' : `${i === 0 ? 'IF' : 'ELSIF'} ${present.map((c) => `_body ? ${literal(c)}`).join(' AND ')} THEN`,
    ...statement(present).map((l) => `  ${l}`),
  ]).concat(['END IF;']);
}

/**
 * app.<table>_update(args, _patch): PUT (`_patch` false: omitted writable properties reset) and PATCH (only the
 * body's, JSON merged per RFC 7396), for api.<table>_replace and api.<table>_patch. A request role may write a
 * Password column but never read it, so both keep one the body leaves out by leaving it out of SET: one statement
 * per set of Password columns the body names. (A client cannot read a password back to send it again, so a PUT
 * that reset an omitted one would lock its user out.)
 */
function update(s: Shape): string {
  const h = head(s, 'patch');
  const hidden = new Set(s.table.hiddenColumns);
  const setsFor = (present: string[]) => {
    const sets = s.writable.filter((c) => !c.primary && (!hidden.has(c.name) || present.includes(c.name))).map((c) => {
      const keep = `t.${ident(c.name)}`;
      const given = c.json
        ? `CASE WHEN _patch AND jsonb_typeof(_body -> ${literal(c.name)}) = 'object' THEN lib.merge_patch(${keep}, _body -> ${literal(c.name)}) ELSE r.${ident(c.name)} END`
        : `r.${ident(c.name)}`;
      if (hidden.has(c.name)) return `${ident(c.name)} = ${given}`;
      const omitted = c.kept ? `ELSE ${keep}` : `WHEN _patch THEN ${keep} ELSE ${c.fallback}`;
      return `${ident(c.name)} = CASE WHEN _body ? ${literal(c.name)} THEN ${given} ${omitted} END`;
    });
    // An empty PATCH still counts as a write (new revision, version + 1), like any other update. It sets the
    // revision, which the trigger renews anyway: an identity key may not even be set to itself (428C9).
    return sets.length ? sets : ['_rev = t._rev'];
  };
  const statement = (present: string[]) => [
    `UPDATE ${s.rel} t SET`,
    `  ${setsFor(present).join(',\n')}`,
    `FROM jsonb_populate_record(NULL::${s.rel}, _body) r`,
    `WHERE ${recordWhere(s)}`,
    `  AND ${preconditionWhere(s)}`,
    `RETURNING ${singleJsonText(s, h.scenarioLabel)} INTO _result;`,
  ];
  const updates = byPasswordsNamed(s.writable.filter((c) => hidden.has(c.name)).map((c) => c.name), statement);
  return plpgsql(fn(s, 'update'), [...ARGS, ['_patch', 'boolean']], 'json',
    [...h.declare, "_body jsonb := args -> 'body';", ...PRECONDITION_DECLARE, '_result json;', '_etag text;', '_modified timestamptz;'], [
    bodyCheck(s),
    ...keyCheck(s),
    parentCheck(s),
    `IF _body ? ${literal(s.pk)} AND _body ->> ${literal(s.pk)} IS DISTINCT FROM _key THEN`,
    `  PERFORM lib.bad_request(${literal(`primary key "${s.pk}" cannot be changed`)}, ${literal(s.pk)}, 'primary');`,
    'END IF;',
    ...preconditionAssignments(s),
    ...updates,
    'IF _result IS NULL THEN',
    ...explainMiss(s, h.action, 'live', '_expected').map((l) => `  ${l}`),
    'END IF;',
    'RETURN _result;',
  ], `Update a ${s.entity}: replace (PUT) when _patch is false, else patch (PATCH).`);
}

function remove(s: Shape): string {
  const h = head(s, 'delete');
  const pre = preconditionWhere(s);
  const statements = s.soft ? [
    'IF NOT _permanent THEN',
    `  UPDATE ${s.rel} t SET deleted_at = now() WHERE ${recordWhere(s)}`,
    `    AND ${pre};`,
    'ELSE',
    `  DELETE FROM ${s.rel} t WHERE ${recordWhere(s, 'any')}`,
    `    AND ${pre};`,
    'END IF;',
  ] : [`DELETE FROM ${s.rel} t WHERE ${recordWhere(s, 'any')}`, `  AND ${pre};`];
  const miss = s.soft
    ? [`IF NOT FOUND AND NOT _permanent THEN`, ...explainMiss(s, h.action, 'live', '_expected').map((l) => `  ${l}`),
      'ELSIF NOT FOUND THEN', ...explainMiss(s, h.action, 'any', '_expected').map((l) => `  ${l}`), 'END IF;']
    : ['IF NOT FOUND THEN', ...explainMiss(s, h.action, 'any', '_expected').map((l) => `  ${l}`), 'END IF;'];
  return plpgsql(api(s, 'delete'), ARGS, 'jsonb', [...h.declare, ...(s.soft ? ["_permanent boolean := coalesce((args ->> 'permanent')::boolean, false);"] : []),
    ...PRECONDITION_DECLARE, '_etag text;', '_modified timestamptz;'], [
    ...keyCheck(s),
    parentCheck(s),
    ...preconditionAssignments(s),
    ...statements,
    ...miss,
    `RETURN ${h.scenario};`,
  ], `delete a ${s.entity}${s.soft ? ' (soft delete unless permanent)' : ''}`);
}

/**
 * Restores a soft-deleted record; one that is not deleted is returned unchanged, when the restore scenario admits it.
 * If-Match and If-Unmodified-Since are conditions of the restoring UPDATE, as of any write (a soft delete leaves the
 * Version, so an ETag read before the delete still matches); on a live record they are judged as a read's (412).
 */
function restore(s: Shape): string {
  const h = head(s, 'restore');
  const restoring = (where: string) => [`UPDATE ${s.rel} t SET deleted_at = NULL`, `WHERE ${where}`, `RETURNING ${singleJsonText(s, h.scenarioLabel)} INTO _result;`];
  const etag = s.version ? `t.${ident(s.version)}::text` : 't._rev::text';
  return plpgsql(api(s, 'restore'), ARGS, 'json', [...h.declare, ...PRECONDITION_DECLARE, '_result json;', '_etag text;', '_modified timestamptz;'], [
    ...keyCheck(s),
    parentCheck(s),
    ...preconditionAssignments(s),
    ...restoring(`${recordWhere(s, 'deleted')}\n${indent(`AND ${preconditionWhere(s)}`)}`),
    'IF _result IS NULL AND (_if_match IS NOT NULL OR _since IS NOT NULL) THEN',
    // Was it the preconditions? Restore without them: a row restored so is undone by the 412 (the request's
    // transaction ends with it); a row the policies keep (restore filters, FETCH) is still not found (404).
    `  ${query([`SELECT ${etag}, t._modified_at INTO _etag, _modified`, `FROM ${s.rel} t`, `WHERE ${recordWhere(s, 'deleted')};`])}`,
    '  IF FOUND THEN',
    ...restoring(recordWhere(s, 'deleted')).map((l) => `    ${l}`),
    '    IF _result IS NOT NULL THEN',
    `      PERFORM lib.precondition_check(${literal(s.entity)}, _etag, _modified, args);`,
    '      RETURN _result;',
    '    END IF;',
    '  END IF;',
    'END IF;',
    'IF _result IS NULL THEN',
    `  ${selectSingle(s, h)}`,
    `  ${ifThen('_result IS NULL', [`PERFORM ${fn(s, 'refuse')}(${literal(h.action)}, _key, _parent, coalesce('*' = ANY (_if_match), false));`])}`,
    // A live record was read, not written: the SELECT policies let a write's lifecycle and attribute rules
    // give way (the write's own policy judges), so the restore scenario judges it here, as its UPDATE would.
    `  PERFORM ${fn(s, 'deny')}(${literal(h.action)}, _key);`,
    `  ${readPreconditions(s, "_result ->> 'etag'", "(_result ->> 'last_modified')::timestamptz")}`,
    'END IF;',
    'RETURN _result;',
  ], `restore a ${s.entity}`);
}

export function recordFunctions(s: Shape): Array<[string, string]> {
  const out: Array<[string, string]> = [['page', page(s)],
    ...PAGED.map((a): [string, string] => [a, delegate(api(s, a), `${fn(s, 'page')}(${literal(a)}, args)`, `${a} ${s.entity}: a page, ${bare(fn(s, 'page'))}('${a}', args).`)]),
    ['read', read(s)], ['create', create(s)], ['update', update(s)],
    ['replace', delegate(api(s, 'replace'), `${fn(s, 'update')}(args, false)`, `replace (PUT) a ${s.entity}: ${bare(fn(s, 'update'))}(args, false).`)],
    ['patch', delegate(api(s, 'patch'), `${fn(s, 'update')}(args, true)`, `patch (PATCH) a ${s.entity}: ${bare(fn(s, 'update'))}(args, true).`)],
    ['delete', remove(s)]];
  if (s.soft) out.push(['restore', restore(s)]);
  return out;
}
