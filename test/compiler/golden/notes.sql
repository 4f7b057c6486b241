-- Constraints and indexes the model no longer has, or has changed -------------------------------

SELECT meta.drop_replaced('notes', ARRAY['notes_pkey']::text[], ARRAY['PRIMARY KEY ("id")']::text[], ARRAY[]::text[], ARRAY[]::text[]);

-- Tables and columns ----------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS "app"."notes" ();
COMMENT ON TABLE "app"."notes" IS 'Entity Note (collection notes).';
SELECT meta.ensure_column('notes', 'id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."notes"."id" IS 'primary, readOnly';
SELECT meta.ensure_column('notes', 'title', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."notes"."title" IS 'required';
SELECT meta.ensure_column('notes', 'pinned', 'boolean', false, 'false::boolean', false);
COMMENT ON COLUMN "app"."notes"."pinned" IS NULL;
SELECT meta.ensure_column('notes', 'body_text', 'character varying(255)', false, NULL, false);
COMMENT ON COLUMN "app"."notes"."body_text" IS NULL;
SELECT meta.ensure_column('notes', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."notes"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('notes', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."notes"."_modified_at" IS 'Time of the last write (Last-Modified).';

-- Primary keys, unique and check constraints ----------------------------------------------------

SELECT meta.ensure_constraint('notes', 'notes_pkey', 'PRIMARY KEY ("id")', '{"property":"id","rule":"primary"}'::jsonb);

-- Write rules -----------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION "app"."notes_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW."id" IS NOT NULL THEN
      PERFORM lib.refuse('PT400', 'readOnly property "id" cannot be supplied', 'id', 'readOnly');
    END IF;
    NEW."id" := gen_random_uuid()::text;
  ELSE
    IF NEW."id" IS DISTINCT FROM OLD."id" THEN
      PERFORM lib.refuse('PT400', 'primary key "id" cannot be changed', 'id', 'primary');
    END IF;
  END IF;
  NEW._rev := gen_random_uuid();
  NEW._modified_at := now();
  RETURN NEW;
END $fn$;
COMMENT ON FUNCTION "app"."notes_write_rules"() IS 'Write rules of app.notes: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."notes" FOR EACH ROW EXECUTE FUNCTION "app"."notes_write_rules"();

-- Change log: each written row appended to lib.changes (design 9) -------------------------------

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."notes"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Note', 'id', 'entity', '_rev', '{}');

-- Change log: how long each table's rows are kept (record history, design 9) --------------------

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('notes', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

UPDATE lib.changes_keep SET keep_seconds = 0 WHERE keep_seconds IS DISTINCT FROM 0 AND table_name <> ALL (ARRAY['notes']::text[]);

-- Files: claim of file references, outbox of replaced and deleted files -------------------------

DROP TRIGGER IF EXISTS files ON "app"."notes";
DROP TRIGGER IF EXISTS files_gone ON "app"."notes";
DROP FUNCTION IF EXISTS "app"."notes_files"();
DROP FUNCTION IF EXISTS "app"."notes_files_gone"();

-- Privileges of the request roles ---------------------------------------------------------------

REVOKE ALL ON "app"."notes" FROM anon, authenticated;
GRANT SELECT ("id", "title", "pinned", "body_text", "_rev", "_modified_at") ON "app"."notes" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."notes" TO anon, authenticated;

-- API functions: compiled per table and action, filter fields, the manifest ---------------------

INSERT INTO lib.fields (tbl, fields) VALUES ('notes', '{
  "pk": "id",
  "columns": {
    "id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "title": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "pinned": {"type":"boolean","kind":"Boolean","multiple":false,"json":false,"readable":true,"search":false},
    "body_text": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false}
  }
}'::jsonb)
  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;

INSERT INTO lib.manifest_resources (entity, resource) VALUES ('Note', '{
  "entity": "Note",
  "collection": "notes",
  "table": "notes",
  "primaryKey": "id",
  "softDelete": false,
  "properties": {
    "id": {"type":"String","primary":true,"readOnly":true},
    "title": {"type":"String","required":true},
    "pinned": {"type":"Boolean","defaultValue":false},
    "bodyText": {"type":"String","column":"body_text"}
  },
  "relations": {},
  "functions": {
    "list": "notes_list",
    "search": "notes_search",
    "read": "notes_read",
    "create": "notes_create",
    "replace": "notes_replace",
    "patch": "notes_patch",
    "delete": "notes_delete",
    "stream": "notes_stream"
  },
  "schemas": {
    "$defs": {
      "title": {"type":"string","maxLength":255},
      "pinned": {"anyOf":[{"type":"boolean"},{"type":"null"}]},
      "bodyText": {"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]}
    },
    "create": {
      "type": "object",
      "properties": {"title":{"$ref":"#/$defs/title"},"pinned":{"$ref":"#/$defs/pinned"},"bodyText":{"$ref":"#/$defs/bodyText"}},
      "required": ["title"],
      "additionalProperties": false
    },
    "replace": {
      "type": "object",
      "properties": {"title":{"$ref":"#/$defs/title"},"pinned":{"$ref":"#/$defs/pinned"},"bodyText":{"$ref":"#/$defs/bodyText"}},
      "required": ["title"],
      "additionalProperties": false
    },
    "patch": {
      "type": "object",
      "properties": {"title":{"$ref":"#/$defs/title"},"pinned":{"$ref":"#/$defs/pinned"},"bodyText":{"$ref":"#/$defs/bodyText"}},
      "additionalProperties": false
    },
    "read": {
      "type": "object",
      "properties": {
        "id": {"type":"string","maxLength":255,"readOnly":true},
        "title": {"type":"string","maxLength":255},
        "pinned": {"anyOf":[{"type":"boolean"},{"type":"null"}]},
        "bodyText": {"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]}
      }
    }
  },
  "constraints": {"notes_pkey":{"property":"id","rule":"primary"}}
}'::jsonb)
  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;

SELECT meta.drop_if_returns('"app"."notes_page"(text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION "app"."notes_page"(_action text, args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('notes', _action, "app"."notes_access"(_action), 'Note');
  _parent text := args ->> 'parent';
  _page int := lib.page(args);
  _per_page int := lib.per_page(args);
  _count text := lib.count_mode(args);
  _sort jsonb := args -> 'sort';
  _before boolean := args ? 'before';
  _where text;
  _keys jsonb;
  _cursor jsonb;
  _total jsonb;
  _offset bigint;
  _few boolean;
  _sql text;
  _page_rows lib.page_rows;
  _rows json;
  _at jsonb;
  _more boolean;
  _meta jsonb;
BEGIN
  IF _action IS NULL OR _action <> ALL (ARRAY['list', 'search']::text[]) THEN
    PERFORM lib.bad_request('a page is one of list, search');
  END IF;
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Note has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('notes'), args -> 'filter', '{filter}');
  _keys := lib.sort_keys(lib.fields('notes'), _sort);
  IF args ? 'after' OR _before THEN
    _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);
    args := args || jsonb_build_object('cursor', _cursor);
  END IF;
  _offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;
  PERFORM lib.statement_params(args, _parent, _per_page, _offset);
  _total := lib.page_total(_count, $q$SELECT count(*) FROM "app"."notes" t WHERE $q$ || _where,
    $q$SELECT count(*) FROM "app"."notes" t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE $q$ || _where,
    '"app"."notes"'::regclass, 1000);
  _few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;
  IF _few AND (_total ->> 'total')::bigint <= _offset THEN
    _page_rows := ('[]', '[]')::lib.page_rows;
  ELSE
    _sql := $q$SELECT coalesce(json_agg((SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."title" AS "title", t."pinned" AS "pinned", t."body_text" AS "bodyText"
    ) r)), '[]'), coalesce(jsonb_agg($q$ || lib.keys_sql(_keys) || $q$), '[]')
      FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END
      || $q$t."id", t."title", t."pinned", t."body_text", t._rev, t._modified_at
        FROM "app"."notes" t WHERE $q$ || _where
      || CASE WHEN _cursor IS NULL THEN '' ELSE ' AND ' || lib.keyset_sql(_keys, _cursor, _before) END
      || CASE WHEN _few THEN ' OFFSET 0) t' ELSE '' END
      || ' ORDER BY ' || lib.order_sql(_keys, _before) || ' LIMIT $3 OFFSET $4) t';
    IF _where = 'true' THEN _page_rows := lib.query_generic(_sql, NULL::lib.page_rows);
    ELSE _page_rows := lib.query_prepared(_sql, NULL::lib.page_rows); END IF;
  END IF;
  _rows := _page_rows.rows;
  _at := _page_rows.at;
  _more := jsonb_array_length(_at) = _per_page AND (_cursor IS NOT NULL OR _total ->> 'count' <> 'exact'
    OR _page::bigint * _per_page < (_total ->> 'total')::bigint);
  IF _before THEN _rows := lib.json_reverse(_rows); _at := lib.jsonb_reverse(_at); END IF;
  _meta := _total || jsonb_build_object('per_page', _per_page) || CASE WHEN _cursor IS NULL THEN jsonb_build_object('page', _page) ELSE '{}' END;
  IF jsonb_array_length(_at) > 0 AND (_more AND NOT _before OR _before) THEN
    _meta := _meta || jsonb_build_object('next', lib.cursor_text(_at -> -1, _sort));
  END IF;
  IF jsonb_array_length(_at) > 0 AND (_more AND _before OR args ? 'after' OR _cursor IS NULL AND _page > 1) THEN
    _meta := _meta || jsonb_build_object('prev', lib.cursor_text(_at -> 0, _sort));
  END IF;
  RETURN json_build_object('meta', _meta, 'scenario', ("app"."notes_scenario"(_scenario))[1], 'data_bytes', octet_length(_rows::text), 'data', _rows);
END $fn$;
COMMENT ON FUNCTION "app"."notes_page"(text, jsonb)
  IS 'A page of Note records for list and search: filters and sort from the request, offset or keyset paging, '
    'total by count mode (spec 5.2 FETCH under the policies).';

SELECT meta.drop_if_returns('"api"."notes_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."notes_list"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."notes_page"('list', args) $fn$;
COMMENT ON FUNCTION "api"."notes_list"(jsonb) IS 'list Note: a page, app.notes_page(''list'', args).';

SELECT meta.drop_if_returns('"api"."notes_search"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."notes_search"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."notes_page"('search', args) $fn$;
COMMENT ON FUNCTION "api"."notes_search"(jsonb) IS 'search Note: a page, app.notes_page(''search'', args).';

SELECT meta.drop_if_returns('"api"."notes_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."notes_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('notes', 'read', "app"."notes_access"('read'), 'Note');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _result json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Note has no parent'); END IF;
  SELECT json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."title" AS "title", t."pinned" AS "pinned", t."body_text" AS "bodyText"
    ) r),
    'id', t."id"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."notes_scenario"(_scenario))[1]
  ) INTO _result
  FROM "app"."notes" t
  WHERE t."id" = _key;
  IF _result IS NULL THEN
    IF args ? 'answer_refusal' THEN RETURN "app"."notes_refusal"('read', _key, _parent); END IF;
    PERFORM "app"."notes_refuse"('read', _key, _parent);
  END IF;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('Note', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."notes_read"(jsonb) IS 'read one Note';

SELECT meta.drop_if_returns('"api"."notes_create"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."notes_create"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('notes', 'create', "app"."notes_access"('create'), 'Note');
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _result json;
  _about text[];
BEGIN
  PERFORM lib.check_body(_body, ARRAY['title', 'pinned', 'body_text']::text[], ARRAY['id']::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Note has no parent'); END IF;
  BEGIN
    INSERT INTO "app"."notes" AS t ("title", "pinned", "body_text")
    SELECT CASE WHEN _body ? 'title' THEN r."title" ELSE NULL END,
      CASE WHEN _body ? 'pinned' THEN r."pinned" ELSE false::boolean END,
      CASE WHEN _body ? 'body_text' THEN r."body_text" ELSE NULL END
    FROM jsonb_populate_record(NULL::"app"."notes", _body) r
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."title" AS "title", t."pinned" AS "pinned", t."body_text" AS "bodyText"
      ) r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."notes_scenario"(_scenario))[1]
    ) INTO _result;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    _about := "app"."notes_scenario"(_scenario);
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], 'Note'),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;
  END;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."notes_create"(jsonb) IS 'create a Note';

