-- The generic part of the request engine: what the compiled api.<table>_<action> functions share.
-- PRE_FETCH bookkeeping (lib.enter), value checks, RFC 7396 merge, and the one emitter of request-shaped
-- SQL (filters and sort), which builds text only from a table's compiled field list (lib.fields) and
-- keeps every client value inside the jsonb argument ($1), read from it by path.

CREATE TABLE IF NOT EXISTS lib.manifest (
  singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  manifest jsonb NOT NULL
);
COMMENT ON TABLE lib.manifest IS 'What api.manifest() returns to the gateway, but its resources.';
CREATE TABLE IF NOT EXISTS lib.manifest_resources (
  entity text PRIMARY KEY,
  resource jsonb NOT NULL
);
COMMENT ON TABLE lib.manifest_resources IS 'The resources of api.manifest(), one row per entity, written with the entity''s other objects.';
CREATE TABLE IF NOT EXISTS lib.fields (
  tbl text PRIMARY KEY,
  fields jsonb NOT NULL
);
COMMENT ON TABLE lib.fields IS 'Per table: its key and the properties a filter or sort may name, with their types (read by lib.filter_sql and lib.order_sql).';
DROP TABLE IF EXISTS lib.resources;
GRANT SELECT ON lib.fields, lib.manifest, lib.manifest_resources TO anon, authenticated;
-- The gateway's login role: it reads the manifest and calls api.dispatch, nothing else.
GRANT USAGE ON SCHEMA api, lib TO authenticator;
GRANT SELECT ON lib.manifest, lib.manifest_resources TO authenticator;

-- The generic interpreter of earlier versions (lib.run and the descriptor-driven actions), gone from a
-- database this script upgrades; names alone where they were never overloaded.
DROP FUNCTION IF EXISTS lib.run, lib.resource, lib.list, lib.read, lib.create, lib.update, lib.delete, lib.restore,
  lib.linked, lib.link, lib.unlink, lib.sub_read, lib.sub_replace, lib.owner_single, lib.edge_sql, lib.require_owner,
  lib.require_key, lib.record_sql, lib.parent_sql, lib.with_parent, lib.select_list, lib.single, lib.etag_sql,
  lib.precondition_sql, lib.explain_miss, lib.winner, lib.exists_as, lib.failing_rules, lib.refuse_if_denied,
  lib.record_exists, lib.forbidden, lib.missing;
DROP FUNCTION IF EXISTS lib.scenario(), lib.check_body(jsonb, jsonb), lib.expected_version(jsonb, jsonb), lib.not_found(jsonb, text);

CREATE OR REPLACE FUNCTION api.manifest() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT m.manifest || jsonb_build_object('resources',
    coalesce((SELECT jsonb_object_agg(r.entity, r.resource) FROM lib.manifest_resources r), m.manifest -> 'resources', '{}'))
  FROM lib.manifest m
$$;

-- Bulk create in one statement: api.dispatch(…, fn, args) for each element of `args_list`, in order. All
-- or nothing: when an element fails, everything the earlier ones did is rolled back (one savepoint for the
-- whole loop, not one per element) and the answer is {failed: {index, code, message, detail, hint,
-- constraint_name, column_name, table_name}}, the fields the gateway maps to a problem for that index.
-- Success: {results: [the result of each call]} (with outbox: true when files were queued for deletion), json
-- whose records keep the model's order (earlier versions: jsonb).
SELECT meta.drop_if_returns('api.dispatch_each(text, jsonb, text, text, jsonb)', 'json');
-- Under api.dispatch's search_path (see there), so its calls do not switch it for each element.
CREATE OR REPLACE FUNCTION api.dispatch_each(req_role text, claims jsonb, ip text, fn text, args_list jsonb) RETURNS json LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  _results text := '';
  _at int := 0;
  _n int := jsonb_array_length(args_list);
  _code text; _message text; _detail text; _hint text; _constraint text; _column text; _table text;
