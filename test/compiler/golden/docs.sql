-- Constraints and indexes the model no longer has, or has changed -------------------------------

SELECT meta.drop_replaced('folders', ARRAY['folders_pkey']::text[], ARRAY['PRIMARY KEY ("id")']::text[], ARRAY[]::text[], ARRAY[]::text[]);

SELECT meta.drop_replaced(
  'docs',
  ARRAY['docs_pkey', 'docs_folder_id_fkey', 'docs_status_enum']::text[],
  ARRAY[
    'PRIMARY KEY ("id")',
    'FOREIGN KEY ("folder_id") REFERENCES "app"."folders" ("id") ON DELETE RESTRICT',
    'CHECK ("status"::text = ANY (ARRAY[''draft'', ''final'']::text[]))'
  ]::text[],
  ARRAY['docs_folder_id_idx', 'docs_owner_id_idx']::text[],
  ARRAY[
    'CREATE INDEX "docs_folder_id_idx" ON "app"."docs" USING btree ("folder_id")',
    'CREATE INDEX "docs_owner_id_idx" ON "app"."docs" USING btree ("owner_id")'
  ]::text[]
);

-- Tables and columns ----------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS "app"."folders" ();
COMMENT ON TABLE "app"."folders" IS 'Entity Folder (collection folders).';
SELECT meta.ensure_column('folders', 'id', 'character varying(255)', true, 'gen_random_uuid()::text', false);
COMMENT ON COLUMN "app"."folders"."id" IS 'primary';
SELECT meta.ensure_column('folders', 'name', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."folders"."name" IS 'required';
SELECT meta.ensure_column('folders', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."folders"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('folders', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."folders"."_modified_at" IS 'Time of the last write (Last-Modified).';

CREATE TABLE IF NOT EXISTS "app"."docs" ();
COMMENT ON TABLE "app"."docs" IS 'Entity Doc (collection docs).';
SELECT meta.ensure_column('docs', 'id', 'bigint', true, NULL, true);
COMMENT ON COLUMN "app"."docs"."id" IS 'primary, readOnly';
SELECT meta.ensure_column('docs', 'folder_id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."docs"."folder_id" IS 'required, immutable';
SELECT meta.ensure_column('docs', 'title', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."docs"."title" IS 'required';
SELECT meta.ensure_column('docs', 'data', 'jsonb', false, NULL, false);
COMMENT ON COLUMN "app"."docs"."data" IS NULL;
SELECT meta.ensure_column('docs', 'status', 'character varying(255)', false, '''draft''::character varying(255)', false);
COMMENT ON COLUMN "app"."docs"."status" IS 'modules: Status';
SELECT meta.ensure_column('docs', 'rev', 'integer', true, '1', false);
COMMENT ON COLUMN "app"."docs"."rev" IS 'modules: Version';
SELECT meta.ensure_column('docs', 'owner_id', 'character varying(255)', false, NULL, false);
COMMENT ON COLUMN "app"."docs"."owner_id" IS 'readOnly; modules: Owner';
SELECT meta.ensure_column('docs', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."docs"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('docs', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."docs"."_modified_at" IS 'Time of the last write (Last-Modified).';
SELECT meta.ensure_column('docs', 'deleted_at', 'timestamp with time zone', false, NULL, false);
COMMENT ON COLUMN "app"."docs"."deleted_at" IS 'Set when the record is soft-deleted; restore clears it.';

-- Primary keys, unique and check constraints ----------------------------------------------------

SELECT meta.ensure_constraint('folders', 'folders_pkey', 'PRIMARY KEY ("id")', '{"property":"id","rule":"primary"}'::jsonb);

SELECT meta.ensure_constraint('docs', 'docs_pkey', 'PRIMARY KEY ("id")', '{"property":"id","rule":"primary"}'::jsonb);
SELECT meta.ensure_constraint(
  'docs',
  'docs_status_enum',
  'CHECK ("status"::text = ANY (ARRAY[''draft'', ''final'']::text[]))',
  '{"property":"status","rule":"enum"}'::jsonb
);

-- Foreign keys ----------------------------------------------------------------------------------

SELECT meta.ensure_constraint(
  'docs',
  'docs_folder_id_fkey',
  'FOREIGN KEY ("folder_id") REFERENCES "app"."folders" ("id") ON DELETE RESTRICT',
  '{"property":"folder_id","rule":"references"}'::jsonb
);

-- Indexes ---------------------------------------------------------------------------------------

SELECT meta.ensure_index(
  'docs',
  'docs_folder_id_idx',
  'CREATE INDEX "docs_folder_id_idx" ON "app"."docs" USING btree ("folder_id")',
  '{"property":"folder_id","rule":"indexed"}'::jsonb
);
SELECT meta.ensure_index(
  'docs',
  'docs_owner_id_idx',
  'CREATE INDEX "docs_owner_id_idx" ON "app"."docs" USING btree ("owner_id")',
  '{"property":"owner_id","rule":"indexed"}'::jsonb
);

-- Write rules -----------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION "app"."folders_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NULL;
  ELSE
    IF NEW."id" IS DISTINCT FROM OLD."id" THEN
      PERFORM lib.refuse('PT400', 'primary key "id" cannot be changed', 'id', 'primary');
    END IF;
  END IF;
  NEW._rev := gen_random_uuid();
  NEW._modified_at := now();
  RETURN NEW;
END $fn$;
COMMENT ON FUNCTION "app"."folders_write_rules"() IS 'Write rules of app.folders: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."folders" FOR EACH ROW EXECUTE FUNCTION "app"."folders_write_rules"();

CREATE OR REPLACE FUNCTION "app"."docs_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  soft_delete_only boolean := TG_OP = 'UPDATE' AND OLD.deleted_at IS NULL AND NEW.deleted_at IS NOT NULL
    AND (to_jsonb(NEW) - 'deleted_at') = (to_jsonb(OLD) - 'deleted_at');
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW."owner_id" IS NOT NULL THEN
      PERFORM lib.refuse('PT400', 'readOnly property "owner_id" cannot be supplied', 'owner_id', 'readOnly');
    END IF;
    IF NEW."status" IS NULL OR NOT (NEW."status"::text = ANY (ARRAY['draft']::text[]))
      THEN PERFORM lib.refuse('PT422', 'a new record must start in one of the initial statuses: draft', 'status', 'initialStatuses'); END IF;
    NEW."rev" := 1;  -- Version starts at 1, whatever was supplied (spec 2.6)
    NEW."owner_id" := CASE WHEN current_user IN ('anon', 'authenticated') THEN auth.uid() ELSE coalesce(auth.uid(), NEW."owner_id") END;  -- Owner: the caller
  ELSE
    IF NEW."folder_id" IS DISTINCT FROM OLD."folder_id" THEN
      PERFORM lib.refuse('PT400', 'immutable property "folder_id" cannot be changed', 'folder_id', 'immutable');
    END IF;
    IF NEW."owner_id" IS DISTINCT FROM OLD."owner_id" THEN
      PERFORM lib.refuse('PT400', 'readOnly property "owner_id" cannot be changed', 'owner_id', 'readOnly');
    END IF;
    NEW."rev" := OLD."rev" + CASE WHEN soft_delete_only THEN 0 ELSE 1 END;
  END IF;
  IF NEW."folder_id" IS NOT NULL AND (TG_OP = 'INSERT' OR NEW."folder_id" IS DISTINCT FROM OLD."folder_id") THEN
    IF "app"."folders_access"('read') IS NULL THEN PERFORM lib.no_scenario('read', 'Folder'); END IF;
    IF "app"."folders_exists"(NEW."folder_id"::text) THEN
      PERFORM "app"."folders_require"(NEW."folder_id"::text, 'read');  -- the parent is readable
    END IF;
  END IF;
  NEW._rev := gen_random_uuid();
  NEW._modified_at := now();
  RETURN NEW;
END $fn$;
COMMENT ON FUNCTION "app"."docs_write_rules"() IS 'Write rules of app.docs: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."docs" FOR EACH ROW EXECUTE FUNCTION "app"."docs_write_rules"();

-- Change log: each written row appended to lib.changes (design 9) -------------------------------

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."folders"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Folder', 'id', 'entity', '_rev', '{}');

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."docs"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Doc', 'id', 'entity', 'rev', '{}');

-- Change log: how long each table's rows are kept (record history, design 9) --------------------

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('folders', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('docs', NULL)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

UPDATE lib.changes_keep SET keep_seconds = 0 WHERE keep_seconds IS DISTINCT FROM 0 AND table_name <> ALL (ARRAY['folders', 'docs']::text[]);

-- Files: claim of file references, outbox of replaced and deleted files -------------------------

DROP TRIGGER IF EXISTS files ON "app"."folders";
DROP TRIGGER IF EXISTS files_gone ON "app"."folders";
DROP FUNCTION IF EXISTS "app"."folders_files"();
DROP FUNCTION IF EXISTS "app"."folders_files_gone"();

DROP TRIGGER IF EXISTS files ON "app"."docs";
DROP TRIGGER IF EXISTS files_gone ON "app"."docs";
DROP FUNCTION IF EXISTS "app"."docs_files"();
DROP FUNCTION IF EXISTS "app"."docs_files_gone"();

-- Privileges of the request roles ---------------------------------------------------------------

REVOKE ALL ON "app"."folders" FROM anon, authenticated;
GRANT SELECT ("id", "name", "_rev", "_modified_at") ON "app"."folders" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."folders" TO anon, authenticated;

REVOKE ALL ON "app"."docs" FROM anon, authenticated;
GRANT SELECT (
  "id", "folder_id", "title", "data", "status", "rev", "owner_id", "_rev", "_modified_at",
  "deleted_at"
) ON "app"."docs" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."docs" TO anon, authenticated;

-- API functions: compiled per table and action, filter fields, the manifest ---------------------

INSERT INTO lib.fields (tbl, fields) VALUES ('folders', '{
  "pk": "id",
  "columns": {
    "id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "name": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false}
  }
}'::jsonb)
  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;

INSERT INTO lib.manifest_resources (entity, resource) VALUES ('Folder', '{
  "entity": "Folder",
  "collection": "folders",
  "table": "folders",
  "primaryKey": "id",
  "softDelete": false,
  "properties": {"id":{"type":"String","primary":true},"name":{"type":"String","required":true}},
  "relations": {},
  "functions": {
    "list": "folders_list",
    "search": "folders_search",
    "read": "folders_read",
    "create": "folders_create",
    "replace": "folders_replace",
    "patch": "folders_patch",
    "delete": "folders_delete",
    "stream": "folders_stream"
  },
  "schemas": {
    "$defs": {"id":{"anyOf":[{"type":"string","minLength":1,"maxLength":255},{"type":"null"}]},"name":{"type":"string","maxLength":255}},
    "create": {
      "type": "object",
      "properties": {"id":{"$ref":"#/$defs/id"},"name":{"$ref":"#/$defs/name"}},
      "required": ["name"],
      "additionalProperties": false
    },
    "replace": {
      "type": "object",
      "properties": {"id":{"$ref":"#/$defs/id"},"name":{"$ref":"#/$defs/name"}},
      "required": ["name"],
      "additionalProperties": false
    },
    "patch": {"type":"object","properties":{"id":{"$ref":"#/$defs/id"},"name":{"$ref":"#/$defs/name"}},"additionalProperties":false},
    "read": {"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":255},"name":{"type":"string","maxLength":255}}}
  },
  "constraints": {"folders_pkey":{"property":"id","rule":"primary"}}
}'::jsonb)
  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;

SELECT meta.drop_if_returns('"app"."folders_page"(text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION "app"."folders_page"(_action text, args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('folders', _action, "app"."folders_access"(_action), 'Folder');
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
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Folder has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('folders'), args -> 'filter', '{filter}');
  _keys := lib.sort_keys(lib.fields('folders'), _sort);
  IF args ? 'after' OR _before THEN
    _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);
    args := args || jsonb_build_object('cursor', _cursor);
  END IF;
  _offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;
  PERFORM lib.statement_params(args, _parent, _per_page, _offset);
  _total := lib.page_total(_count, $q$SELECT count(*) FROM "app"."folders" t WHERE $q$ || _where,
    $q$SELECT count(*) FROM "app"."folders" t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE $q$ || _where,
    '"app"."folders"'::regclass, 1000);
  _few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;
  IF _few AND (_total ->> 'total')::bigint <= _offset THEN
    _page_rows := ('[]', '[]')::lib.page_rows;
  ELSE
    _sql := $q$SELECT coalesce(json_agg((SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."name" AS "name") r)), '[]'), coalesce(jsonb_agg($q$
      || lib.keys_sql(_keys) || $q$), '[]')
      FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END
      || $q$t."id", t."name", t._rev, t._modified_at
        FROM "app"."folders" t WHERE $q$ || _where
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
  RETURN json_build_object('meta', _meta, 'scenario', ("app"."folders_scenario"(_scenario))[1], 'data_bytes', octet_length(_rows::text), 'data', _rows);
END $fn$;
COMMENT ON FUNCTION "app"."folders_page"(text, jsonb)
  IS 'A page of Folder records for list and search: filters and sort from the request, offset or keyset paging, '
    'total by count mode (spec 5.2 FETCH under the policies).';

SELECT meta.drop_if_returns('"api"."folders_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."folders_list"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."folders_page"('list', args) $fn$;
COMMENT ON FUNCTION "api"."folders_list"(jsonb) IS 'list Folder: a page, app.folders_page(''list'', args).';

SELECT meta.drop_if_returns('"api"."folders_search"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."folders_search"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."folders_page"('search', args) $fn$;
COMMENT ON FUNCTION "api"."folders_search"(jsonb) IS 'search Folder: a page, app.folders_page(''search'', args).';

SELECT meta.drop_if_returns('"api"."folders_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."folders_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('folders', 'read', "app"."folders_access"('read'), 'Folder');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _result json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Folder has no parent'); END IF;
  SELECT json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."name" AS "name") r),
    'id', t."id"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."folders_scenario"(_scenario))[1]
  ) INTO _result
  FROM "app"."folders" t
  WHERE t."id" = _key;
  IF _result IS NULL THEN
    IF args ? 'answer_refusal' THEN RETURN "app"."folders_refusal"('read', _key, _parent); END IF;
    PERFORM "app"."folders_refuse"('read', _key, _parent);
  END IF;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('Folder', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."folders_read"(jsonb) IS 'read one Folder';

SELECT meta.drop_if_returns('"api"."folders_create"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."folders_create"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('folders', 'create', "app"."folders_access"('create'), 'Folder');
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _result json;
  _about text[];
BEGIN
  PERFORM lib.check_body(_body, ARRAY['id', 'name']::text[], ARRAY[]::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Folder has no parent'); END IF;
  BEGIN
    INSERT INTO "app"."folders" AS t ("id", "name")
    SELECT CASE WHEN _body ? 'id' THEN r."id" ELSE gen_random_uuid()::text END,
      CASE WHEN _body ? 'name' THEN r."name" ELSE NULL END
    FROM jsonb_populate_record(NULL::"app"."folders", _body) r
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."name" AS "name") r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."folders_scenario"(_scenario))[1]
    ) INTO _result;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    _about := "app"."folders_scenario"(_scenario);
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], 'Folder'),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;
  END;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."folders_create"(jsonb) IS 'create a Folder';

SELECT meta.drop_if_returns('"app"."folders_update"(jsonb, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."folders_update"(args jsonb, _patch boolean) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('folders', 'update', "app"."folders_access"('update'), 'Folder');
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
  PERFORM lib.check_body(_body, ARRAY['id', 'name']::text[], ARRAY[]::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Folder has no parent'); END IF;
  IF _body ? 'id' AND _body ->> 'id' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('primary key "id" cannot be changed', 'id', 'primary');
  END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  UPDATE "app"."folders" t SET
    "name" = CASE WHEN _body ? 'name' THEN r."name" WHEN _patch THEN t."name" ELSE NULL END
  FROM jsonb_populate_record(NULL::"app"."folders", _body) r
  WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
  RETURNING json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."name" AS "name") r),
    'id', t."id"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."folders_scenario"(_scenario))[1]
  ) INTO _result;
  IF _result IS NULL THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."folders" t
    WHERE t."id" = _key;
    IF NOT FOUND THEN
      PERFORM "app"."folders_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false));
    END IF;
    PERFORM "app"."folders_deny"('update', _key);
    PERFORM lib.precondition_failed('Folder', _etag, _modified, args, _expected);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "app"."folders_update"(jsonb, boolean) IS 'Update a Folder: replace (PUT) when _patch is false, else patch (PATCH).';

SELECT meta.drop_if_returns('"api"."folders_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."folders_replace"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."folders_update"(args, false) $fn$;
COMMENT ON FUNCTION "api"."folders_replace"(jsonb) IS 'replace (PUT) a Folder: app.folders_update(args, false).';

SELECT meta.drop_if_returns('"api"."folders_patch"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."folders_patch"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."folders_update"(args, true) $fn$;
COMMENT ON FUNCTION "api"."folders_patch"(jsonb) IS 'patch (PATCH) a Folder: app.folders_update(args, true).';

CREATE OR REPLACE FUNCTION "api"."folders_delete"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('folders', 'delete', "app"."folders_access"('delete'), 'Folder');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Folder has no parent'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  DELETE FROM "app"."folders" t WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since);
  IF NOT FOUND THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."folders" t
    WHERE t."id" = _key;
    IF NOT FOUND THEN
      PERFORM "app"."folders_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false));
    END IF;
    PERFORM "app"."folders_deny"('delete', _key);
    PERFORM lib.precondition_failed('Folder', _etag, _modified, args, _expected);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."folders_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."folders_delete"(jsonb) IS 'delete a Folder';

SELECT meta.drop_if_returns('"api"."folders_stream"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."folders_stream"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('folders', 'list', "app"."folders_access"('list'), 'Folder');
  _parent text := args ->> 'parent';
  _where text;
  _sql text;
  _visible json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Folder has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('folders'), args -> 'filter', '{filter}');
  IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;
  PERFORM lib.statement_params(args, _parent, 0, 0);
  _sql := $q$SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')
  FROM "app"."folders_changes"(
    ($1 ->> 'after_tx')::xid8,
    ($1 ->> 'after_id')::bigint,
    ($1 ->> 'before')::xid8,
    ($1 ->> 'limit')::integer
  ) c$q$
    || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."folders", c.image) t WHERE $q$ || _where END;
  _visible := lib.query_generic(_sql, NULL::json);
  RETURN json_build_object('data', _visible);
END $fn$;
COMMENT ON FUNCTION "api"."folders_stream"(jsonb)
  IS 'which changes of Folder (and its links) past a position the caller may list, narrowed by the list''s filters and parent (design 9)';

DROP FUNCTION IF EXISTS "app"."folders_versions"(text, text, text, integer, bigint);  -- no history kept

INSERT INTO lib.fields (tbl, fields) VALUES ('docs', '{
  "pk": "id",
  "columns": {
    "id": {"type":"bigint","kind":"Number","multiple":false,"json":false,"readable":true,"search":false},
    "folder_id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "title": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "data": {"type":"jsonb","kind":"JSON","multiple":false,"json":true,"readable":true,"search":false},
    "status": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "rev": {"type":"integer","kind":"Number","multiple":false,"json":false,"readable":true,"search":false},
    "owner_id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false}
  },
  "embeds": {"folder":{"table":"folders","pk":"id","column":"folder_id","live":false}}
}'::jsonb)
  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;

INSERT INTO lib.manifest_resources (entity, resource) VALUES ('Doc', '{
  "entity": "Doc",
  "collection": "docs",
  "table": "docs",
  "primaryKey": "id",
  "softDelete": true,
  "versionProperty": "rev",
  "parent": {"entity":"Folder","property":"folder_id"},
  "properties": {
    "id": {"type":"Number","primary":true,"readOnly":true,"format":"int64"},
    "folder_id": {"type":"String","required":true,"immutable":true},
    "title": {"type":"String","required":true},
    "data": {"type":"JSON"},
    "status": {"type":"String","enum":["draft","final"],"defaultValue":"draft"},
    "rev": {"type":"Number","format":"int32"},
    "owner_id": {"type":"String","readOnly":true}
  },
  "relations": {},
  "embeds": {"folder":{"kind":"reference","target":"Folder","property":"folder_id"}},
  "functions": {
    "list": "docs_list",
    "search": "docs_search",
    "read": "docs_read",
    "create": "docs_create",
    "replace": "docs_replace",
    "patch": "docs_patch",
    "delete": "docs_delete",
    "restore": "docs_restore",
    "stream": "docs_stream",
    "history": "docs_history"
  },
  "schemas": {
    "$defs": {
      "folder_id": {"type":"string","maxLength":255},
      "title": {"type":"string","maxLength":255},
      "status": {"anyOf":[{"type":"string","maxLength":255,"enum":["draft","final"]},{"type":"null"}]}
    },
    "create": {
      "type": "object",
      "properties": {
        "folder_id": {"$ref":"#/$defs/folder_id"},
        "title": {"$ref":"#/$defs/title"},
        "data": {},
        "status": {"$ref":"#/$defs/status"},
        "rev": {"description":"ignored: a new record starts at version 1"}
      },
      "required": ["folder_id","title"],
      "additionalProperties": false
    },
    "replace": {
      "type": "object",
      "properties": {
        "folder_id": {"$ref":"#/$defs/folder_id"},
        "title": {"$ref":"#/$defs/title"},
        "data": {},
        "status": {"$ref":"#/$defs/status"},
        "rev": {"type":"integer","minimum":1,"description":"the version this update expects (409 when it moved on); null is no version (422)"}
      },
      "required": ["title"],
      "additionalProperties": false
    },
    "patch": {
      "type": "object",
      "properties": {
        "folder_id": {"$ref":"#/$defs/folder_id"},
        "title": {"$ref":"#/$defs/title"},
        "data": {},
        "status": {"$ref":"#/$defs/status"},
        "rev": {"type":"integer","minimum":1,"description":"the version this update expects (409 when it moved on); null is no version (422)"}
      },
      "additionalProperties": false
    },
    "read": {
      "type": "object",
      "properties": {
        "id": {"type":"integer","readOnly":true},
        "folder_id": {"type":"string","maxLength":255},
        "title": {"type":"string","maxLength":255},
        "data": {"anyOf":[{},{"type":"null"}]},
        "status": {"anyOf":[{"type":"string","maxLength":255,"enum":["draft","final"]},{"type":"null"}]},
        "rev": {"type":"integer","minimum":1},
        "owner_id": {"anyOf":[{"type":"string","maxLength":255},{"type":"null"}],"readOnly":true}
      }
    }
  },
  "constraints": {
    "docs_pkey": {"property":"id","rule":"primary"},
    "docs_folder_id_fkey": {"property":"folder_id","rule":"references"},
    "docs_status_enum": {"property":"status","rule":"enum"}
  }
}'::jsonb)
  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;

SELECT meta.drop_if_returns('"app"."docs_page"(text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION "app"."docs_page"(_action text, args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('docs', _action, "app"."docs_access"(_action), 'Doc');
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
  IF _parent IS NOT NULL THEN PERFORM "app"."folders_within"(_parent, args -> 'ancestors'); END IF;
  _where := lib.filter_sql(lib.fields('docs'), args -> 'filter', '{filter}');
  IF _parent IS NOT NULL THEN _where := 't."folder_id" = $2 AND ' || _where; END IF;
  _keys := lib.sort_keys(lib.fields('docs'), _sort);
  IF args ? 'after' OR _before THEN
    _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);
    args := args || jsonb_build_object('cursor', _cursor);
  END IF;
  _offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;
  PERFORM lib.statement_params(args, _parent, _per_page, _offset);
  IF (coalesce(args -> 'joined', '{}'::jsonb) || coalesce(args -> 'embed', '{}'::jsonb)) ? 'folder' THEN
    PERFORM set_config('request.scenario.folders', coalesce("app"."folders_access"('read'), chr(1)), true);
  END IF;
  _total := lib.page_total(_count, $q$SELECT count(*) FROM "app"."docs" t WHERE t.deleted_at IS NULL AND $q$ || _where,
    $q$SELECT count(*) FROM "app"."docs" t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE t.deleted_at IS NULL AND $q$ || _where,
    '"app"."docs"'::regclass, 1000);
  _few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;
  IF _few AND (_total ->> 'total')::bigint <= _offset THEN
    _page_rows := ('[]', '[]')::lib.page_rows;
  ELSE
    _sql := $q$SELECT coalesce(json_agg($q$ || CASE WHEN args ? 'embed' THEN $q$(left(((SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
      t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
    ) r))::text, -1)
      || (CASE WHEN $1 -> 'embed' ? 'folder' THEN ',"folder":' || coalesce((
        (
          SELECT (SELECT row_to_json(r) FROM (SELECT t_0."id" AS "id", t_0."name" AS "name") r)
          FROM "app"."folders" t_0
          WHERE t_0."id" = t."folder_id"
        )
      )::text, 'null') ELSE '' END)
      || '}')::json$q$ ELSE $q$(SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
      t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
    ) r)$q$ END || $q$), '[]'), coalesce(jsonb_agg($q$ || lib.keys_sql(_keys) || $q$), '[]')
      FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END
      || $q$t."id", t."folder_id", t."title", t."data", t."status", t."rev", t."owner_id", t._rev,
              t._modified_at
        FROM "app"."docs" t WHERE t.deleted_at IS NULL AND $q$ || _where
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
  RETURN json_build_object('meta', _meta, 'scenario', ("app"."docs_scenario"(_scenario))[1], 'data_bytes', octet_length(_rows::text), 'data', _rows);
END $fn$;
COMMENT ON FUNCTION "app"."docs_page"(text, jsonb)
  IS 'A page of Doc records for list and search: filters and sort from the request, offset or keyset paging, '
    'total by count mode (spec 5.2 FETCH under the policies).';

SELECT meta.drop_if_returns('"api"."docs_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_list"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."docs_page"('list', args) $fn$;
COMMENT ON FUNCTION "api"."docs_list"(jsonb) IS 'list Doc: a page, app.docs_page(''list'', args).';

SELECT meta.drop_if_returns('"api"."docs_search"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_search"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."docs_page"('search', args) $fn$;
COMMENT ON FUNCTION "api"."docs_search"(jsonb) IS 'search Doc: a page, app.docs_page(''search'', args).';

SELECT meta.drop_if_returns('"api"."docs_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('docs', 'read', "app"."docs_access"('read'), 'Doc');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _result json;
BEGIN
  IF NOT lib.castable(_key, 'bigint') THEN PERFORM lib.not_found('Doc', 'id', _key); END IF;
  IF _parent IS NOT NULL THEN PERFORM "app"."folders_within"(_parent, args -> 'ancestors'); END IF;
  IF args -> 'embed' ? 'folder' THEN
    PERFORM set_config('request.scenario.folders', coalesce("app"."folders_access"('read'), chr(1)), true);
  END IF;
  IF args ? 'embed' THEN
    SELECT json_build_object(
      'data', (left(((SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
        t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
      ) r))::text, -1)
        || (CASE WHEN args -> 'embed' ? 'folder' THEN ',"folder":' || coalesce((
          (
            SELECT (SELECT row_to_json(r) FROM (SELECT t_0."id" AS "id", t_0."name" AS "name") r)
            FROM "app"."folders" t_0
            WHERE t_0."id" = t."folder_id"
          )
        )::text, 'null') ELSE '' END)
        || '}')::json,
      'id', t."id"::text,
      'etag', t."rev"::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."docs_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."docs" t
    WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NULL;
  ELSE
    SELECT json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
        t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
      ) r),
      'id', t."id"::text,
      'etag', t."rev"::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."docs_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."docs" t
    WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NULL;
  END IF;
  IF _result IS NULL THEN
    IF args ? 'answer_refusal' THEN RETURN "app"."docs_refusal"('read', _key, _parent); END IF;
    PERFORM "app"."docs_refuse"('read', _key, _parent);
  END IF;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('Doc', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."docs_read"(jsonb) IS 'read one Doc';

SELECT meta.drop_if_returns('"api"."docs_create"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_create"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('docs', 'create', "app"."docs_access"('create'), 'Doc');
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _result json;
  _about text[];
BEGIN
  PERFORM lib.check_body(
    _body,
    ARRAY['folder_id', 'title', 'data', 'status', 'rev']::text[],
    ARRAY['id', 'owner_id']::text[]
  );
  IF _parent IS NOT NULL THEN PERFORM "app"."folders_within"(_parent, args -> 'ancestors'); END IF;
  IF _parent IS NOT NULL THEN
    IF _body ? 'folder_id' AND _body ->> 'folder_id' IS DISTINCT FROM _parent THEN
      PERFORM lib.bad_request(format('"%s" must be the parent''s key "%s" on this path', 'folder_id', _parent), 'folder_id', 'parent');
    END IF;
    _body := _body || jsonb_build_object('folder_id', _parent);
  END IF;
  BEGIN
    INSERT INTO "app"."docs" AS t ("folder_id", "title", "data", "status")
    SELECT CASE WHEN _body ? 'folder_id' THEN r."folder_id" ELSE NULL END,
      CASE WHEN _body ? 'title' THEN r."title" ELSE NULL END,
      CASE WHEN _body ? 'data' THEN r."data" ELSE NULL END,
      CASE WHEN _body ? 'status' THEN r."status" ELSE 'draft'::character varying(255) END
    FROM jsonb_populate_record(NULL::"app"."docs", _body - 'rev') r
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
        t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
      ) r),
      'id', t."id"::text,
      'etag', t."rev"::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."docs_scenario"(_scenario))[1]
    ) INTO _result;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    _about := "app"."docs_scenario"(_scenario);
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], 'Doc'),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;
  END;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."docs_create"(jsonb) IS 'create a Doc';

SELECT meta.drop_if_returns('"app"."docs_update"(jsonb, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."docs_update"(args jsonb, _patch boolean) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('docs', 'update', "app"."docs_access"('update'), 'Doc');
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
  PERFORM lib.check_body(
    _body,
    ARRAY['folder_id', 'title', 'data', 'status', 'rev']::text[],
    ARRAY['id', 'owner_id']::text[]
  );
  IF NOT lib.castable(_key, 'bigint') THEN PERFORM lib.not_found('Doc', 'id', _key); END IF;
  IF _parent IS NOT NULL THEN PERFORM "app"."folders_within"(_parent, args -> 'ancestors'); END IF;
  IF _body ? 'id' AND _body ->> 'id' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('primary key "id" cannot be changed', 'id', 'primary');
  END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  _expected := lib.expected_version('rev', args -> 'body');
  UPDATE "app"."docs" t SET
    "folder_id" = CASE WHEN _body ? 'folder_id' THEN r."folder_id" ELSE t."folder_id" END,
    "title" = CASE WHEN _body ? 'title' THEN r."title" WHEN _patch THEN t."title" ELSE NULL END,
    "data" = CASE WHEN _body ? 'data' THEN CASE WHEN _patch AND jsonb_typeof(_body -> 'data') = 'object' THEN lib.merge_patch(t."data", _body -> 'data')
      ELSE r."data" END WHEN _patch THEN t."data" ELSE NULL END,
    "status" = CASE WHEN _body ? 'status' THEN r."status" WHEN _patch THEN t."status" ELSE 'draft'::character varying(255) END
  FROM jsonb_populate_record(NULL::"app"."docs", _body) r
  WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NULL
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t."rev"::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
    AND (_expected IS NULL OR t."rev" = _expected)
  RETURNING json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
      t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
    ) r),
    'id', t."id"::text,
    'etag', t."rev"::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."docs_scenario"(_scenario))[1]
  ) INTO _result;
  IF _result IS NULL THEN
    SELECT t."rev"::text, t._modified_at INTO _etag, _modified
    FROM "app"."docs" t
    WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NULL;
    IF NOT FOUND THEN PERFORM "app"."docs_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."docs_deny"('update', _key);
    PERFORM lib.precondition_failed('Doc', _etag, _modified, args, _expected);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "app"."docs_update"(jsonb, boolean) IS 'Update a Doc: replace (PUT) when _patch is false, else patch (PATCH).';

SELECT meta.drop_if_returns('"api"."docs_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_replace"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."docs_update"(args, false) $fn$;
COMMENT ON FUNCTION "api"."docs_replace"(jsonb) IS 'replace (PUT) a Doc: app.docs_update(args, false).';

SELECT meta.drop_if_returns('"api"."docs_patch"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_patch"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."docs_update"(args, true) $fn$;
COMMENT ON FUNCTION "api"."docs_patch"(jsonb) IS 'patch (PATCH) a Doc: app.docs_update(args, true).';

CREATE OR REPLACE FUNCTION "api"."docs_delete"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('docs', 'delete', "app"."docs_access"('delete'), 'Doc');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _permanent boolean := coalesce((args ->> 'permanent')::boolean, false);
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _etag text;
  _modified timestamptz;
BEGIN
  IF NOT lib.castable(_key, 'bigint') THEN PERFORM lib.not_found('Doc', 'id', _key); END IF;
  IF _parent IS NOT NULL THEN PERFORM "app"."folders_within"(_parent, args -> 'ancestors'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  _expected := lib.expected_version('rev', args -> 'body');
  IF NOT _permanent THEN
    UPDATE "app"."docs" t SET deleted_at = now() WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NULL
      AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t."rev"::text = ANY (_if_match))
      AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
      AND (_expected IS NULL OR t."rev" = _expected);
  ELSE
    DELETE FROM "app"."docs" t WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent)
      AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t."rev"::text = ANY (_if_match))
      AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
      AND (_expected IS NULL OR t."rev" = _expected);
  END IF;
  IF NOT FOUND AND NOT _permanent THEN
    SELECT t."rev"::text, t._modified_at INTO _etag, _modified
    FROM "app"."docs" t
    WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NULL;
    IF NOT FOUND THEN PERFORM "app"."docs_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."docs_deny"('delete', _key);
    PERFORM lib.precondition_failed('Doc', _etag, _modified, args, _expected);
  ELSIF NOT FOUND THEN
    SELECT t."rev"::text, t._modified_at INTO _etag, _modified
    FROM "app"."docs" t
    WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent);
    IF NOT FOUND THEN PERFORM "app"."docs_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."docs_deny"('delete', _key);
    PERFORM lib.precondition_failed('Doc', _etag, _modified, args, _expected);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."docs_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."docs_delete"(jsonb) IS 'delete a Doc (soft delete unless permanent)';

SELECT meta.drop_if_returns('"api"."docs_restore"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_restore"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('docs', 'restore', "app"."docs_access"('restore'), 'Doc');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _result json;
  _etag text;
  _modified timestamptz;
BEGIN
  IF NOT lib.castable(_key, 'bigint') THEN PERFORM lib.not_found('Doc', 'id', _key); END IF;
  IF _parent IS NOT NULL THEN PERFORM "app"."folders_within"(_parent, args -> 'ancestors'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  _expected := lib.expected_version('rev', args -> 'body');
  UPDATE "app"."docs" t SET deleted_at = NULL
  WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NOT NULL
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t."rev"::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
    AND (_expected IS NULL OR t."rev" = _expected)
  RETURNING json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
      t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
    ) r),
    'id', t."id"::text,
    'etag', t."rev"::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."docs_scenario"(_scenario))[1]
  ) INTO _result;
  IF _result IS NULL AND (_if_match IS NOT NULL OR _since IS NOT NULL) THEN
    SELECT t."rev"::text, t._modified_at INTO _etag, _modified
    FROM "app"."docs" t
    WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NOT NULL;
    IF FOUND THEN
      UPDATE "app"."docs" t SET deleted_at = NULL
      WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NOT NULL
      RETURNING json_build_object(
        'data', (SELECT row_to_json(r) FROM (SELECT
          t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
          t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
        ) r),
        'id', t."id"::text,
        'etag', t."rev"::text,
        'last_modified', t._modified_at,
        'scenario', ("app"."docs_scenario"(_scenario))[1]
      ) INTO _result;
      IF _result IS NOT NULL THEN
        PERFORM lib.precondition_check('Doc', _etag, _modified, args);
        RETURN _result;
      END IF;
    END IF;
  END IF;
  IF _result IS NULL THEN
    SELECT json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
        t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
      ) r),
      'id', t."id"::text,
      'etag', t."rev"::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."docs_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."docs" t
    WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NULL;
    IF _result IS NULL THEN
      PERFORM "app"."docs_refuse"('restore', _key, _parent, coalesce('*' = ANY (_if_match), false));
    END IF;
    PERFORM "app"."docs_deny"('restore', _key);
    IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
      PERFORM lib.precondition_check('Doc', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
    END IF;
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."docs_restore"(jsonb) IS 'restore a Doc';

SELECT meta.drop_if_returns('"api"."docs_stream"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_stream"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('docs', 'list', "app"."docs_access"('list'), 'Doc');
  _parent text := args ->> 'parent';
  _where text;
  _sql text;
  _visible json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM "app"."folders_within"(_parent, args -> 'ancestors'); END IF;
  _where := lib.filter_sql(lib.fields('docs'), args -> 'filter', '{filter}');
  IF _parent IS NOT NULL THEN _where := 't."folder_id" = $2 AND ' || _where; END IF;
  IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;
  PERFORM lib.statement_params(args, _parent, 0, 0);
  IF coalesce(args -> 'joined', '{}'::jsonb) ? 'folder' THEN
    PERFORM set_config('request.scenario.folders', coalesce("app"."folders_access"('read'), chr(1)), true);
  END IF;
  _sql := $q$SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')
  FROM "app"."docs_changes"(
    ($1 ->> 'after_tx')::xid8,
    ($1 ->> 'after_id')::bigint,
    ($1 ->> 'before')::xid8,
    ($1 ->> 'limit')::integer
  ) c$q$
    || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."docs", c.image) t WHERE $q$ || _where END;
  _visible := lib.query_generic(_sql, NULL::json);
  RETURN json_build_object('data', _visible);
END $fn$;
COMMENT ON FUNCTION "api"."docs_stream"(jsonb)
  IS 'which changes of Doc (and its links) past a position the caller may list, narrowed by the list''s filters and parent (design 9)';

CREATE OR REPLACE FUNCTION "app"."docs_versions"(_key text, _parent text, _version text, _limit integer, _offset bigint,
  OUT readable boolean, OUT total bigint, OUT entries json)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  _winner text := "app"."docs_access"('read');
  _was text := current_setting('request.action', true);
  _since bigint;
BEGIN
  IF NOT lib.castable(_key, 'bigint') THEN readable := false; RETURN; END IF;
  PERFORM set_config('request.action', 'read', true);  -- the rules of a read, whatever the session set
  readable := _winner IS NOT NULL AND EXISTS (SELECT FROM "app"."docs" WHERE "id" = _key::bigint
    AND (_parent IS NULL OR "folder_id"::text = _parent)
    AND CASE _winner
        WHEN 'Editors read all' THEN (SELECT auth.roles() && ARRAY['editor']::text[])
        WHEN 'Owners edit drafts' THEN (
  (SELECT auth.uid() IS NOT NULL)
  AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("owner_id" = (SELECT auth.uid())))
  AND ((SELECT lib.action() = ANY (ARRAY['create', 'update', 'delete', 'restore']::text[])) OR (("status"::text = ANY (ARRAY['draft']::text[]))))
)
        ELSE false END
    AND deleted_at IS NULL);
  PERFORM set_config('request.action', coalesce(_was, ''), true);
  IF NOT readable THEN RETURN; END IF;
  SELECT coalesce(max(c.id), 0) INTO _since FROM lib.changes c WHERE c.table_name = 'docs' AND c.record_key = _key AND c.action = 'created';
  IF _version IS NOT NULL THEN
    SELECT json_agg(json_build_object('version', c.etag::bigint, 'etag', c.etag, 'action', c.action, 'at', c.at, 'by', c.sub,
      'data', (SELECT row_to_json(r) FROM (SELECT
  t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
  t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
) r))) INTO entries
    FROM (SELECT * FROM lib.changes c WHERE c.table_name = 'docs' AND c.record_key = _key AND c.id >= _since AND c.etag = _version ORDER BY c.id LIMIT 1) c
    CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."docs", c.image) t;
    RETURN;
  END IF;
  SELECT count(*) INTO total FROM lib.changes c WHERE c.table_name = 'docs' AND c.record_key = _key AND c.id >= _since;
  SELECT coalesce(json_agg(json_build_object('version', c.etag::bigint, 'etag', c.etag, 'action', c.action, 'at', c.at, 'by', c.sub,
      'data', (SELECT row_to_json(r) FROM (SELECT
  t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
  t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
) r)) ORDER BY c.id DESC), '[]') INTO entries
  FROM (SELECT * FROM lib.changes c WHERE c.table_name = 'docs' AND c.record_key = _key AND c.id >= _since ORDER BY c.id DESC LIMIT _limit OFFSET _offset) c
  CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."docs", c.image) t;
END $fn$;
COMMENT ON FUNCTION "app"."docs_versions"(text, text, text, integer, bigint)
  IS 'The versions of Doc _key the caller may read now, newest first, from lib.changes (design 9).';

SELECT meta.drop_if_returns('"api"."docs_history"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."docs_history"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('docs', 'read', "app"."docs_access"('read'), 'Doc');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _version text := args ->> 'version';
  _page int := lib.page(args);
  _per_page int := lib.per_page(args);
  _readable boolean;
  _total bigint;
  _entries json;
BEGIN
  IF NOT lib.castable(_key, 'bigint') THEN PERFORM lib.not_found('Doc', 'id', _key); END IF;
  IF _parent IS NOT NULL THEN PERFORM "app"."folders_within"(_parent, args -> 'ancestors'); END IF;
  PERFORM FROM "app"."docs" t WHERE t."id" = _key::bigint AND (_parent IS NULL OR t."folder_id" = _parent) AND t.deleted_at IS NULL;
  IF NOT FOUND THEN PERFORM "app"."docs_refuse"('read', _key, _parent); END IF;
  SELECT v.readable, v.total, v.entries INTO _readable, _total, _entries
    FROM "app"."docs_versions"(_key, _parent, _version, _per_page, (_page - 1)::bigint * _per_page) v;
  IF NOT _readable THEN PERFORM "app"."docs_refuse"('read', _key, _parent); END IF;
  IF _version IS NOT NULL THEN
    IF _entries IS NULL THEN
      PERFORM lib.refuse('PT404', format('%s "%s" has no version %s (or it is no longer kept)', 'Doc', _key, _version), NULL, NULL);
    END IF;
    RETURN json_build_object('data', _entries -> 0, 'scenario', ("app"."docs_scenario"(_scenario))[1]);
  END IF;
  RETURN json_build_object('data', _entries, 'meta', json_build_object('total', _total, 'count', 'exact', 'page', _page, 'per_page', _per_page),
    'scenario', ("app"."docs_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."docs_history"(jsonb) IS 'history of a Doc: its versions newest first, or one version (design 9), for whoever may read it';

DELETE FROM lib.fields WHERE tbl <> ALL (ARRAY['folders', 'docs']::text[]);

DELETE FROM lib.manifest_resources WHERE entity <> ALL (ARRAY['Folder', 'Doc']::text[]);

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
    PERFORM set_config('request.scenario.folders', '', true),
      set_config('request.scenario.docs', '', true);
  END IF;
  _set := set_config('request.dispatched', 'yes', true);
  IF fn COLLATE "C" < 'folders_create' THEN
    IF fn COLLATE "C" < 'docs_read' THEN
      CASE fn
        WHEN 'docs_create' THEN _result := "api"."docs_create"(args);
        WHEN 'docs_delete' THEN _result := "api"."docs_delete"(args);
        WHEN 'docs_history' THEN _result := "api"."docs_history"(args);
        WHEN 'docs_list' THEN _result := "api"."docs_list"(args);
        WHEN 'docs_patch' THEN _result := "api"."docs_patch"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    ELSE
      CASE fn
        WHEN 'docs_read' THEN _result := "api"."docs_read"(args);
        WHEN 'docs_replace' THEN _result := "api"."docs_replace"(args);
        WHEN 'docs_restore' THEN _result := "api"."docs_restore"(args);
        WHEN 'docs_search' THEN _result := "api"."docs_search"(args);
        WHEN 'docs_stream' THEN _result := "api"."docs_stream"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    END IF;
  ELSE
    IF fn COLLATE "C" < 'folders_replace' THEN
      CASE fn
        WHEN 'folders_create' THEN _result := "api"."folders_create"(args);
        WHEN 'folders_delete' THEN _result := "api"."folders_delete"(args);
        WHEN 'folders_list' THEN _result := "api"."folders_list"(args);
        WHEN 'folders_patch' THEN _result := "api"."folders_patch"(args);
        WHEN 'folders_read' THEN _result := "api"."folders_read"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    ELSE
      CASE fn
        WHEN 'folders_replace' THEN _result := "api"."folders_replace"(args);
        WHEN 'folders_search' THEN _result := "api"."folders_search"(args);
        WHEN 'folders_stream' THEN _result := "api"."folders_stream"(args);
        WHEN 'upload_intent' THEN _result := "api"."upload_intent"(args);
        WHEN 'upload_prepare' THEN _result := "api"."upload_prepare"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    END IF;
  END IF;
  -- Files queued for deletion (lib.discard_file): the gateway drains the outbox after commit.
  IF current_setting('request.outbox', true) = 'queued' THEN _result := (left(_result::text, -1) || ',"outbox":true}')::json; END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION api.dispatch(text, jsonb, text, text, jsonb)
  IS 'The one statement of a request: role, claims and IP for this transaction, then api.<fn>(args).';

INSERT INTO lib.manifest (singleton, manifest) VALUES (true, '{
  "engine": 3,
  "api": {"slug":"docs","version":"v1","title":"Documents","docsUrl":"https://docs.example.com","basePath":"/api/docs/v1"},
  "resources": {}
}'::jsonb)

  ON CONFLICT (singleton) DO UPDATE SET manifest = EXCLUDED.manifest;

SELECT meta.drop_stale_functions(ARRAY['folders_list', 'folders_search', 'folders_read', 'folders_create', 'folders_replace', 'folders_patch',
    'folders_delete', 'folders_stream', 'docs_list', 'docs_search', 'docs_read', 'docs_create', 'docs_replace', 'docs_patch', 'docs_delete', 'docs_restore',
    'docs_stream', 'docs_history']::text[]);

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA api TO anon, authenticated;

-- Access scenarios: PRE_FETCH functions and row-level security policies -------------------------

ALTER TABLE "app"."folders" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('folders');
CREATE OR REPLACE FUNCTION "app"."folders_access"(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  CASE action
    WHEN 'list', 'search', 'read', 'create', 'update', 'delete' THEN RETURN CASE WHEN (SELECT auth.uid() IS NOT NULL) THEN 'Signed-in users' END;
    ELSE RETURN NULL;
  END CASE;
END $fn$;
COMMENT ON FUNCTION "app"."folders_access"(text) IS 'PRE_FETCH for Folder: the scenario that wins an action (first whose identity rules pass), or NULL.';
CREATE POLICY "Signed-in users [select]" ON "app"."folders"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('folders'), "app"."folders_access"(lib.action())) = 'Signed-in users')
    AND (SELECT auth.uid() IS NOT NULL)
  );
COMMENT ON POLICY "Signed-in users [select]" ON "app"."folders"
  IS 'Scenario "Signed-in users"; list (entity), search (entity), read (entity), create (entity), update (entity), delete (entity)';
CREATE POLICY "Signed-in users [insert]" ON "app"."folders"
  AS PERMISSIVE FOR INSERT TO anon, authenticated
  WITH CHECK (
    (SELECT coalesce(lib.scenario('folders'), "app"."folders_access"(lib.action())) = 'Signed-in users')
    AND (SELECT auth.uid() IS NOT NULL)
  );
COMMENT ON POLICY "Signed-in users [insert]" ON "app"."folders" IS 'Scenario "Signed-in users"; create (entity)';
CREATE POLICY "Signed-in users [update]" ON "app"."folders"
  AS PERMISSIVE FOR UPDATE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('folders'), "app"."folders_access"(lib.action())) = 'Signed-in users')
    AND (SELECT auth.uid() IS NOT NULL)
  )
  WITH CHECK (true);
COMMENT ON POLICY "Signed-in users [update]" ON "app"."folders" IS 'Scenario "Signed-in users"; update (entity)';
CREATE POLICY "Signed-in users [delete]" ON "app"."folders"
  AS PERMISSIVE FOR DELETE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('folders'), "app"."folders_access"(lib.action())) = 'Signed-in users')
    AND (SELECT auth.uid() IS NOT NULL)
  );
COMMENT ON POLICY "Signed-in users [delete]" ON "app"."folders" IS 'Scenario "Signed-in users"; delete (entity)';
DROP FUNCTION IF EXISTS "app"."folders_stakeholder"(text);

ALTER TABLE "app"."docs" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('docs');
CREATE OR REPLACE FUNCTION "app"."docs_access"(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  CASE action
    WHEN 'list', 'search', 'create', 'update', 'delete', 'restore' THEN RETURN CASE WHEN (SELECT auth.uid() IS NOT NULL) THEN 'Owners edit drafts' END;
    WHEN 'read' THEN RETURN CASE
      WHEN (SELECT auth.roles() && ARRAY['editor']::text[]) THEN 'Editors read all'
      WHEN (SELECT auth.uid() IS NOT NULL) THEN 'Owners edit drafts'
    END;
    ELSE RETURN NULL;
  END CASE;
END $fn$;
COMMENT ON FUNCTION "app"."docs_access"(text) IS 'PRE_FETCH for Doc: the scenario that wins an action (first whose identity rules pass), or NULL.';
CREATE POLICY "Owners edit drafts [select]" ON "app"."docs"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('docs'), "app"."docs_access"(lib.action())) = 'Owners edit drafts')
    AND (
      (SELECT auth.uid() IS NOT NULL)
      AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("owner_id" = (SELECT auth.uid())))
      AND ((SELECT lib.action() = ANY (ARRAY['create', 'update', 'delete', 'restore']::text[])) OR (("status"::text = ANY (ARRAY['draft']::text[]))))
    )
  );
COMMENT ON POLICY "Owners edit drafts [select]" ON "app"."docs"
  IS 'Scenario "Owners edit drafts"; list (entity), search (entity), read (entity), create (entity), update (entity), delete (entity), restore (entity)';
CREATE POLICY "Editors read all [select]" ON "app"."docs"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('docs'), "app"."docs_access"(lib.action())) = 'Editors read all')
    AND (SELECT auth.roles() && ARRAY['editor']::text[])
  );
COMMENT ON POLICY "Editors read all [select]" ON "app"."docs" IS 'Scenario "Editors read all"; read (action)';
CREATE POLICY "Owners edit drafts [insert]" ON "app"."docs"
  AS PERMISSIVE FOR INSERT TO anon, authenticated
  WITH CHECK (
    (SELECT coalesce(lib.scenario('docs'), "app"."docs_access"(lib.action())) = 'Owners edit drafts')
    AND (
      (SELECT auth.uid() IS NOT NULL)
      AND ("owner_id" = (SELECT auth.uid()))
      AND ((SELECT lib.action() = ANY (ARRAY['create']::text[])) OR (("status"::text = ANY (ARRAY['draft']::text[]))))
    )
  );
COMMENT ON POLICY "Owners edit drafts [insert]" ON "app"."docs" IS 'Scenario "Owners edit drafts"; create (entity)';
CREATE POLICY "Owners edit drafts [update]" ON "app"."docs"
  AS PERMISSIVE FOR UPDATE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('docs'), "app"."docs_access"(lib.action())) = 'Owners edit drafts')
    AND (
      (SELECT auth.uid() IS NOT NULL)
      AND ("owner_id" = (SELECT auth.uid()))
      AND ((SELECT lib.action() = ANY (ARRAY['create']::text[])) OR (("status"::text = ANY (ARRAY['draft']::text[]))))
    )
  )
  WITH CHECK (true);
COMMENT ON POLICY "Owners edit drafts [update]" ON "app"."docs" IS 'Scenario "Owners edit drafts"; update (entity), delete (entity), restore (entity)';
CREATE POLICY "Owners edit drafts [delete]" ON "app"."docs"
  AS PERMISSIVE FOR DELETE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('docs'), "app"."docs_access"(lib.action())) = 'Owners edit drafts')
    AND (
      (SELECT auth.uid() IS NOT NULL)
      AND ("owner_id" = (SELECT auth.uid()))
      AND ((SELECT lib.action() = ANY (ARRAY['create']::text[])) OR (("status"::text = ANY (ARRAY['draft']::text[]))))
    )
  );
COMMENT ON POLICY "Owners edit drafts [delete]" ON "app"."docs" IS 'Scenario "Owners edit drafts"; delete (entity)';
CREATE POLICY "live rows [all]" ON "app"."docs"
  AS RESTRICTIVE FOR ALL TO anon, authenticated
  USING (deleted_at IS NULL OR (SELECT lib.action()) = ANY (ARRAY['restore', 'delete']))
  WITH CHECK (deleted_at IS NULL OR (SELECT lib.action()) = ANY (ARRAY['restore', 'delete']));
COMMENT ON POLICY "live rows [all]" ON "app"."docs" IS 'softDelete: a soft-deleted row exists only for restore and (permanent) delete.';
DROP FUNCTION IF EXISTS "app"."docs_stakeholder"(text);

-- Change log: the changes each caller may see, judged by the read rules (design 9) --------------

DROP FUNCTION IF EXISTS "app"."folders_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."folders_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."folders_changes"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "app"."folders_changes"(after_tx xid8, after_id bigint, before xid8, lim integer)
RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  _winner text := "app"."folders_access"('list');
  _was text := current_setting('request.action', true);
BEGIN
  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing
  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set
  RETURN QUERY
    SELECT c.id, c.tx, c.action, c.record_key, c.image
    FROM (SELECT c.id, c.tx, c.action, c.record_key, c.image AS image FROM lib.changes c
      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('folders')
      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page
    WHERE c.image IS NOT NULL AND EXISTS (
        SELECT FROM jsonb_populate_record(NULL::"app"."folders", c.image - ARRAY['id', 'name', '_rev',
            '_modified_at']::text[])  -- the record as that change wrote it (a link: its owner now)
        WHERE CASE _winner
        WHEN 'Signed-in users' THEN (SELECT auth.uid() IS NOT NULL)
        ELSE false END)
    ORDER BY c.tx, c.id;
  PERFORM set_config('request.action', coalesce(_was, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."folders_changes"(xid8, bigint, xid8, integer)
  IS 'Of the first lim changes of app.folders (and its links) past a position (tx, id) and of transactions below before, those the caller may list (design 9).';

DROP FUNCTION IF EXISTS "app"."docs_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."docs_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."docs_changes"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "app"."docs_changes"(after_tx xid8, after_id bigint, before xid8, lim integer)
RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  _winner text := "app"."docs_access"('list');
  _was text := current_setting('request.action', true);
BEGIN
  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing
  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set
  RETURN QUERY
    SELECT c.id, c.tx, c.action, c.record_key, c.image
    FROM (SELECT c.id, c.tx, c.action, c.record_key, c.image AS image FROM lib.changes c
      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('docs')
      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page
    WHERE c.image IS NOT NULL AND EXISTS (
        SELECT FROM jsonb_populate_record(NULL::"app"."docs", c.image - ARRAY['id', 'folder_id', 'title', 'data', 'rev', '_rev',
            '_modified_at']::text[])  -- the record as that change wrote it (a link: its owner now)
        WHERE CASE _winner
        WHEN 'Owners edit drafts' THEN (
  (SELECT auth.uid() IS NOT NULL)
  AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("owner_id" = (SELECT auth.uid())))
  AND ((SELECT lib.action() = ANY (ARRAY['create', 'update', 'delete', 'restore']::text[])) OR (("status"::text = ANY (ARRAY['draft']::text[]))))
)
        ELSE false END
          AND deleted_at IS NULL)
    ORDER BY c.tx, c.id;
  PERFORM set_config('request.action', coalesce(_was, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."docs_changes"(xid8, bigint, xid8, integer)
  IS 'Of the first lim changes of app.docs (and its links) past a position (tx, id) and of transactions below before, those the caller may list (design 9).';

-- Change log: pages of changes shaped as records, for the gateway's streams (design 9) ----------

DROP FUNCTION IF EXISTS "app"."folders_change_records"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "lib"."folders_change_records"(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json
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
        ELSE (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."name" AS "name") r)
      END
    ) ORDER BY c.tx, c.id), '[]'),
    'last', (array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1],
    'read', count(*)
  )
  FROM (SELECT * FROM lib.changes c
    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('folders')
    ORDER BY c.tx, c.id LIMIT lim) c
  LEFT JOIN LATERAL jsonb_populate_record(NULL::"app"."folders", CASE WHEN c.table_name = 'folders' THEN c.image END) t ON true
$fn$;
REVOKE EXECUTE ON FUNCTION "lib"."folders_change_records"(xid8, bigint, xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "lib"."folders_change_records"(xid8, bigint, xid8, integer) TO authenticator;
COMMENT ON FUNCTION "lib"."folders_change_records"(xid8, bigint, xid8, integer)
  IS 'A page of the change log of app.folders and its links, shaped as records; for the gateway''s streams only (design 9).';

DROP FUNCTION IF EXISTS "app"."docs_change_records"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "lib"."docs_change_records"(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json
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
          t."id" AS "id", t."folder_id" AS "folder_id", t."title" AS "title", t."data" AS "data",
          t."status" AS "status", t."rev" AS "rev", t."owner_id" AS "owner_id"
        ) r)
      END
    ) ORDER BY c.tx, c.id), '[]'),
    'last', (array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1],
    'read', count(*)
  )
  FROM (SELECT * FROM lib.changes c
    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('docs')
    ORDER BY c.tx, c.id LIMIT lim) c
  LEFT JOIN LATERAL jsonb_populate_record(NULL::"app"."docs", CASE WHEN c.table_name = 'docs' THEN c.image END) t ON true
$fn$;
REVOKE EXECUTE ON FUNCTION "lib"."docs_change_records"(xid8, bigint, xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "lib"."docs_change_records"(xid8, bigint, xid8, integer) TO authenticator;
COMMENT ON FUNCTION "lib"."docs_change_records"(xid8, bigint, xid8, integer)
  IS 'A page of the change log of app.docs and its links, shaped as records; for the gateway''s streams only (design 9).';

-- Identity: sign-in, refresh tokens and their revocation (api.identity) -------------------------

DROP FUNCTION IF EXISTS lib.identity_claims(text);
DROP TRIGGER IF EXISTS identity_revoke ON "app"."folders";
DROP TRIGGER IF EXISTS identity_revoke ON "app"."docs";

-- Webhooks: the receivers of changes (api.webhooks, design 9) -----------------------------------

DELETE FROM lib.webhooks WHERE name <> ALL (ARRAY[]::text[]);  -- removed from the model, with their deliveries

-- Access: existence past the policies, failing rules, refusals (403/404) and pre-flights --------

CREATE OR REPLACE FUNCTION "app"."folders_exists"(_key text, _parent text DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "app"."folders" t WHERE t."id" = _key);
END $fn$;
COMMENT ON FUNCTION "app"."folders_exists"(text, text)
  IS 'Whether Folder _key exists (live, in the caller''s organization, under _parent), whatever the policies say. Definer: it says only that.';

CREATE OR REPLACE FUNCTION "app"."folders_scenario"(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE _scenario
    WHEN 'Signed-in users' THEN ARRAY['Signed-in users', 'entity', '']
  END
$fn$;
COMMENT ON FUNCTION "app"."folders_scenario"(text) IS 'Label, level and data rules of each scenario of Folder.';

CREATE OR REPLACE FUNCTION "app"."folders_failing"(_scenario text, _key text)
  RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _failing text;
BEGIN
  IF _scenario = 'Signed-in users' THEN
    SELECT ''::text FROM "app"."folders" t WHERE t."id" = _key INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."folders" t WHERE t."id" = _key INTO _failing;
  END IF;
  RETURN _failing;
END $fn$;
COMMENT ON FUNCTION "app"."folders_failing"(text, text) IS 'The data rules of a Folder scenario that an existing record breaks (for 403 details).';

CREATE OR REPLACE FUNCTION "app"."folders_deny"(_action text, _key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _winner text := "app"."folders_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, 'Folder'); END IF;
  _failing := "app"."folders_failing"(_winner, _key);
  IF _failing <> '' THEN
    _about := "app"."folders_scenario"(_winner);
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Folder', _failing),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;
  END IF;
END $fn$;
COMMENT ON FUNCTION "app"."folders_deny"(text, text)
  IS 'Refuses (403) when the scenario that wins _action rejects the existing Folder _key, naming the rules it breaks.';

SELECT meta.drop_if_returns('"app"."folders_refusal"(text, text, text, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."folders_refusal"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS json LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _scenario text := "app"."folders_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _scenario = 'Signed-in users' THEN
    SELECT ''::text FROM "app"."folders" t WHERE t."id" = _key INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."folders" t WHERE t."id" = _key INTO _failing;
  END IF;
  IF _failing IS NULL THEN
    IF _star THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT412', 'message', format('If-Match: * requires an existing %s, and there is none with %s "%s"', 'Folder', 'id', _key),
          'detail', jsonb_build_object('current', NULL, 'supplied', '*')::text, 'hint',
          'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.')); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT404', 'message', format('no %s with %s "%s"', 'Folder', 'id', coalesce(_key, '')), 'detail',
          jsonb_build_object('property', NULL, 'rule', NULL)::text, 'hint', NULL));
  END IF;
  IF _scenario IS NULL THEN
    IF auth.uid() IS NULL
      THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT401', 'message', format('No access scenario lets an anonymous caller %s %s: sign in.', _action, 'Folder'), 'detail', NULL,
          'hint', NULL)); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message', format('No access scenario lets you %s %s.', _action, 'Folder'), 'detail', NULL, 'hint', NULL));
  END IF;
  IF _failing <> '' THEN
    _about := "app"."folders_scenario"(_scenario);
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message',
          format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Folder', _failing), 'detail',
          jsonb_build_object('scenario', _about[1], 'rules', _failing)::text, 'hint', NULL));
  END IF;
  RETURN json_build_object('refused',
      json_build_object('code', 'PT403', 'message', format('You may not %s this %s.', _action, 'Folder'), 'detail', NULL, 'hint', NULL));
END $fn$;
COMMENT ON FUNCTION "app"."folders_refusal"(text, text, text, boolean)
  IS 'Why a Folder the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.';

CREATE OR REPLACE FUNCTION "app"."folders_refuse"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS void LANGUAGE plpgsql
  AS $fn$
BEGIN
  PERFORM lib.raise_refusal("app"."folders_refusal"(_action, _key, _parent, _star));
END $fn$;
COMMENT ON FUNCTION "app"."folders_refuse"(text, text, text, boolean)
  IS 'A Folder the caller cannot _action was asked for: 403 when it exists, else 404 (raised).';

CREATE OR REPLACE FUNCTION "app"."folders_require"(_key text, _action text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _outer_action text := lib.action();
  _outer_scenario text := lib.scenario('folders');
  _winner text := lib.enter('folders', _action, "app"."folders_access"(_action), 'Folder');
  _found boolean := false;
  _set text;
BEGIN
  SELECT EXISTS (SELECT 1 FROM "app"."folders" t WHERE t."id" = _key) INTO _found;
  IF NOT _found THEN PERFORM "app"."folders_refuse"(_action, _key); END IF;
  _set := set_config('request.action', coalesce(_outer_action, ''), true)
    || set_config('request.scenario.folders', coalesce(_outer_scenario, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."folders_require"(text, text) IS 'Pre-flight: the caller must be able to _action Folder _key (404 when missing, 403 when hidden).';

CREATE OR REPLACE FUNCTION "app"."folders_within"(_key text, _above jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF jsonb_array_length(coalesce(_above, '[]')) > 0 THEN PERFORM lib.bad_request('Folder has no parent'); END IF;
  PERFORM "app"."folders_require"(_key, 'read');
END $fn$;
COMMENT ON FUNCTION "app"."folders_within"(text, jsonb)
  IS 'Nested paths: Folder _key, under the ancestors _above (outermost first), each existing, containing the next and readable.';

CREATE OR REPLACE FUNCTION "app"."docs_exists"(_key text, _parent text DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  IF NOT lib.castable(_key, 'bigint') THEN RETURN false; END IF;
  RETURN EXISTS (SELECT 1 FROM "app"."docs" t WHERE t."id" = _key::bigint AND t.deleted_at IS NULL AND (_parent IS NULL OR t."folder_id"::text = _parent));
END $fn$;
COMMENT ON FUNCTION "app"."docs_exists"(text, text)
  IS 'Whether Doc _key exists (live, in the caller''s organization, under _parent), whatever the policies say. Definer: it says only that.';

CREATE OR REPLACE FUNCTION "app"."docs_scenario"(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE _scenario
    WHEN 'Owners edit drafts' THEN ARRAY['Owners edit drafts', 'entity', 'matchResourceOwner, lifecycleStatus (allowed: draft)']
    WHEN 'Editors read all' THEN ARRAY['Editors read all', 'action', '']
  END
$fn$;
COMMENT ON FUNCTION "app"."docs_scenario"(text) IS 'Label, level and data rules of each scenario of Doc.';

CREATE OR REPLACE FUNCTION "app"."docs_failing"(_scenario text, _key text)
  RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _failing text;
BEGIN
  IF _scenario = 'Owners edit drafts' THEN
    SELECT CASE WHEN (_g.g0 AND _r.r0 AND _r.r1) THEN ''
      ELSE concat_ws(', ', CASE WHEN (NOT (_g.g0) OR _r.r0) IS NOT TRUE THEN 'matchResourceOwner' END, CASE WHEN (NOT (_g.g0) OR _r.r1) IS NOT TRUE
        THEN 'lifecycleStatus (allowed: draft)' END) END
        FROM (SELECT (SELECT auth.uid() IS NOT NULL) AS g0 OFFSET 0) _g,
        LATERAL (SELECT coalesce(CASE WHEN (_g.g0) IS NOT FALSE THEN ("owner_id" = (SELECT auth.uid())) END, false) AS r0,
            coalesce(CASE WHEN (_g.g0) IS NOT FALSE
              THEN ((SELECT lib.action() = ANY (ARRAY['create']::text[])) OR (("status"::text = ANY (ARRAY['draft']::text[])))) END, false) AS r1
            FROM "app"."docs" t WHERE t."id" = _key::bigint OFFSET 0) _r INTO _failing;
  ELSIF _scenario = 'Editors read all' THEN
    SELECT ''::text FROM "app"."docs" t WHERE t."id" = _key::bigint INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."docs" t WHERE t."id" = _key::bigint INTO _failing;
  END IF;
  RETURN _failing;
END $fn$;
COMMENT ON FUNCTION "app"."docs_failing"(text, text) IS 'The data rules of a Doc scenario that an existing record breaks (for 403 details).';

CREATE OR REPLACE FUNCTION "app"."docs_deny"(_action text, _key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _winner text := "app"."docs_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, 'Doc'); END IF;
  _failing := "app"."docs_failing"(_winner, _key);
  IF _failing <> '' THEN
    _about := "app"."docs_scenario"(_winner);
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Doc', _failing),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;
  END IF;
END $fn$;
COMMENT ON FUNCTION "app"."docs_deny"(text, text)
  IS 'Refuses (403) when the scenario that wins _action rejects the existing Doc _key, naming the rules it breaks.';

SELECT meta.drop_if_returns('"app"."docs_refusal"(text, text, text, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."docs_refusal"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS json LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _scenario text := "app"."docs_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF lib.castable(_key, 'bigint') THEN
    IF _scenario = 'Owners edit drafts' THEN
      SELECT CASE WHEN (_g.g0 AND _r.r0 AND _r.r1) THEN ''
        ELSE concat_ws(', ', CASE WHEN (NOT (_g.g0) OR _r.r0) IS NOT TRUE THEN 'matchResourceOwner' END, CASE WHEN (NOT (_g.g0) OR _r.r1) IS NOT TRUE
          THEN 'lifecycleStatus (allowed: draft)' END) END
          FROM (SELECT (SELECT auth.uid() IS NOT NULL) AS g0 OFFSET 0) _g,
          LATERAL (SELECT coalesce(CASE WHEN (_g.g0) IS NOT FALSE THEN ("owner_id" = (SELECT auth.uid())) END, false) AS r0,
              coalesce(CASE WHEN (_g.g0) IS NOT FALSE
                THEN ((SELECT lib.action() = ANY (ARRAY['create']::text[])) OR (("status"::text = ANY (ARRAY['draft']::text[])))) END, false) AS r1
              FROM "app"."docs" t WHERE t."id" = _key::bigint AND t.deleted_at IS NULL AND (_parent IS NULL OR t."folder_id"::text = _parent) OFFSET 0) _r
            INTO _failing;
    ELSIF _scenario = 'Editors read all' THEN
      SELECT ''::text FROM "app"."docs" t WHERE t."id" = _key::bigint AND t.deleted_at IS NULL AND (_parent IS NULL OR t."folder_id"::text = _parent)
        INTO _failing;
    ELSE
      SELECT ''::text FROM "app"."docs" t WHERE t."id" = _key::bigint AND t.deleted_at IS NULL AND (_parent IS NULL OR t."folder_id"::text = _parent)
        INTO _failing;
    END IF;
  END IF;
  IF _failing IS NULL THEN
    IF _star THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT412', 'message', format('If-Match: * requires an existing %s, and there is none with %s "%s"', 'Doc', 'id', _key),
          'detail', jsonb_build_object('current', NULL, 'supplied', '*')::text, 'hint',
          'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.')); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT404', 'message', format('no %s with %s "%s"', 'Doc', 'id', coalesce(_key, '')), 'detail',
          jsonb_build_object('property', NULL, 'rule', NULL)::text, 'hint', NULL));
  END IF;
  IF _scenario IS NULL THEN
    IF auth.uid() IS NULL
      THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT401', 'message', format('No access scenario lets an anonymous caller %s %s: sign in.', _action, 'Doc'), 'detail', NULL,
          'hint', NULL)); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message', format('No access scenario lets you %s %s.', _action, 'Doc'), 'detail', NULL, 'hint', NULL));
  END IF;
  IF _failing <> '' THEN
    _about := "app"."docs_scenario"(_scenario);
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message',
          format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Doc', _failing), 'detail',
          jsonb_build_object('scenario', _about[1], 'rules', _failing)::text, 'hint', NULL));
  END IF;
  RETURN json_build_object('refused',
      json_build_object('code', 'PT403', 'message', format('You may not %s this %s.', _action, 'Doc'), 'detail', NULL, 'hint', NULL));
END $fn$;
COMMENT ON FUNCTION "app"."docs_refusal"(text, text, text, boolean)
  IS 'Why a Doc the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.';

CREATE OR REPLACE FUNCTION "app"."docs_refuse"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS void LANGUAGE plpgsql
  AS $fn$
BEGIN
  PERFORM lib.raise_refusal("app"."docs_refusal"(_action, _key, _parent, _star));
END $fn$;
COMMENT ON FUNCTION "app"."docs_refuse"(text, text, text, boolean) IS 'A Doc the caller cannot _action was asked for: 403 when it exists, else 404 (raised).';

CREATE OR REPLACE FUNCTION "app"."docs_require"(_key text, _action text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _outer_action text := lib.action();
  _outer_scenario text := lib.scenario('docs');
  _winner text := lib.enter('docs', _action, "app"."docs_access"(_action), 'Doc');
  _found boolean := false;
  _set text;
BEGIN
  IF lib.castable(_key, 'bigint') THEN
    SELECT EXISTS (SELECT 1 FROM "app"."docs" t WHERE t."id" = _key::bigint AND t.deleted_at IS NULL) INTO _found;
  END IF;
  IF NOT _found THEN PERFORM "app"."docs_refuse"(_action, _key); END IF;
  _set := set_config('request.action', coalesce(_outer_action, ''), true)
    || set_config('request.scenario.docs', coalesce(_outer_scenario, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."docs_require"(text, text) IS 'Pre-flight: the caller must be able to _action Doc _key (404 when missing, 403 when hidden).';

CREATE OR REPLACE FUNCTION "app"."docs_within"(_key text, _above jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF jsonb_array_length(coalesce(_above, '[]')) > 0 THEN
    PERFORM "app"."folders_within"(_above ->> -1, _above - -1);
    IF "app"."docs_access"('read') IS NULL THEN PERFORM lib.no_scenario('read', 'Doc'); END IF;
    IF NOT "app"."docs_exists"(_key, _above ->> -1) THEN PERFORM lib.not_found('Doc', 'id', _key); END IF;
  END IF;
  PERFORM "app"."docs_require"(_key, 'read');
END $fn$;
COMMENT ON FUNCTION "app"."docs_within"(text, jsonb)
  IS 'Nested paths: Doc _key, under the ancestors _above (outermost first), each existing, containing the next and readable.';

-- Removed from the model ------------------------------------------------------------------------

SELECT meta.drop_stale_columns('folders', ARRAY['id', 'name', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_columns(
  'docs',
  ARRAY[
    'id', 'folder_id', 'title', 'data', 'status', 'rev', 'owner_id', '_rev', '_modified_at',
    'deleted_at'
  ]::text[]
);

SELECT meta.drop_stale_tables(ARRAY['folders', 'docs']::text[]);