SELECT meta.drop_if_returns('"app"."notes_update"(jsonb, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."notes_update"(args jsonb, _patch boolean) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('notes', 'update', "app"."notes_access"('update'), 'Note');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _result json;
  _etag text;
  _modified timestamptz;
BEGIN
  PERFORM lib.check_body(_body, ARRAY['title', 'pinned', 'body_text']::text[], ARRAY['id']::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Note has no parent'); END IF;
  IF _body ? 'id' AND _body ->> 'id' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('primary key "id" cannot be changed', 'id', 'primary');
  END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  UPDATE "app"."notes" t SET
    "title" = CASE WHEN _body ? 'title' THEN r."title" WHEN _patch THEN t."title" ELSE NULL END,
    "pinned" = CASE WHEN _body ? 'pinned' THEN r."pinned" WHEN _patch THEN t."pinned" ELSE false::boolean END,
    "body_text" = CASE WHEN _body ? 'body_text' THEN r."body_text" WHEN _patch THEN t."body_text" ELSE NULL END
  FROM jsonb_populate_record(NULL::"app"."notes", _body) r
  WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
  RETURNING json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."title" AS "title", t."pinned" AS "pinned", t."body_text" AS "bodyText"
    ) r),
    'id', t."id"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."notes_scenario"(_scenario))[1]
  ) INTO _result;
  IF _result IS NULL THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified FROM "app"."notes" t WHERE t."id" = _key;
    IF NOT FOUND THEN PERFORM "app"."notes_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."notes_deny"('update', _key);
    PERFORM lib.precondition_failed('Note', _etag, _modified, args, _expected);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "app"."notes_update"(jsonb, boolean) IS 'Update a Note: replace (PUT) when _patch is false, else patch (PATCH).';