BEGIN
  BEGIN
    WHILE _at < _n LOOP
      _results := _results || CASE WHEN _at = 0 THEN '' ELSE ',' END || api.dispatch(req_role, claims, ip, fn, args_list -> _at)::text;
      _at := _at + 1;
    END LOOP;
  EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS _code = RETURNED_SQLSTATE, _message = MESSAGE_TEXT, _detail = PG_EXCEPTION_DETAIL,
      _hint = PG_EXCEPTION_HINT, _constraint = CONSTRAINT_NAME, _column = COLUMN_NAME, _table = TABLE_NAME;
    RETURN json_build_object('failed', jsonb_strip_nulls(jsonb_build_object('index', _at, 'code', _code, 'message', _message,
      'detail', nullif(_detail, ''), 'hint', nullif(_hint, ''), 'constraint_name', nullif(_constraint, ''),
      'column_name', nullif(_column, ''), 'table_name', nullif(_table, ''))));
  END;
  IF current_setting('request.outbox', true) = 'queued' THEN RETURN json_build_object('results', ('[' || _results || ']')::json, 'outbox', true); END IF;
  RETURN json_build_object('results', ('[' || _results || ']')::json);
END $fn$;
COMMENT ON FUNCTION api.dispatch_each(text, jsonb, text, text, jsonb)
  IS 'Bulk create: api.dispatch for each element of args_list, all or nothing; a failure answers {failed: {index, code, …}}.';

CREATE OR REPLACE FUNCTION lib.fields(name text) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT f.fields FROM lib.fields f WHERE f.tbl = name
$$;

-- Access bookkeeping ------------------------------------------------------------------------------
-- The action being served (list, read, update, …), and per table the scenario that won it. Policies
-- read the winner (lib.scenario) and fall back to the table's access function for plain SQL.
CREATE OR REPLACE FUNCTION lib.action() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('request.action', true), '')
$$;

CREATE OR REPLACE FUNCTION lib.scenario(tbl text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('request.scenario.' || tbl, true), '')
$$;

-- No scenario lets the caller `action` the entity: 401 for an anonymous caller, 403 otherwise.
CREATE OR REPLACE FUNCTION lib.no_scenario(action text, entity text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF auth.uid() IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'PT401', MESSAGE = format('No access scenario lets an anonymous caller %s %s: sign in.', action, entity);
  END IF;
  RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('No access scenario lets you %s %s.', action, entity);
END $$;

-- PRE_FETCH: records the action and the scenario that wins it on `tbl` (from app.<tbl>_access), before
-- any row is read; no winner is 401/403. Returns the winner.
-- (Assignments, not PERFORM: an expression is evaluated directly, a PERFORM runs as a query with its executor.)
CREATE OR REPLACE FUNCTION lib.enter(tbl text, action text, winner text, entity text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE _set text;
BEGIN
  IF winner IS NULL THEN PERFORM lib.no_scenario(action, entity); END IF;
  _set := set_config('request.action', action, true) || set_config('request.scenario.' || tbl, winner, true);
  RETURN winner;
END $$;

-- Checks a body's members: each must be one of `allowed`, and never one of `read_only` (spec 2.2: 400).
CREATE OR REPLACE FUNCTION lib.check_body(body jsonb, allowed text[], read_only text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE k text;
BEGIN
  IF jsonb_typeof(body) IS DISTINCT FROM 'object' THEN PERFORM lib.bad_request('the body must be a JSON object'); END IF;
  FOR k IN SELECT jsonb_object_keys(body) LOOP
    IF k = ANY (read_only) THEN
      PERFORM lib.bad_request(format('readOnly property "%s" cannot be supplied', k), k, 'readOnly');
    ELSIF NOT k = ANY (allowed) THEN
      PERFORM lib.bad_request(format('unknown property "%s"', k), k, 'unknown');
    END IF;
  END LOOP;
END $$;

-- Checks the body of a link: an object whose members are edge properties holding strings (or null).
CREATE OR REPLACE FUNCTION lib.check_edge(body jsonb, edge text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE k text;
BEGIN
  IF jsonb_typeof(body) <> 'object' THEN PERFORM lib.bad_request('the body must be a JSON object'); END IF;
  FOR k IN SELECT jsonb_object_keys(body) LOOP
    IF NOT k = ANY (edge) THEN PERFORM lib.bad_request(format('unknown edge property "%s"', k), k, 'unknown'); END IF;
    IF jsonb_typeof(body -> k) NOT IN ('string', 'null') THEN
      PERFORM lib.refuse('PT422', format('edge property "%s" must be a string', k), k, 'type');
    END IF;
  END LOOP;
END $$;

-- Request-shaped statements (filters, sort) are prepared once per connection and shape, so PostgreSQL
-- plans each shape once instead of on every request. Their parameters are always the same four
-- (the request's arguments, the parent key, limit and offset), passed through transaction-local settings
-- so that no value is ever part of the statement text. At most 200 shapes are kept per connection.
-- The session setting lib.prepared lists the shapes this session prepared: looking a name up in
-- pg_prepared_statements copies the text of every prepared statement, about 1 ms with 200 kept. It may
-- miss one (a rolled-back transaction undoes the setting, not the PREPARE), never name a missing one.
CREATE OR REPLACE FUNCTION lib.prepared(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  stmt text := 'lib_q_' || md5(sql);
  known text := coalesce(current_setting('lib.prepared', true), '');
  old text;
BEGIN
  IF strpos(known, stmt) = 0 THEN
    IF NOT EXISTS (SELECT 1 FROM pg_prepared_statements p WHERE p.name = stmt) THEN
      IF (SELECT count(*) FROM pg_prepared_statements p WHERE p.name LIKE 'lib\_q\_%') >= 200 THEN
        FOR old IN SELECT p.name FROM pg_prepared_statements p WHERE p.name LIKE 'lib\_q\_%' LOOP
          EXECUTE format('DEALLOCATE %I', old);
        END LOOP;
        known := '';
      END IF;
      EXECUTE format('PREPARE %I(jsonb, text, integer, bigint) AS %s', stmt, sql);
    END IF;
    PERFORM set_config('lib.prepared', known || stmt || ' ', false);
  END IF;
  RETURN format('EXECUTE %I(current_setting(''request.q.args'')::jsonb, nullif(current_setting(''request.q.parent''), ''''), '
    'current_setting(''request.q.limit'')::integer, current_setting(''request.q.offset'')::bigint)', stmt);
END $$;

-- A page of a list: its rows (json, as they go out) and each row's sort keys (the cursors are made of them).
DO $$ BEGIN
  IF to_regtype('lib.page_rows') IS NULL THEN CREATE TYPE lib.page_rows AS (rows json, at jsonb); END IF;
END $$;

-- Runs a request-shaped statement (one row of r's type: one column, or the columns of a composite type) as its prepared shape. A shape the
-- session setting names but the session no longer holds (DEALLOCATE ALL, or lib.prepared's clean-up in a
-- transaction that rolled back, which undoes the setting but not the DEALLOCATEs) is prepared again.
CREATE OR REPLACE FUNCTION lib.query_prepared(sql text, INOUT r anyelement) LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    EXECUTE lib.prepared(sql) INTO r;
  EXCEPTION WHEN invalid_sql_statement_name THEN
    PERFORM set_config('lib.prepared', '', false);
    EXECUTE lib.prepared(sql) INTO r;
  END;
END $$;

-- The same, always with the shape's generic plan. For a page with no filter and no parent: PostgreSQL's plan
-- cache would otherwise keep planning it anew on every call (about 0.6 ms under the policies' init-plans, more than
-- the page), since with its LIMIT known the custom plan looks far cheaper than the generic one, which guesses the
-- LIMIT at a tenth of the rows. A filtered page keeps the cache's choice: a range on an indexed column may need the
-- value to choose the index.
CREATE OR REPLACE FUNCTION lib.query_generic(sql text, INOUT r anyelement) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  r := lib.query_prepared(sql, r);
END $$;

-- The parameters of the prepared statements of one list request.
CREATE OR REPLACE FUNCTION lib.statement_params(args jsonb, parent text, lim integer, off bigint) RETURNS void LANGUAGE sql AS $$
  SELECT set_config('request.q.args', args::text, true), set_config('request.q.parent', coalesce(parent, ''), true),
    set_config('request.q.limit', lim::text, true), set_config('request.q.offset', off::text, true)
$$;

CREATE OR REPLACE FUNCTION lib.not_found(entity text, pk text, id text) RETURNS void LANGUAGE sql AS $$
  SELECT lib.refuse('PT404', format('no %s with %s "%s"', entity, pk, coalesce(id, '')), NULL, NULL)
$$;

-- Raises a refusal an app.<table>_refusal function wrote ({refused: {code, message, detail, hint}}), as the
-- raise it stands for would have: the same SQLSTATE, message, DETAIL and HINT (an option left out where null).
CREATE OR REPLACE FUNCTION lib.raise_refusal(refusal json) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r json := refusal -> 'refused';
BEGIN
  IF r ->> 'hint' IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = r ->> 'code', MESSAGE = r ->> 'message', DETAIL = coalesce(r ->> 'detail', ''), HINT = r ->> 'hint';
  ELSIF r ->> 'detail' IS NOT NULL THEN
    RAISE EXCEPTION USING ERRCODE = r ->> 'code', MESSAGE = r ->> 'message', DETAIL = r ->> 'detail';
  END IF;
  RAISE EXCEPTION USING ERRCODE = r ->> 'code', MESSAGE = r ->> 'message';
END $$;

-- Values -----------------------------------------------------------------------------------------

-- PostgreSQL 15 has no pg_input_is_valid: lib.input_is_valid stands in for it there, the cast itself in a block
-- that catches its data exception (class 22: bad text, out of range, bad date or time).
CREATE OR REPLACE FUNCTION lib.input_is_valid(v text, typ text) RETURNS boolean LANGUAGE plpgsql STABLE AS $fn$
DECLARE _i bigint; _n numeric; _f double precision; _b boolean; _d date; _t time; _ts timestamptz; _j jsonb;
BEGIN
  CASE typ
    WHEN 'integer' THEN _i := v::integer;
    WHEN 'bigint' THEN _i := v::bigint;
    WHEN 'numeric' THEN _n := v::numeric;
    WHEN 'double precision' THEN _f := v::double precision;
    WHEN 'boolean' THEN _b := v::boolean;
    WHEN 'date' THEN _d := v::date;
    WHEN 'time without time zone' THEN _t := v::time;
    WHEN 'timestamp with time zone' THEN _ts := v::timestamptz;
    WHEN 'jsonb' THEN _j := v::jsonb;
    ELSE RETURN false;
  END CASE;
  RETURN true;
EXCEPTION WHEN data_exception THEN
  RETURN false;
END $fn$;

-- True when `v` is a valid input for `typ` (a compiler-owned type name). Numbers, dates and times must
-- be written as in JSON and ISO 8601: PostgreSQL's own extras ('NaN', 'now', 'epoch', 'allballs') are not.
-- pg_input_is_valid caches its type per call site, so each type has a call of its own. Installed from text:
-- on PostgreSQL 15 its calls name lib.input_is_valid instead (\sf lib.castable shows what this server runs).
DO $do$
DECLARE body text := $body$
CREATE OR REPLACE FUNCTION lib.castable(v text, typ text) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
DECLARE number text := '^-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$';
BEGIN
  RETURN v IS NULL OR CASE typ
    WHEN 'text' THEN true
    WHEN 'character varying(255)' THEN true  -- a key: any string is a value (a longer one matches no row)
    WHEN 'character varying' THEN true  -- a filter's comparison type (compiler/sql/functions.ts: comparisonType)
    WHEN 'integer' THEN v ~ number AND pg_input_is_valid(v, 'integer')
    WHEN 'bigint' THEN v ~ number AND pg_input_is_valid(v, 'bigint')
    WHEN 'numeric' THEN v ~ number AND pg_input_is_valid(v, 'numeric')
    WHEN 'double precision' THEN v ~ number AND pg_input_is_valid(v, 'double precision')
    WHEN 'boolean' THEN pg_input_is_valid(v, 'boolean')
    WHEN 'date' THEN v ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' AND pg_input_is_valid(v, 'date')
    WHEN 'time without time zone' THEN v ~ '^[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?$' AND pg_input_is_valid(v, 'time without time zone')
    WHEN 'timestamp with time zone' THEN
      v ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}([Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,6})?)?([Zz]|[+-][0-9]{2}(:?[0-9]{2})?)?)?$'
      AND pg_input_is_valid(v, 'timestamp with time zone')
    WHEN 'jsonb' THEN pg_input_is_valid(v, 'jsonb')
    ELSE false END;
END $$;
$body$;
BEGIN
  IF current_setting('server_version_num')::int < 160000 THEN
    body := replace(body, 'pg_input_is_valid(', 'lib.input_is_valid(');
  END IF;
  EXECUTE body;
END $do$;

CREATE OR REPLACE FUNCTION lib.as_text_array(v jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE jsonb_typeof(v)
    WHEN 'array' THEN ARRAY(SELECT x #>> '{}' FROM jsonb_array_elements(v) AS x)
    WHEN 'null' THEN NULL
    ELSE ARRAY[v #>> '{}'] END
$$;

-- {"a":{"b": v}} from path {a,b}: containment at depth, served by the Tier A GIN index.
CREATE OR REPLACE FUNCTION lib.jsonb_nest(path text[], v jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN cardinality(path) = 0 THEN v
    ELSE jsonb_build_object(path[1], lib.jsonb_nest(path[2:], v)) END
$$;

-- RFC 7396 JSON Merge Patch: objects merge recursively, null removes a member, anything else replaces.
-- One pass over each object (its kept members, then the patch's), so linear in the documents' size.
CREATE OR REPLACE FUNCTION lib.merge_patch(target jsonb, patch jsonb) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  IF jsonb_typeof(patch) IS DISTINCT FROM 'object' THEN RETURN patch; END IF;
  IF jsonb_typeof(target) IS DISTINCT FROM 'object' THEN target := '{}'; END IF;
  RETURN (SELECT coalesce(jsonb_object_agg(m.key, m.value), '{}'::jsonb) FROM (
    SELECT t.key, t.value FROM jsonb_each(target) t WHERE NOT patch ? t.key
    UNION ALL
    SELECT p.key, CASE WHEN jsonb_typeof(p.value) = 'object' THEN lib.merge_patch(target -> p.key, p.value) ELSE p.value END
    FROM jsonb_each(patch) p WHERE jsonb_typeof(p.value) <> 'null') m);
END $$;

CREATE OR REPLACE FUNCTION lib.bad_request(message text, property text DEFAULT NULL, rule text DEFAULT NULL)
RETURNS void LANGUAGE sql AS $$
  SELECT lib.refuse('PT400', message, property, rule)
$$;

-- Filters and sorting ------------------------------------------------------------------------------

-- The column (or JSON path) expression a field names, with its comparison type. `field` is a property
-- or property.json.path; the result: {expr, type, kind, json_path} or a PT400 naming the field.
-- A field `embed.property` (a filter on a referenced record: `project.name`) is that property of the row
-- the reference names, read by a subquery under the target table's policies: null when hidden or absent.
-- lib.field_expr over the row at `alias`.
CREATE OR REPLACE FUNCTION lib.field_expr_at(d jsonb, field text, purpose text, alias text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  parts text[] := string_to_array(field, '.');
  prop text := parts[1];
  rest text[] := parts[2:];
  col jsonb := d -> 'columns' -> prop;
  ref jsonb := d -> 'embeds' -> prop;
  reached jsonb;
  cast_name text;
  base text;
BEGIN
  IF col IS NULL AND ref IS NOT NULL AND purpose = 'filter' AND cardinality(rest) = 1 THEN
    reached := lib.field_expr_at(lib.fields(ref ->> 'table'), rest[1], purpose, 'r');
    RETURN reached || jsonb_build_object('expr', format('(SELECT %s FROM app.%I r WHERE r.%I = %I.%I%s)', reached ->> 'expr',
      ref ->> 'table', ref ->> 'pk', alias, ref ->> 'column', CASE WHEN (ref ->> 'live')::boolean THEN ' AND r.deleted_at IS NULL' ELSE '' END));
  END IF;
  IF col IS NULL OR NOT (col ->> 'readable')::boolean THEN
    PERFORM lib.bad_request(format('unknown %s property "%s"', purpose, prop), prop, 'unknown');
  END IF;
  base := format('%I.%I', alias, prop);
  IF cardinality(rest) = 0 THEN
    RETURN jsonb_build_object('expr', base, 'type', col ->> 'type', 'kind', col ->> 'kind',
      'multiple', col -> 'multiple', 'json', col -> 'json', 'search', col -> 'search', 'email', col -> 'email');
  END IF;
  IF NOT (col ->> 'json')::boolean THEN
    PERFORM lib.bad_request(format('"%s" is not a JSON property, so "%s" has no sub-path', prop, field), prop, 'path');
  END IF;
  IF EXISTS (SELECT 1 FROM unnest(rest) s WHERE s !~ '^[A-Za-z0-9_]+$') THEN
    PERFORM lib.bad_request(format('invalid JSON path "%s"', field), prop, 'path');
  END IF;
  cast_name := col -> 'casts' ->> array_to_string(rest, '.');
  RETURN jsonb_build_object(
    'expr', CASE cast_name
      WHEN 'Integer' THEN format('lib.jsonb_integer(%s #> %L::text[])', base, rest::text)
      WHEN 'Decimal' THEN format('lib.jsonb_numeric(%s #> %L::text[])', base, rest::text)
      WHEN 'Boolean' THEN format('lib.jsonb_boolean(%s #> %L::text[])', base, rest::text)
      ELSE format('(%s #>> %L::text[])', base, rest::text) END,
    'jsonb_expr', format('(%s #> %L::text[])', base, rest::text),
    'base', base, 'path', to_jsonb(rest), 'path_array', rest::text,
    'type', CASE cast_name WHEN 'Integer' THEN 'bigint' WHEN 'Decimal' THEN 'numeric' WHEN 'Boolean' THEN 'boolean' ELSE 'text' END,
    'kind', CASE cast_name WHEN 'Integer' THEN 'Number' WHEN 'Decimal' THEN 'Number' WHEN 'Boolean' THEN 'Boolean' ELSE 'String' END,
    'multiple', false, 'json', false, 'jsonpath', true, 'search', false);
END $$;

CREATE OR REPLACE FUNCTION lib.field_expr(d jsonb, field text, purpose text) RETURNS jsonb LANGUAGE sql AS $$
  SELECT lib.field_expr_at(d, field, purpose, 't')
$$;

-- One filter condition. `vp` is the text of the JSON path of its value inside the argument $1. An Email is
-- stored lowercase, so the value it meets is lowered the same way (its JSON text: a string or a list of them).
CREATE OR REPLACE FUNCTION lib.condition_sql(d jsonb, node jsonb, vp text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  field text := node ->> 'field';
  op text := node ->> 'op';
  v jsonb := node -> 'value';
  f jsonb := lib.field_expr(d, field, 'filter');
  e text := f ->> 'expr';
  typ text := f ->> 'type';
  kind text := f ->> 'kind';
  vj text := format(CASE WHEN (f ->> 'email')::boolean THEN 'lower(($1 #> %L::text[])::text)::jsonb' ELSE '($1 #> %L::text[])' END, vp::text);
  val text := format(CASE WHEN (f ->> 'email')::boolean THEN 'lower($1 #>> %L::text[])' ELSE '($1 #>> %L::text[])' END, vp::text);
  o jsonb := lib.operators() -> op;  -- the operator table (compiler/query/operators.ts)
  item text;
  flag boolean;
BEGIN
  IF o IS NULL THEN PERFORM lib.bad_request(format('unknown operator "%s"', op), field, op); END IF;
  IF o ->> 'value' = 'flag' THEN
    IF v::text NOT IN ('true', 'false', '"true"', '"false"') THEN
      PERFORM lib.bad_request(format('%s[%s] takes true or false', field, op), field, op);
    END IF;
    flag := (v #>> '{}')::boolean;
  END IF;
  CASE op
  WHEN 'null' THEN
    IF f ? 'jsonb_expr' THEN  -- at a JSON path, a JSON null counts as null too
      RETURN format('(coalesce(jsonb_typeof(%s), ''null'') %s ''null'')', f ->> 'jsonb_expr', CASE WHEN flag THEN '=' ELSE '<>' END);
    END IF;
    RETURN format('(%s IS %sNULL)', e, CASE WHEN flag THEN '' ELSE 'NOT ' END);
  WHEN 'exists' THEN
    IF NOT coalesce((f ->> 'jsonpath')::boolean, false) THEN
      PERFORM lib.bad_request(format('%s[exists] needs a path into a JSON property', field), field, op);
    END IF;
    RETURN format('(%s%s @? %L)', CASE WHEN flag THEN '' ELSE 'NOT ' END, f ->> 'base',
      '$' || (SELECT string_agg(format('."%s"', s), '') FROM jsonb_array_elements_text(f -> 'path') s));
  WHEN 'contains' THEN
    IF (f ->> 'json')::boolean THEN
      RETURN format('(%s @> %s)', e, vj);
    ELSIF (f ->> 'jsonpath')::boolean THEN
      RETURN format('(%s @> lib.jsonb_nest(%L::text[], %s))', f ->> 'base', f ->> 'path_array', vj);
    ELSIF (f ->> 'multiple')::boolean THEN
      FOREACH item IN ARRAY coalesce(lib.as_text_array(v), '{}') LOOP
        IF NOT lib.castable(item, rtrim(typ, '[]')) THEN
          PERFORM lib.bad_request(format('%s[contains]: "%s" is not a valid %s', field, item, lower(kind)), field, op);
        END IF;
      END LOOP;
      RETURN format('(%s @> lib.as_text_array(%s)::%s)', e, vj, typ);
    END IF;
    PERFORM lib.bad_request(format('%s[contains] applies to JSON and multiple properties', field), field, op);
  WHEN 'search' THEN
    IF NOT coalesce((f ->> 'search')::boolean, false) THEN
      PERFORM lib.bad_request(format('%s[search] needs a searchIndexed property', field), field, op);
    END IF;
    RETURN format('(to_tsvector(''simple''::regconfig, (%s)::text) @@ websearch_to_tsquery(''simple''::regconfig, %s))', e, val);
  ELSE
    NULL;
  END CASE;

  IF (f ->> 'json')::boolean OR (f ->> 'multiple')::boolean THEN
    PERFORM lib.bad_request(format('%s[%s] does not apply to a %s property; use contains or a JSON path', field, op,
      CASE WHEN (f ->> 'json')::boolean THEN 'JSON' ELSE 'multiple' END), field, op);
  END IF;
  IF o ? 'types' AND NOT (o -> 'types') ? kind THEN
    PERFORM lib.bad_request(format('%s[%s] does not apply to a %s', field, op, kind), field, op);
  END IF;
  IF o ->> 'value' = 'list' THEN
    FOREACH item IN ARRAY coalesce(lib.as_text_array(v), '{}') LOOP
      IF NOT lib.castable(item, typ) THEN
        PERFORM lib.bad_request(format('%s[%s]: "%s" is not a valid %s', field, op, item, lower(kind)), field, op);
      END IF;
    END LOOP;
    IF op = 'in' THEN
      RETURN format('(%s = ANY (lib.as_text_array(%s)::%s[]))', e, vj, typ);
    END IF;
    RETURN format('(%s IS NULL OR %s <> ALL (lib.as_text_array(%s)::%s[]))', e, e, vj, typ);
  END IF;
  IF jsonb_typeof(v) NOT IN ('string', 'number', 'boolean') THEN
    PERFORM lib.bad_request(format('%s[%s] takes a single value', field, op), field, op);
  END IF;
  IF o ->> 'value' = 'pattern' THEN
    RETURN format('((%s)::text %s replace(%s, ''*'', ''%%''))', e, o ->> 'sql', val);
  END IF;
  IF NOT lib.castable(v #>> '{}', typ) THEN
    PERFORM lib.bad_request(format('%s[%s]: "%s" is not a valid %s', field, op, v #>> '{}', lower(kind)), field, op);
  END IF;
  RETURN format('(%s %s %s::%s)', e, o ->> 'sql', val, typ);
END $$;

-- The WHERE clause of a filter tree ({and|or: [...]}, {not: …}, {field, op, value}).
CREATE OR REPLACE FUNCTION lib.filter_sql(d jsonb, node jsonb, path text[]) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  parts text[] := '{}';
  i int;
  key text;
BEGIN
  IF node IS NULL OR node = 'null'::jsonb THEN RETURN 'true'; END IF;
  IF jsonb_typeof(node) <> 'object' THEN PERFORM lib.bad_request('a filter must be an object'); END IF;
  IF node ? 'field' THEN RETURN lib.condition_sql(d, node, path || '{value}'::text[]); END IF;
  IF node ? 'not' THEN RETURN format('(NOT %s)', lib.filter_sql(d, node -> 'not', path || '{not}'::text[])); END IF;
  key := CASE WHEN node ? 'and' THEN 'and' WHEN node ? 'or' THEN 'or' END;
  IF key IS NULL OR jsonb_typeof(node -> key) <> 'array' THEN
    PERFORM lib.bad_request('a filter group needs "and", "or" or "not"');
  END IF;
  FOR i IN 0 .. jsonb_array_length(node -> key) - 1 LOOP
    parts := parts || lib.filter_sql(d, node -> key -> i, path || ARRAY[key, i::text]);
  END LOOP;
  IF cardinality(parts) = 0 THEN RETURN CASE key WHEN 'and' THEN 'true' ELSE 'false' END; END IF;
  RETURN '(' || array_to_string(parts, CASE key WHEN 'and' THEN ' AND ' ELSE ' OR ' END) || ')';
END $$;