SELECT meta.drop_if_returns('"api"."notes_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."notes_replace"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."notes_update"(args, false) $fn$;
COMMENT ON FUNCTION "api"."notes_replace"(jsonb) IS 'replace (PUT) a Note: app.notes_update(args, false).';

SELECT meta.drop_if_returns('"api"."notes_patch"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."notes_patch"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."notes_update"(args, true) $fn$;
COMMENT ON FUNCTION "api"."notes_patch"(jsonb) IS 'patch (PATCH) a Note: app.notes_update(args, true).';

CREATE OR REPLACE FUNCTION "api"."notes_delete"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('notes', 'delete', "app"."notes_access"('delete'), 'Note');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Note has no parent'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  DELETE FROM "app"."notes" t WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since);
  IF NOT FOUND THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified FROM "app"."notes" t WHERE t."id" = _key;
    IF NOT FOUND THEN PERFORM "app"."notes_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."notes_deny"('delete', _key);
    PERFORM lib.precondition_failed('Note', _etag, _modified, args, _expected);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."notes_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."notes_delete"(jsonb) IS 'delete a Note';

SELECT meta.drop_if_returns('"api"."notes_stream"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."notes_stream"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('notes', 'list', "app"."notes_access"('list'), 'Note');
  _parent text := args ->> 'parent';
  _where text;
  _sql text;
  _visible json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Note has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('notes'), args -> 'filter', '{filter}');
  IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;
  PERFORM lib.statement_params(args, _parent, 0, 0);
  _sql := $q$SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')
  FROM "app"."notes_changes"(
    ($1 ->> 'after_tx')::xid8,
    ($1 ->> 'after_id')::bigint,
    ($1 ->> 'before')::xid8,
    ($1 ->> 'limit')::integer
  ) c$q$
    || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."notes", c.image) t WHERE $q$ || _where END;
  _visible := lib.query_generic(_sql, NULL::json);
  RETURN json_build_object('data', _visible);
END $fn$;
COMMENT ON FUNCTION "api"."notes_stream"(jsonb)
  IS 'which changes of Note (and its links) past a position the caller may list, narrowed by the list''s filters and parent (design 9)';

DROP FUNCTION IF EXISTS "app"."notes_versions"(text, text, text, integer, bigint);  -- no history kept

DELETE FROM lib.fields WHERE tbl <> ALL (ARRAY['notes']::text[]);

DELETE FROM lib.manifest_resources WHERE entity <> ALL (ARRAY['Note']::text[]);

SELECT meta.drop_if_returns('api.dispatch(text, jsonb, text, text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION api.dispatch(req_role text, claims jsonb, ip text, fn text, args jsonb) RETURNS json LANGUAGE plpgsql
  SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE _result json; _set text;
BEGIN
  IF req_role NOT IN ('anon', 'authenticated') THEN
    RAISE EXCEPTION 'unknown request role %', req_role USING ERRCODE = '42501';
  END IF;
  -- Assignments, not PERFORM: an expression is evaluated directly, a PERFORM runs as a query with its executor.
  -- An anonymous call carries no identity, whatever claims came with it.
  _set := set_config('role', req_role, true)
    || set_config('request.jwt.claims', CASE WHEN req_role = 'anon' THEN '{}' ELSE coalesce(claims, '{}'::jsonb)::text END, true)
    || set_config('request.ip', coalesce(ip, ''), true);
  IF current_setting('request.dispatched', true) = 'yes' THEN
    PERFORM set_config('request.scenario.notes', '', true);
  END IF;
  _set := set_config('request.dispatched', 'yes', true);
  IF fn COLLATE "C" < 'notes_replace' THEN
    CASE fn
      WHEN 'notes_create' THEN _result := "api"."notes_create"(args);
      WHEN 'notes_delete' THEN _result := "api"."notes_delete"(args);
      WHEN 'notes_list' THEN _result := "api"."notes_list"(args);
      WHEN 'notes_patch' THEN _result := "api"."notes_patch"(args);
      WHEN 'notes_read' THEN _result := "api"."notes_read"(args);
      ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
    END CASE;
  ELSE
    CASE fn
      WHEN 'notes_replace' THEN _result := "api"."notes_replace"(args);
      WHEN 'notes_search' THEN _result := "api"."notes_search"(args);
      WHEN 'notes_stream' THEN _result := "api"."notes_stream"(args);
      WHEN 'upload_intent' THEN _result := "api"."upload_intent"(args);
      WHEN 'upload_prepare' THEN _result := "api"."upload_prepare"(args);
      ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
    END CASE;
  END IF;
  -- Files queued for deletion (lib.discard_file): the gateway drains the outbox after commit.
  IF current_setting('request.outbox', true) = 'queued' THEN _result := (left(_result::text, -1) || ',"outbox":true}')::json; END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION api.dispatch(text, jsonb, text, text, jsonb)
  IS 'The one statement of a request: role, claims and IP for this transaction, then api.<fn>(args).';

INSERT INTO lib.manifest (singleton, manifest) VALUES (true, '{
  "engine": 3,
  "api": {"slug":"notes","version":"v1","title":"Notes","docsUrl":"https://docs.example.com","basePath":"/api/notes/v1"},
  "resources": {}
}'::jsonb)

  ON CONFLICT (singleton) DO UPDATE SET manifest = EXCLUDED.manifest;

SELECT meta.drop_stale_functions(ARRAY['notes_list', 'notes_search', 'notes_read', 'notes_create', 'notes_replace', 'notes_patch', 'notes_delete',
    'notes_stream']::text[]);

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA api TO anon, authenticated;

-- Access scenarios: PRE_FETCH functions and row-level security policies -------------------------

ALTER TABLE "app"."notes" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('notes');
CREATE OR REPLACE FUNCTION "app"."notes_access"(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  CASE action
    WHEN 'list', 'search', 'read', 'create', 'update', 'delete' THEN RETURN 'Everyone';
    ELSE RETURN NULL;
  END CASE;
END $fn$;
COMMENT ON FUNCTION "app"."notes_access"(text) IS 'PRE_FETCH for Note: the scenario that wins an action (first whose identity rules pass), or NULL.';
CREATE POLICY "Everyone [select]" ON "app"."notes"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING ((SELECT coalesce(lib.scenario('notes'), "app"."notes_access"(lib.action())) = 'Everyone'));
COMMENT ON POLICY "Everyone [select]" ON "app"."notes" IS 'Scenario "Everyone"; list (api), search (api), read (api), create (api), update (api), delete (api)';
CREATE POLICY "Everyone [insert]" ON "app"."notes"
  AS PERMISSIVE FOR INSERT TO anon, authenticated
  WITH CHECK ((SELECT coalesce(lib.scenario('notes'), "app"."notes_access"(lib.action())) = 'Everyone'));
COMMENT ON POLICY "Everyone [insert]" ON "app"."notes" IS 'Scenario "Everyone"; create (api)';
CREATE POLICY "Everyone [update]" ON "app"."notes"
  AS PERMISSIVE FOR UPDATE TO anon, authenticated
  USING ((SELECT coalesce(lib.scenario('notes'), "app"."notes_access"(lib.action())) = 'Everyone'))
  WITH CHECK (true);
COMMENT ON POLICY "Everyone [update]" ON "app"."notes" IS 'Scenario "Everyone"; update (api)';
CREATE POLICY "Everyone [delete]" ON "app"."notes"
  AS PERMISSIVE FOR DELETE TO anon, authenticated
  USING ((SELECT coalesce(lib.scenario('notes'), "app"."notes_access"(lib.action())) = 'Everyone'));
COMMENT ON POLICY "Everyone [delete]" ON "app"."notes" IS 'Scenario "Everyone"; delete (api)';
DROP FUNCTION IF EXISTS "app"."notes_stakeholder"(text);

-- Change log: the changes each caller may see, judged by the read rules (design 9) --------------

DROP FUNCTION IF EXISTS "app"."notes_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."notes_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."notes_changes"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "app"."notes_changes"(after_tx xid8, after_id bigint, before xid8, lim integer)
RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  _winner text := "app"."notes_access"('list');
  _was text := current_setting('request.action', true);
BEGIN
  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing
  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set
  RETURN QUERY
    SELECT c.id, c.tx, c.action, c.record_key, c.image
    FROM (SELECT c.id, c.tx, c.action, c.record_key, c.image AS image FROM lib.changes c
      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('notes')
      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page
    WHERE c.image IS NOT NULL AND EXISTS (
        SELECT FROM jsonb_populate_record(NULL::"app"."notes", c.image - ARRAY['id', 'title', 'pinned', 'body_text', '_rev',
            '_modified_at']::text[])  -- the record as that change wrote it (a link: its owner now)
        WHERE CASE _winner
        WHEN 'Everyone' THEN true
        ELSE false END)
    ORDER BY c.tx, c.id;
  PERFORM set_config('request.action', coalesce(_was, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."notes_changes"(xid8, bigint, xid8, integer)
  IS 'Of the first lim changes of app.notes (and its links) past a position (tx, id) and of transactions below before, those the caller may list (design 9).';

-- Change log: pages of changes shaped as records, for the gateway's streams (design 9) ----------

DROP FUNCTION IF EXISTS "app"."notes_change_records"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "lib"."notes_change_records"(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
  SELECT json_build_object(
    'data', coalesce(json_agg(json_build_object(
      'id', c.tx::text || '-' || c.id::text,
      'action', c.action,
      'key', c.record_key,
      'etag', c.etag,
      'at', c.at,
      'data', CASE
        WHEN c.action = 'deleted' THEN NULL
        ELSE (SELECT row_to_json(r) FROM (SELECT
          t."id" AS "id", t."title" AS "title", t."pinned" AS "pinned", t."body_text" AS "bodyText"
        ) r)
      END
    ) ORDER BY c.tx, c.id), '[]'),
    'last', (array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1],
    'read', count(*)
  )
  FROM (SELECT * FROM lib.changes c
    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('notes')
    ORDER BY c.tx, c.id LIMIT lim) c
  LEFT JOIN LATERAL jsonb_populate_record(NULL::"app"."notes", CASE WHEN c.table_name = 'notes' THEN c.image END) t ON true
$fn$;
REVOKE EXECUTE ON FUNCTION "lib"."notes_change_records"(xid8, bigint, xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "lib"."notes_change_records"(xid8, bigint, xid8, integer) TO authenticator;
COMMENT ON FUNCTION "lib"."notes_change_records"(xid8, bigint, xid8, integer)
  IS 'A page of the change log of app.notes and its links, shaped as records; for the gateway''s streams only (design 9).';

-- Identity: sign-in, refresh tokens and their revocation (api.identity) -------------------------

DROP FUNCTION IF EXISTS lib.identity_claims(text);
DROP TRIGGER IF EXISTS identity_revoke ON "app"."notes";

-- Webhooks: the receivers of changes (api.webhooks, design 9) -----------------------------------

DELETE FROM lib.webhooks WHERE name <> ALL (ARRAY[]::text[]);  -- removed from the model, with their deliveries

-- Access: existence past the policies, failing rules, refusals (403/404) and pre-flights --------

CREATE OR REPLACE FUNCTION "app"."notes_exists"(_key text, _parent text DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "app"."notes" t WHERE t."id" = _key);
END $fn$;
COMMENT ON FUNCTION "app"."notes_exists"(text, text)
  IS 'Whether Note _key exists (live, in the caller''s organization, under _parent), whatever the policies say. Definer: it says only that.';

CREATE OR REPLACE FUNCTION "app"."notes_scenario"(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE _scenario
    WHEN 'Everyone' THEN ARRAY['Everyone', 'api', '']
  END
$fn$;
COMMENT ON FUNCTION "app"."notes_scenario"(text) IS 'Label, level and data rules of each scenario of Note.';

CREATE OR REPLACE FUNCTION "app"."notes_failing"(_scenario text, _key text)
  RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _failing text;
BEGIN
  IF _scenario = 'Everyone' THEN
    SELECT ''::text FROM "app"."notes" t WHERE t."id" = _key INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."notes" t WHERE t."id" = _key INTO _failing;
  END IF;
  RETURN _failing;
END $fn$;
COMMENT ON FUNCTION "app"."notes_failing"(text, text) IS 'The data rules of a Note scenario that an existing record breaks (for 403 details).';

CREATE OR REPLACE FUNCTION "app"."notes_deny"(_action text, _key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _winner text := "app"."notes_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, 'Note'); END IF;
  _failing := "app"."notes_failing"(_winner, _key);
  IF _failing <> '' THEN
    _about := "app"."notes_scenario"(_winner);
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Note', _failing),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;
  END IF;
END $fn$;
COMMENT ON FUNCTION "app"."notes_deny"(text, text)
  IS 'Refuses (403) when the scenario that wins _action rejects the existing Note _key, naming the rules it breaks.';

SELECT meta.drop_if_returns('"app"."notes_refusal"(text, text, text, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."notes_refusal"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS json LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _scenario text := "app"."notes_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _scenario = 'Everyone' THEN
    SELECT ''::text FROM "app"."notes" t WHERE t."id" = _key INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."notes" t WHERE t."id" = _key INTO _failing;
  END IF;
  IF _failing IS NULL THEN
    IF _star THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT412', 'message', format('If-Match: * requires an existing %s, and there is none with %s "%s"', 'Note', 'id', _key),
          'detail', jsonb_build_object('current', NULL, 'supplied', '*')::text, 'hint',
          'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.')); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT404', 'message', format('no %s with %s "%s"', 'Note', 'id', coalesce(_key, '')), 'detail',
          jsonb_build_object('property', NULL, 'rule', NULL)::text, 'hint', NULL));
  END IF;
  IF _scenario IS NULL THEN
    IF auth.uid() IS NULL
      THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT401', 'message', format('No access scenario lets an anonymous caller %s %s: sign in.', _action, 'Note'), 'detail', NULL,
          'hint', NULL)); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message', format('No access scenario lets you %s %s.', _action, 'Note'), 'detail', NULL, 'hint', NULL));
  END IF;
  IF _failing <> '' THEN
    _about := "app"."notes_scenario"(_scenario);
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message',
          format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Note', _failing), 'detail',
          jsonb_build_object('scenario', _about[1], 'rules', _failing)::text, 'hint', NULL));
  END IF;
  RETURN json_build_object('refused',
      json_build_object('code', 'PT403', 'message', format('You may not %s this %s.', _action, 'Note'), 'detail', NULL, 'hint', NULL));
END $fn$;
COMMENT ON FUNCTION "app"."notes_refusal"(text, text, text, boolean)
  IS 'Why a Note the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.';

CREATE OR REPLACE FUNCTION "app"."notes_refuse"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS void LANGUAGE plpgsql
  AS $fn$
BEGIN
  PERFORM lib.raise_refusal("app"."notes_refusal"(_action, _key, _parent, _star));
END $fn$;
COMMENT ON FUNCTION "app"."notes_refuse"(text, text, text, boolean) IS 'A Note the caller cannot _action was asked for: 403 when it exists, else 404 (raised).';

CREATE OR REPLACE FUNCTION "app"."notes_require"(_key text, _action text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _outer_action text := lib.action();
  _outer_scenario text := lib.scenario('notes');
  _winner text := lib.enter('notes', _action, "app"."notes_access"(_action), 'Note');
  _found boolean := false;
  _set text;
BEGIN
  SELECT EXISTS (SELECT 1 FROM "app"."notes" t WHERE t."id" = _key) INTO _found;
  IF NOT _found THEN PERFORM "app"."notes_refuse"(_action, _key); END IF;
  _set := set_config('request.action', coalesce(_outer_action, ''), true)
    || set_config('request.scenario.notes', coalesce(_outer_scenario, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."notes_require"(text, text) IS 'Pre-flight: the caller must be able to _action Note _key (404 when missing, 403 when hidden).';

CREATE OR REPLACE FUNCTION "app"."notes_within"(_key text, _above jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF jsonb_array_length(coalesce(_above, '[]')) > 0 THEN PERFORM lib.bad_request('Note has no parent'); END IF;
  PERFORM "app"."notes_require"(_key, 'read');
END $fn$;
COMMENT ON FUNCTION "app"."notes_within"(text, jsonb)
  IS 'Nested paths: Note _key, under the ancestors _above (outermost first), each existing, containing the next and readable.';

-- Removed from the model ------------------------------------------------------------------------

SELECT meta.drop_stale_columns('notes', ARRAY['id', 'title', 'pinned', 'body_text', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_tables(ARRAY['notes']::text[]);


