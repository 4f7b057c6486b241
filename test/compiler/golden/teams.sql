-- Constraints and indexes the model no longer has, or has changed -------------------------------

SELECT meta.drop_replaced('users', ARRAY['users_pkey']::text[], ARRAY['PRIMARY KEY ("id")']::text[], ARRAY[]::text[], ARRAY[]::text[]);

SELECT meta.drop_replaced(
  'teams',
  ARRAY['teams_pkey']::text[],
  ARRAY['PRIMARY KEY ("id")']::text[],
  ARRAY['teams_owner_id_idx']::text[],
  ARRAY['CREATE INDEX "teams_owner_id_idx" ON "app"."teams" USING btree ("owner_id")']::text[]
);

SELECT meta.drop_replaced(
  'teams_members',
  ARRAY['teams_members_pkey', 'teams_members_team_id_fkey', 'teams_members_user_id_fkey']::text[],
  ARRAY[
    'PRIMARY KEY ("team_id", "user_id")',
    'FOREIGN KEY ("team_id") REFERENCES "app"."teams" ("id") ON DELETE CASCADE',
    'FOREIGN KEY ("user_id") REFERENCES "app"."users" ("id") ON DELETE CASCADE'
  ]::text[],
  ARRAY['teams_members_user_id_idx']::text[],
  ARRAY[
    'CREATE INDEX "teams_members_user_id_idx" ON "app"."teams_members" USING btree ("user_id")'
  ]::text[]
);

SELECT meta.drop_replaced(
  'tasks',
  ARRAY['tasks_pkey', 'tasks_team_id_fkey']::text[],
  ARRAY[
    'PRIMARY KEY ("id")', 'FOREIGN KEY ("team_id") REFERENCES "app"."teams" ("id") ON DELETE RESTRICT'
  ]::text[],
  ARRAY['tasks_team_id_idx', 'tasks_title_idx']::text[],
  ARRAY[
    'CREATE INDEX "tasks_team_id_idx" ON "app"."tasks" USING btree ("team_id")',
    'CREATE INDEX "tasks_title_idx" ON "app"."tasks" USING btree ("title")'
  ]::text[]
);

-- Tables and columns ----------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS "app"."users" ();
COMMENT ON TABLE "app"."users" IS 'Entity User (collection users).';
SELECT meta.ensure_column('users', 'id', 'character varying(255)', true, 'gen_random_uuid()::text', false);
COMMENT ON COLUMN "app"."users"."id" IS 'primary';
SELECT meta.ensure_column('users', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."users"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('users', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."users"."_modified_at" IS 'Time of the last write (Last-Modified).';

CREATE TABLE IF NOT EXISTS "app"."teams" ();
COMMENT ON TABLE "app"."teams" IS 'Entity Team (collection teams).';
SELECT meta.ensure_column('teams', 'id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."teams"."id" IS 'primary, readOnly';
SELECT meta.ensure_column('teams', 'name', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."teams"."name" IS 'required';
SELECT meta.ensure_column('teams', 'owner_id', 'character varying(255)', false, NULL, false);
COMMENT ON COLUMN "app"."teams"."owner_id" IS 'readOnly; modules: Owner';
SELECT meta.ensure_column('teams', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."teams"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('teams', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."teams"."_modified_at" IS 'Time of the last write (Last-Modified).';

CREATE TABLE IF NOT EXISTS "app"."teams_members" ();
COMMENT ON TABLE "app"."teams_members" IS 'manyToMany Team.members -> User.';
SELECT meta.ensure_column('teams_members', 'team_id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."teams_members"."team_id" IS NULL;
SELECT meta.ensure_column('teams_members', 'user_id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."teams_members"."user_id" IS NULL;
SELECT meta.ensure_column('teams_members', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."teams_members"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('teams_members', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."teams_members"."_modified_at" IS 'Time of the last write (Last-Modified).';

CREATE TABLE IF NOT EXISTS "app"."tasks" ();
COMMENT ON TABLE "app"."tasks" IS 'Entity Task (collection tasks).';
SELECT meta.ensure_column('tasks', 'id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."tasks"."id" IS 'primary, readOnly';
SELECT meta.ensure_column('tasks', 'team_id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."tasks"."team_id" IS 'required, immutable';
SELECT meta.ensure_column('tasks', 'title', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."tasks"."title" IS 'required';
SELECT meta.ensure_column('tasks', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."tasks"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('tasks', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."tasks"."_modified_at" IS 'Time of the last write (Last-Modified).';

-- Primary keys, unique and check constraints ----------------------------------------------------

SELECT meta.ensure_constraint('users', 'users_pkey', 'PRIMARY KEY ("id")', '{"property":"id","rule":"primary"}'::jsonb);

SELECT meta.ensure_constraint('teams', 'teams_pkey', 'PRIMARY KEY ("id")', '{"property":"id","rule":"primary"}'::jsonb);

SELECT meta.ensure_constraint(
  'teams_members',
  'teams_members_pkey',
  'PRIMARY KEY ("team_id", "user_id")',
  '{"property":"members","rule":"primary"}'::jsonb
);

SELECT meta.ensure_constraint('tasks', 'tasks_pkey', 'PRIMARY KEY ("id")', '{"property":"id","rule":"primary"}'::jsonb);

-- Foreign keys ----------------------------------------------------------------------------------

SELECT meta.ensure_constraint(
  'teams_members',
  'teams_members_team_id_fkey',
  'FOREIGN KEY ("team_id") REFERENCES "app"."teams" ("id") ON DELETE CASCADE',
  '{"property":"team_id","rule":"references"}'::jsonb
);
SELECT meta.ensure_constraint(
  'teams_members',
  'teams_members_user_id_fkey',
  'FOREIGN KEY ("user_id") REFERENCES "app"."users" ("id") ON DELETE CASCADE',
  '{"property":"user_id","rule":"references"}'::jsonb
);

SELECT meta.ensure_constraint(
  'tasks',
  'tasks_team_id_fkey',
  'FOREIGN KEY ("team_id") REFERENCES "app"."teams" ("id") ON DELETE RESTRICT',
  '{"property":"team_id","rule":"references"}'::jsonb
);

-- Indexes ---------------------------------------------------------------------------------------

SELECT meta.ensure_index(
  'teams',
  'teams_owner_id_idx',
  'CREATE INDEX "teams_owner_id_idx" ON "app"."teams" USING btree ("owner_id")',
  '{"property":"owner_id","rule":"indexed"}'::jsonb
);

SELECT meta.ensure_index(
  'teams_members',
  'teams_members_user_id_idx',
  'CREATE INDEX "teams_members_user_id_idx" ON "app"."teams_members" USING btree ("user_id")',
  '{"property":"user_id","rule":"indexed"}'::jsonb
);

SELECT meta.ensure_index(
  'tasks',
  'tasks_team_id_idx',
  'CREATE INDEX "tasks_team_id_idx" ON "app"."tasks" USING btree ("team_id")',
  '{"property":"team_id","rule":"indexed"}'::jsonb
);
SELECT meta.ensure_index(
  'tasks',
  'tasks_title_idx',
  'CREATE INDEX "tasks_title_idx" ON "app"."tasks" USING btree ("title")',
  '{"property":"title","rule":"indexed"}'::jsonb
);

-- Write rules -----------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION "app"."users_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
COMMENT ON FUNCTION "app"."users_write_rules"() IS 'Write rules of app.users: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."users" FOR EACH ROW EXECUTE FUNCTION "app"."users_write_rules"();

CREATE OR REPLACE FUNCTION "app"."teams_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW."id" IS NOT NULL THEN
      PERFORM lib.refuse('PT400', 'readOnly property "id" cannot be supplied', 'id', 'readOnly');
    END IF;
    IF NEW."owner_id" IS NOT NULL THEN
      PERFORM lib.refuse('PT400', 'readOnly property "owner_id" cannot be supplied', 'owner_id', 'readOnly');
    END IF;
    NEW."id" := gen_random_uuid()::text;
    NEW."owner_id" := CASE WHEN current_user IN ('anon', 'authenticated') THEN auth.uid() ELSE coalesce(auth.uid(), NEW."owner_id") END;  -- Owner: the caller
  ELSE
    IF NEW."id" IS DISTINCT FROM OLD."id" THEN
      PERFORM lib.refuse('PT400', 'primary key "id" cannot be changed', 'id', 'primary');
    END IF;
    IF NEW."owner_id" IS DISTINCT FROM OLD."owner_id" THEN
      PERFORM lib.refuse('PT400', 'readOnly property "owner_id" cannot be changed', 'owner_id', 'readOnly');
    END IF;
  END IF;
  NEW._rev := gen_random_uuid();
  NEW._modified_at := now();
  RETURN NEW;
END $fn$;
COMMENT ON FUNCTION "app"."teams_write_rules"() IS 'Write rules of app.teams: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."teams" FOR EACH ROW EXECUTE FUNCTION "app"."teams_write_rules"();

CREATE OR REPLACE FUNCTION "app"."teams_members_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NULL;
  ELSE
    NULL;
  END IF;
  NEW._rev := gen_random_uuid();
  NEW._modified_at := now();
  RETURN NEW;
END $fn$;
COMMENT ON FUNCTION "app"."teams_members_write_rules"() IS 'Write rules of app.teams_members: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."teams_members" FOR EACH ROW EXECUTE FUNCTION "app"."teams_members_write_rules"();

CREATE OR REPLACE FUNCTION "app"."tasks_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
    IF NEW."team_id" IS DISTINCT FROM OLD."team_id" THEN
      PERFORM lib.refuse('PT400', 'immutable property "team_id" cannot be changed', 'team_id', 'immutable');
    END IF;
  END IF;
  IF NEW."team_id" IS NOT NULL AND (TG_OP = 'INSERT' OR NEW."team_id" IS DISTINCT FROM OLD."team_id") THEN
    IF "app"."teams_access"('read') IS NULL THEN PERFORM lib.no_scenario('read', 'Team'); END IF;
    IF "app"."teams_exists"(NEW."team_id"::text) THEN
      PERFORM "app"."teams_require"(NEW."team_id"::text, 'read');  -- the parent is readable
    END IF;
  END IF;
  NEW._rev := gen_random_uuid();
  NEW._modified_at := now();
  RETURN NEW;
END $fn$;
COMMENT ON FUNCTION "app"."tasks_write_rules"() IS 'Write rules of app.tasks: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."tasks" FOR EACH ROW EXECUTE FUNCTION "app"."tasks_write_rules"();

-- Change log: each written row appended to lib.changes (design 9) -------------------------------

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."users"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('User', 'id', 'entity', '_rev', '{}');

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."teams"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Team', 'id', 'entity', '_rev', '{}');

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."teams_members"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Team', 'team_id', 'join', '_rev', '{}');

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."tasks"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Task', 'id', 'entity', '_rev', '{}');

-- Change log: how long each table's rows are kept (record history, design 9) --------------------

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('users', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('teams', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('teams_members', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('tasks', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

UPDATE lib.changes_keep SET keep_seconds = 0 WHERE keep_seconds IS DISTINCT FROM 0
  AND table_name <> ALL (ARRAY['users', 'teams', 'teams_members', 'tasks']::text[]);

-- Files: claim of file references, outbox of replaced and deleted files -------------------------

DROP TRIGGER IF EXISTS files ON "app"."users";
DROP TRIGGER IF EXISTS files_gone ON "app"."users";
DROP FUNCTION IF EXISTS "app"."users_files"();
DROP FUNCTION IF EXISTS "app"."users_files_gone"();

DROP TRIGGER IF EXISTS files ON "app"."teams";
DROP TRIGGER IF EXISTS files_gone ON "app"."teams";
DROP FUNCTION IF EXISTS "app"."teams_files"();
DROP FUNCTION IF EXISTS "app"."teams_files_gone"();

DROP TRIGGER IF EXISTS files ON "app"."teams_members";
DROP TRIGGER IF EXISTS files_gone ON "app"."teams_members";
DROP FUNCTION IF EXISTS "app"."teams_members_files"();
DROP FUNCTION IF EXISTS "app"."teams_members_files_gone"();

DROP TRIGGER IF EXISTS files ON "app"."tasks";
DROP TRIGGER IF EXISTS files_gone ON "app"."tasks";
DROP FUNCTION IF EXISTS "app"."tasks_files"();
DROP FUNCTION IF EXISTS "app"."tasks_files_gone"();

-- Privileges of the request roles ---------------------------------------------------------------

REVOKE ALL ON "app"."users" FROM anon, authenticated;
GRANT SELECT ("id", "_rev", "_modified_at") ON "app"."users" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."users" TO anon, authenticated;

REVOKE ALL ON "app"."teams" FROM anon, authenticated;
GRANT SELECT ("id", "name", "owner_id", "_rev", "_modified_at") ON "app"."teams" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."teams" TO anon, authenticated;

REVOKE ALL ON "app"."teams_members" FROM anon, authenticated;
GRANT SELECT ("team_id", "user_id", "_rev", "_modified_at") ON "app"."teams_members" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."teams_members" TO anon, authenticated;
GRANT SELECT (xmax) ON "app"."teams_members" TO anon, authenticated;

REVOKE ALL ON "app"."tasks" FROM anon, authenticated;
GRANT SELECT ("id", "team_id", "title", "_rev", "_modified_at") ON "app"."tasks" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."tasks" TO anon, authenticated;

-- API functions: compiled per table and action, filter fields, the manifest ---------------------

INSERT INTO lib.fields (tbl, fields) VALUES ('users', '{
  "pk": "id",
  "columns": {"id":{"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false}}
}'::jsonb)
  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;

INSERT INTO lib.manifest_resources (entity, resource) VALUES ('User', '{
  "entity": "User",
  "collection": "users",
  "table": "users",
  "primaryKey": "id",
  "softDelete": false,
  "properties": {"id":{"type":"String","primary":true}},
  "relations": {},
  "functions": {
    "list": "users_list",
    "search": "users_search",
    "read": "users_read",
    "create": "users_create",
    "replace": "users_replace",
    "patch": "users_patch",
    "delete": "users_delete",
    "stream": "users_stream"
  },
  "schemas": {
    "$defs": {"id":{"anyOf":[{"type":"string","minLength":1,"maxLength":255},{"type":"null"}]}},
    "create": {"type":"object","properties":{"id":{"$ref":"#/$defs/id"}},"additionalProperties":false},
    "replace": {"type":"object","properties":{"id":{"$ref":"#/$defs/id"}},"additionalProperties":false},
    "patch": {"type":"object","properties":{"id":{"$ref":"#/$defs/id"}},"additionalProperties":false},
    "read": {"type":"object","properties":{"id":{"type":"string","minLength":1,"maxLength":255}}}
  },
  "constraints": {"users_pkey":{"property":"id","rule":"primary"}}
}'::jsonb)
  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;

SELECT meta.drop_if_returns('"app"."users_page"(text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION "app"."users_page"(_action text, args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('users', _action, "app"."users_access"(_action), 'User');
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
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('User has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('users'), args -> 'filter', '{filter}');
  _keys := lib.sort_keys(lib.fields('users'), _sort);
  IF args ? 'after' OR _before THEN
    _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);
    args := args || jsonb_build_object('cursor', _cursor);
  END IF;
  _offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;
  PERFORM lib.statement_params(args, _parent, _per_page, _offset);
  _total := lib.page_total(_count, $q$SELECT count(*) FROM "app"."users" t WHERE $q$ || _where,
    $q$SELECT count(*) FROM "app"."users" t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE $q$ || _where,
    '"app"."users"'::regclass, 1000);
  _few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;
  IF _few AND (_total ->> 'total')::bigint <= _offset THEN
    _page_rows := ('[]', '[]')::lib.page_rows;
  ELSE
    _sql := $q$SELECT coalesce(json_agg((SELECT row_to_json(r) FROM (SELECT t."id" AS "id") r)), '[]'), coalesce(jsonb_agg($q$ || lib.keys_sql(_keys)
      || $q$), '[]')
      FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END
      || $q$t."id", t._rev, t._modified_at
        FROM "app"."users" t WHERE $q$ || _where
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
  RETURN json_build_object('meta', _meta, 'scenario', ("app"."users_scenario"(_scenario))[1], 'data_bytes', octet_length(_rows::text), 'data', _rows);
END $fn$;
COMMENT ON FUNCTION "app"."users_page"(text, jsonb)
  IS 'A page of User records for list and search: filters and sort from the request, offset or keyset paging, '
    'total by count mode (spec 5.2 FETCH under the policies).';

SELECT meta.drop_if_returns('"api"."users_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."users_list"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."users_page"('list', args) $fn$;
COMMENT ON FUNCTION "api"."users_list"(jsonb) IS 'list User: a page, app.users_page(''list'', args).';

SELECT meta.drop_if_returns('"api"."users_search"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."users_search"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."users_page"('search', args) $fn$;
COMMENT ON FUNCTION "api"."users_search"(jsonb) IS 'search User: a page, app.users_page(''search'', args).';

SELECT meta.drop_if_returns('"api"."users_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."users_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('users', 'read', "app"."users_access"('read'), 'User');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _result json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('User has no parent'); END IF;
  SELECT json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id") r),
    'id', t."id"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."users_scenario"(_scenario))[1]
  ) INTO _result
  FROM "app"."users" t
  WHERE t."id" = _key;
  IF _result IS NULL THEN
    IF args ? 'answer_refusal' THEN RETURN "app"."users_refusal"('read', _key, _parent); END IF;
    PERFORM "app"."users_refuse"('read', _key, _parent);
  END IF;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('User', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."users_read"(jsonb) IS 'read one User';

SELECT meta.drop_if_returns('"api"."users_create"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."users_create"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('users', 'create', "app"."users_access"('create'), 'User');
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _result json;
  _about text[];
BEGIN
  PERFORM lib.check_body(_body, ARRAY['id']::text[], ARRAY[]::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('User has no parent'); END IF;
  BEGIN
    INSERT INTO "app"."users" AS t ("id")
    SELECT CASE WHEN _body ? 'id' THEN r."id" ELSE gen_random_uuid()::text END
    FROM jsonb_populate_record(NULL::"app"."users", _body) r
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id") r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."users_scenario"(_scenario))[1]
    ) INTO _result;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    _about := "app"."users_scenario"(_scenario);
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], 'User'),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;
  END;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."users_create"(jsonb) IS 'create a User';

SELECT meta.drop_if_returns('"app"."users_update"(jsonb, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."users_update"(args jsonb, _patch boolean) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('users', 'update', "app"."users_access"('update'), 'User');
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
  PERFORM lib.check_body(_body, ARRAY['id']::text[], ARRAY[]::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('User has no parent'); END IF;
  IF _body ? 'id' AND _body ->> 'id' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('primary key "id" cannot be changed', 'id', 'primary');
  END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  UPDATE "app"."users" t SET
    _rev = t._rev
  FROM jsonb_populate_record(NULL::"app"."users", _body) r
  WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
  RETURNING json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id") r),
    'id', t."id"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."users_scenario"(_scenario))[1]
  ) INTO _result;
  IF _result IS NULL THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified FROM "app"."users" t WHERE t."id" = _key;
    IF NOT FOUND THEN PERFORM "app"."users_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."users_deny"('update', _key);
    PERFORM lib.precondition_failed('User', _etag, _modified, args, _expected);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "app"."users_update"(jsonb, boolean) IS 'Update a User: replace (PUT) when _patch is false, else patch (PATCH).';

SELECT meta.drop_if_returns('"api"."users_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."users_replace"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."users_update"(args, false) $fn$;
COMMENT ON FUNCTION "api"."users_replace"(jsonb) IS 'replace (PUT) a User: app.users_update(args, false).';

SELECT meta.drop_if_returns('"api"."users_patch"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."users_patch"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."users_update"(args, true) $fn$;
COMMENT ON FUNCTION "api"."users_patch"(jsonb) IS 'patch (PATCH) a User: app.users_update(args, true).';

CREATE OR REPLACE FUNCTION "api"."users_delete"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('users', 'delete', "app"."users_access"('delete'), 'User');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('User has no parent'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  DELETE FROM "app"."users" t WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since);
  IF NOT FOUND THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified FROM "app"."users" t WHERE t."id" = _key;
    IF NOT FOUND THEN PERFORM "app"."users_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."users_deny"('delete', _key);
    PERFORM lib.precondition_failed('User', _etag, _modified, args, _expected);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."users_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."users_delete"(jsonb) IS 'delete a User';

SELECT meta.drop_if_returns('"api"."users_stream"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."users_stream"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('users', 'list', "app"."users_access"('list'), 'User');
  _parent text := args ->> 'parent';
  _where text;
  _sql text;
  _visible json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('User has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('users'), args -> 'filter', '{filter}');
  IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;
  PERFORM lib.statement_params(args, _parent, 0, 0);
  _sql := $q$SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')
  FROM "app"."users_changes"(
    ($1 ->> 'after_tx')::xid8,
    ($1 ->> 'after_id')::bigint,
    ($1 ->> 'before')::xid8,
    ($1 ->> 'limit')::integer
  ) c$q$
    || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."users", c.image) t WHERE $q$ || _where END;
  _visible := lib.query_generic(_sql, NULL::json);
  RETURN json_build_object('data', _visible);
END $fn$;
COMMENT ON FUNCTION "api"."users_stream"(jsonb)
  IS 'which changes of User (and its links) past a position the caller may list, narrowed by the list''s filters and parent (design 9)';

DROP FUNCTION IF EXISTS "app"."users_versions"(text, text, text, integer, bigint);  -- no history kept

INSERT INTO lib.fields (tbl, fields) VALUES ('teams', '{
  "pk": "id",
  "columns": {
    "id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "name": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "owner_id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false}
  }
}'::jsonb)
  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;

INSERT INTO lib.manifest_resources (entity, resource) VALUES ('Team', '{
  "entity": "Team",
  "collection": "teams",
  "table": "teams",
  "primaryKey": "id",
  "softDelete": false,
  "properties": {
    "id": {"type":"String","primary":true,"readOnly":true},
    "name": {"type":"String","required":true},
    "owner_id": {"type":"String","readOnly":true}
  },
  "relations": {
    "members": {
      "kind": "manyToMany",
      "target": "User",
      "table": "teams_members",
      "functions": {"list":"teams_members_list","link":"teams_members_link","unlink":"teams_members_unlink"},
      "ownerColumn": "team_id",
      "targetColumn": "user_id",
      "edge": {},
      "schemas": {"link":{"type":"object","properties":{},"additionalProperties":false}}
    }
  },
  "embeds": {"members":{"kind":"manyToMany","target":"User","relation":"members"}},
  "functions": {
    "list": "teams_list",
    "search": "teams_search",
    "read": "teams_read",
    "create": "teams_create",
    "replace": "teams_replace",
    "patch": "teams_patch",
    "delete": "teams_delete",
    "stream": "teams_stream"
  },
  "schemas": {
    "$defs": {"name":{"type":"string","maxLength":255}},
    "create": {"type":"object","properties":{"name":{"$ref":"#/$defs/name"}},"required":["name"],"additionalProperties":false},
    "replace": {"type":"object","properties":{"name":{"$ref":"#/$defs/name"}},"required":["name"],"additionalProperties":false},
    "patch": {"type":"object","properties":{"name":{"$ref":"#/$defs/name"}},"additionalProperties":false},
    "read": {
      "type": "object",
      "properties": {
        "id": {"type":"string","maxLength":255,"readOnly":true},
        "name": {"type":"string","maxLength":255},
        "owner_id": {"anyOf":[{"type":"string","maxLength":255},{"type":"null"}],"readOnly":true}
      }
    }
  },
  "constraints": {
    "teams_pkey": {"property":"id","rule":"primary"},
    "teams_members_pkey": {"property":"members","rule":"primary"},
    "teams_members_team_id_fkey": {"property":"team_id","rule":"references"},
    "teams_members_user_id_fkey": {"property":"user_id","rule":"references"}
  }
}'::jsonb)
  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;

SELECT meta.drop_if_returns('"app"."teams_page"(text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION "app"."teams_page"(_action text, args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', _action, "app"."teams_access"(_action), 'Team');
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
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('teams'), args -> 'filter', '{filter}');
  _keys := lib.sort_keys(lib.fields('teams'), _sort);
  IF args ? 'after' OR _before THEN
    _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);
    args := args || jsonb_build_object('cursor', _cursor);
  END IF;
  _offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;
  PERFORM lib.statement_params(args, _parent, _per_page, _offset);
  IF (coalesce(args -> 'joined', '{}'::jsonb) || coalesce(args -> 'embed', '{}'::jsonb)) ? 'members' THEN
    PERFORM set_config('request.scenario.users', coalesce("app"."users_access"('read'), chr(1)), true);
  END IF;
  _total := lib.page_total(_count, $q$SELECT count(*) FROM "app"."teams" t WHERE $q$ || _where,
    $q$SELECT count(*) FROM "app"."teams" t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE $q$ || _where,
    '"app"."teams"'::regclass, 1000);
  _few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;
  IF _few AND (_total ->> 'total')::bigint <= _offset THEN
    _page_rows := ('[]', '[]')::lib.page_rows;
  ELSE
    _sql := $q$SELECT coalesce(json_agg($q$ || CASE WHEN args ? 'embed' THEN $q$(left(((SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."name" AS "name", t."owner_id" AS "owner_id"
    ) r))::text, -1)
      || (CASE WHEN $1 -> 'embed' ? 'members' THEN ',"members":' || coalesce((
        (
          SELECT coalesce(json_agg(t_0_r.v ORDER BY t_0_r.k), '[]'::json)
          FROM (
            SELECT (left(((SELECT row_to_json(r) FROM (SELECT t_0."id" AS "id") r))::text, -1)
              || ',"edge":' || coalesce(('{}'::json)::text, 'null')
              || '}')::json AS v, t_0."id" AS k
            FROM "app"."teams_members" t_0_j JOIN "app"."users" t_0 ON t_0."id" = t_0_j."user_id"
            WHERE t_0_j."team_id" = t."id"
            ORDER BY t_0."id" LIMIT ($1 ->> 'embed_limit')::integer
          ) t_0_r
        )
      )::text, 'null') ELSE '' END)
      || '}')::json$q$ ELSE $q$(SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."name" AS "name", t."owner_id" AS "owner_id"
    ) r)$q$ END || $q$), '[]'), coalesce(jsonb_agg($q$ || lib.keys_sql(_keys) || $q$), '[]')
      FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END
      || $q$t."id", t."name", t."owner_id", t._rev, t._modified_at
        FROM "app"."teams" t WHERE $q$ || _where
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
  RETURN json_build_object('meta', _meta, 'scenario', ("app"."teams_scenario"(_scenario))[1], 'data_bytes', octet_length(_rows::text), 'data', _rows);
END $fn$;
COMMENT ON FUNCTION "app"."teams_page"(text, jsonb)
  IS 'A page of Team records for list and search: filters and sort from the request, offset or keyset paging, '
    'total by count mode (spec 5.2 FETCH under the policies).';

SELECT meta.drop_if_returns('"api"."teams_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."teams_list"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."teams_page"('list', args) $fn$;
COMMENT ON FUNCTION "api"."teams_list"(jsonb) IS 'list Team: a page, app.teams_page(''list'', args).';

SELECT meta.drop_if_returns('"api"."teams_search"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."teams_search"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."teams_page"('search', args) $fn$;
COMMENT ON FUNCTION "api"."teams_search"(jsonb) IS 'search Team: a page, app.teams_page(''search'', args).';

SELECT meta.drop_if_returns('"api"."teams_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."teams_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', 'read', "app"."teams_access"('read'), 'Team');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _result json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  IF args -> 'embed' ? 'members' THEN
    PERFORM set_config('request.scenario.users', coalesce("app"."users_access"('read'), chr(1)), true);
  END IF;
  IF args ? 'embed' THEN
    SELECT json_build_object(
      'data', (left(((SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."name" AS "name", t."owner_id" AS "owner_id"
      ) r))::text, -1)
        || (CASE WHEN args -> 'embed' ? 'members' THEN ',"members":' || coalesce((
          (
            SELECT coalesce(json_agg(t_0_r.v ORDER BY t_0_r.k), '[]'::json)
            FROM (
              SELECT (left(((SELECT row_to_json(r) FROM (SELECT t_0."id" AS "id") r))::text, -1)
                || ',"edge":' || coalesce(('{}'::json)::text, 'null')
                || '}')::json AS v, t_0."id" AS k
              FROM "app"."teams_members" t_0_j JOIN "app"."users" t_0 ON t_0."id" = t_0_j."user_id"
              WHERE t_0_j."team_id" = t."id"
              ORDER BY t_0."id" LIMIT (args ->> 'embed_limit')::integer
            ) t_0_r
          )
        )::text, 'null') ELSE '' END)
        || '}')::json,
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."teams_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."teams" t
    WHERE t."id" = _key;
  ELSE
    SELECT json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."name" AS "name", t."owner_id" AS "owner_id"
      ) r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."teams_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."teams" t
    WHERE t."id" = _key;
  END IF;
  IF _result IS NULL THEN
    IF args ? 'answer_refusal' THEN RETURN "app"."teams_refusal"('read', _key, _parent); END IF;
    PERFORM "app"."teams_refuse"('read', _key, _parent);
  END IF;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('Team', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."teams_read"(jsonb) IS 'read one Team';

SELECT meta.drop_if_returns('"api"."teams_create"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."teams_create"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', 'create', "app"."teams_access"('create'), 'Team');
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _result json;
  _about text[];
BEGIN
  PERFORM lib.check_body(_body, ARRAY['name']::text[], ARRAY['id', 'owner_id']::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  BEGIN
    INSERT INTO "app"."teams" AS t ("name")
    SELECT CASE WHEN _body ? 'name' THEN r."name" ELSE NULL END
    FROM jsonb_populate_record(NULL::"app"."teams", _body) r
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."name" AS "name", t."owner_id" AS "owner_id"
      ) r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."teams_scenario"(_scenario))[1]
    ) INTO _result;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    _about := "app"."teams_scenario"(_scenario);
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], 'Team'),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;
  END;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."teams_create"(jsonb) IS 'create a Team';

SELECT meta.drop_if_returns('"app"."teams_update"(jsonb, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."teams_update"(args jsonb, _patch boolean) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', 'update', "app"."teams_access"('update'), 'Team');
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
  PERFORM lib.check_body(_body, ARRAY['name']::text[], ARRAY['id', 'owner_id']::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  IF _body ? 'id' AND _body ->> 'id' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('primary key "id" cannot be changed', 'id', 'primary');
  END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  UPDATE "app"."teams" t SET
    "name" = CASE WHEN _body ? 'name' THEN r."name" WHEN _patch THEN t."name" ELSE NULL END
  FROM jsonb_populate_record(NULL::"app"."teams", _body) r
  WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
  RETURNING json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."name" AS "name", t."owner_id" AS "owner_id"
    ) r),
    'id', t."id"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."teams_scenario"(_scenario))[1]
  ) INTO _result;
  IF _result IS NULL THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified FROM "app"."teams" t WHERE t."id" = _key;
    IF NOT FOUND THEN PERFORM "app"."teams_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."teams_deny"('update', _key);
    PERFORM lib.precondition_failed('Team', _etag, _modified, args, _expected);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "app"."teams_update"(jsonb, boolean) IS 'Update a Team: replace (PUT) when _patch is false, else patch (PATCH).';

SELECT meta.drop_if_returns('"api"."teams_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."teams_replace"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."teams_update"(args, false) $fn$;
COMMENT ON FUNCTION "api"."teams_replace"(jsonb) IS 'replace (PUT) a Team: app.teams_update(args, false).';

SELECT meta.drop_if_returns('"api"."teams_patch"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."teams_patch"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."teams_update"(args, true) $fn$;
COMMENT ON FUNCTION "api"."teams_patch"(jsonb) IS 'patch (PATCH) a Team: app.teams_update(args, true).';

CREATE OR REPLACE FUNCTION "api"."teams_delete"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', 'delete', "app"."teams_access"('delete'), 'Team');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  DELETE FROM "app"."teams" t WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since);
  IF NOT FOUND THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified FROM "app"."teams" t WHERE t."id" = _key;
    IF NOT FOUND THEN PERFORM "app"."teams_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."teams_deny"('delete', _key);
    PERFORM lib.precondition_failed('Team', _etag, _modified, args, _expected);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."teams_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."teams_delete"(jsonb) IS 'delete a Team';

SELECT meta.drop_if_returns('"api"."teams_stream"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."teams_stream"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', 'list', "app"."teams_access"('list'), 'Team');
  _parent text := args ->> 'parent';
  _where text;
  _sql text;
  _visible json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('teams'), args -> 'filter', '{filter}');
  IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;
  PERFORM lib.statement_params(args, _parent, 0, 0);
  IF coalesce(args -> 'joined', '{}'::jsonb) ? 'members' THEN
    PERFORM set_config('request.scenario.users', coalesce("app"."users_access"('read'), chr(1)), true);
  END IF;
  _sql := $q$SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')
  FROM "app"."teams_changes"(
    ($1 ->> 'after_tx')::xid8,
    ($1 ->> 'after_id')::bigint,
    ($1 ->> 'before')::xid8,
    ($1 ->> 'limit')::integer
  ) c$q$
    || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."teams", c.image) t WHERE $q$ || _where END;
  _visible := lib.query_generic(_sql, NULL::json);
  RETURN json_build_object('data', _visible);
END $fn$;
COMMENT ON FUNCTION "api"."teams_stream"(jsonb)
  IS 'which changes of Team (and its links) past a position the caller may list, narrowed by the list''s filters and parent (design 9)';

DROP FUNCTION IF EXISTS "app"."teams_versions"(text, text, text, integer, bigint);  -- no history kept

SELECT meta.drop_if_returns('"api"."teams_members_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."teams_members_list"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', 'read', "app"."teams_access"('read'), 'Team');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _page int := lib.page(args);
  _per_page int := lib.per_page(args);
  _total bigint;
  _rows json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  PERFORM "app"."teams_require"(_key, 'read');
  SELECT count(*) INTO _total FROM "app"."teams_members" j JOIN "app"."users" t ON t."id" = j."user_id"
      WHERE j."team_id" = _key;
  SELECT coalesce(json_agg((left(((SELECT row_to_json(r) FROM (SELECT x."id" AS "id") r))::text, -1)
    || ',"edge":' || coalesce((x.edge)::text, 'null')
    || '}')::json), '[]') INTO _rows FROM (
    SELECT t."id", t._rev, t._modified_at, '{}'::json AS edge FROM "app"."teams_members" j JOIN "app"."users" t ON t."id" = j."user_id"
        WHERE j."team_id" = _key
    ORDER BY t."id" LIMIT _per_page OFFSET (_page - 1)::bigint * _per_page) x;
  RETURN json_build_object('data', _rows, 'meta', json_build_object('total', _total, 'count', 'exact', 'page', _page, 'per_page', _per_page), 'scenario',
      ("app"."teams_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."teams_members_list"(jsonb) IS 'list linked records: Team.members';

CREATE OR REPLACE FUNCTION "api"."teams_members_link"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', 'link', "app"."teams_access"('link'), 'Team');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _target text := args ->> 'target';
  _body jsonb := coalesce(args -> 'body', '{}'::jsonb);
  _edge jsonb;
  _created boolean;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  PERFORM "app"."teams_require"(_key, 'link');
  PERFORM "app"."users_require"(_target, 'read');
  PERFORM lib.check_edge(_body, ARRAY[]::text[]);
  IF args ? 'if_match' THEN
    PERFORM 1 FROM "app"."teams_members" j WHERE j."team_id" = _key AND j."user_id" = _target FOR UPDATE;
    IF NOT (FOUND AND (args -> 'if_match') ? '*') THEN
      PERFORM lib.link_precondition_failed(
        format(
          'If-Match: %s "%s" and %s "%s" are not linked, or a link has no ETag (only * matches an existing link)',
          'Team',
          _key,
          'User',
          _target
        ),
        args -> 'if_match'
      );
    END IF;
  END IF;
  INSERT INTO "app"."teams_members" AS j ("team_id", "user_id") VALUES (_key, _target)
  ON CONFLICT ("team_id", "user_id") DO UPDATE SET _rev = gen_random_uuid()
  RETURNING jsonb_build_object(), j.xmax = 0 INTO _edge, _created;
  RETURN jsonb_build_object('data', jsonb_build_object('team_id', _key, 'user_id', _target) || _edge,
    'created', _created) || jsonb_build_object('scenario', ("app"."teams_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."teams_members_link"(jsonb) IS 'link a record: Team.members';

CREATE OR REPLACE FUNCTION "api"."teams_members_unlink"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('teams', 'unlink', "app"."teams_access"('unlink'), 'Team');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _target text := args ->> 'target';
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  PERFORM "app"."teams_require"(_key, 'unlink');
  IF args ? 'if_match' AND NOT (args -> 'if_match') ? '*'
    AND EXISTS (SELECT 1 FROM "app"."teams_members" j WHERE j."team_id" = _key AND j."user_id" = _target) THEN
    PERFORM lib.link_precondition_failed(
      format(
        'If-Match: %s "%s" and %s "%s" are linked, and a link has no ETag (only * matches it)',
        'Team',
        _key,
        'User',
        _target
      ),
      args -> 'if_match'
    );
  END IF;
  DELETE FROM "app"."teams_members" j WHERE j."team_id" = _key
    AND j."user_id" = _target;
  IF NOT FOUND THEN
    PERFORM lib.refuse('PT404', format('%s "%s" is not linked to %s "%s"', 'User', _target, 'Team', _key), NULL, NULL);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."teams_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."teams_members_unlink"(jsonb) IS 'unlink a record: Team.members';

INSERT INTO lib.fields (tbl, fields) VALUES ('tasks', '{
  "pk": "id",
  "columns": {
    "id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "team_id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "title": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false}
  },
  "embeds": {"team":{"table":"teams","pk":"id","column":"team_id","live":false}}
}'::jsonb)
  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;

INSERT INTO lib.manifest_resources (entity, resource) VALUES ('Task', '{
  "entity": "Task",
  "collection": "tasks",
  "table": "tasks",
  "primaryKey": "id",
  "softDelete": false,
  "parent": {"entity":"Team","property":"team_id"},
  "properties": {
    "id": {"type":"String","primary":true,"readOnly":true},
    "team_id": {"type":"String","required":true,"immutable":true},
    "title": {"type":"String","required":true}
  },
  "relations": {},
  "embeds": {"team":{"kind":"reference","target":"Team","property":"team_id"}},
  "functions": {
    "list": "tasks_list",
    "search": "tasks_search",
    "read": "tasks_read",
    "create": "tasks_create",
    "replace": "tasks_replace",
    "patch": "tasks_patch",
    "delete": "tasks_delete",
    "stream": "tasks_stream"
  },
  "schemas": {
    "$defs": {"team_id":{"type":"string","maxLength":255},"title":{"type":"string","maxLength":255}},
    "create": {
      "type": "object",
      "properties": {"team_id":{"$ref":"#/$defs/team_id"},"title":{"$ref":"#/$defs/title"}},
      "required": ["team_id","title"],
      "additionalProperties": false
    },
    "replace": {
      "type": "object",
      "properties": {"team_id":{"$ref":"#/$defs/team_id"},"title":{"$ref":"#/$defs/title"}},
      "required": ["title"],
      "additionalProperties": false
    },
    "patch": {"type":"object","properties":{"team_id":{"$ref":"#/$defs/team_id"},"title":{"$ref":"#/$defs/title"}},"additionalProperties":false},
    "read": {
      "type": "object",
      "properties": {
        "id": {"type":"string","maxLength":255,"readOnly":true},
        "team_id": {"type":"string","maxLength":255},
        "title": {"type":"string","maxLength":255}
      }
    }
  },
  "constraints": {"tasks_pkey":{"property":"id","rule":"primary"},"tasks_team_id_fkey":{"property":"team_id","rule":"references"}}
}'::jsonb)
  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;

SELECT meta.drop_if_returns('"app"."tasks_page"(text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION "app"."tasks_page"(_action text, args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('tasks', _action, "app"."tasks_access"(_action), 'Task');
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
  IF _parent IS NOT NULL THEN PERFORM "app"."teams_within"(_parent, args -> 'ancestors'); END IF;
  _where := lib.filter_sql(lib.fields('tasks'), args -> 'filter', '{filter}');
  IF _parent IS NOT NULL THEN _where := 't."team_id" = $2 AND ' || _where; END IF;
  _keys := lib.sort_keys(lib.fields('tasks'), _sort);
  IF args ? 'after' OR _before THEN
    _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);
    args := args || jsonb_build_object('cursor', _cursor);
  END IF;
  _offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;
  PERFORM lib.statement_params(args, _parent, _per_page, _offset);
  IF (coalesce(args -> 'joined', '{}'::jsonb) || coalesce(args -> 'embed', '{}'::jsonb)) ? 'team' THEN
    PERFORM set_config('request.scenario.teams', coalesce("app"."teams_access"('read'), chr(1)), true);
    IF (coalesce(args -> 'joined', '{}'::jsonb) || coalesce(args -> 'embed', '{}'::jsonb)) -> 'team' ? 'members' THEN
      PERFORM set_config('request.scenario.users', coalesce("app"."users_access"('read'), chr(1)), true);
    END IF;
  END IF;
  _total := lib.page_total(_count, $q$SELECT count(*) FROM "app"."tasks" t WHERE $q$ || _where,
    $q$SELECT count(*) FROM "app"."tasks" t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE $q$ || _where,
    '"app"."tasks"'::regclass, 1000);
  _few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;
  IF _few AND (_total ->> 'total')::bigint <= _offset THEN
    _page_rows := ('[]', '[]')::lib.page_rows;
  ELSE
    _sql := $q$SELECT coalesce(json_agg($q$ || CASE WHEN args ? 'embed' THEN $q$(left(((SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."team_id" AS "team_id", t."title" AS "title"
    ) r))::text, -1)
      || (CASE WHEN $1 -> 'embed' ? 'team' THEN ',"team":' || coalesce((
        (
          SELECT (left(((SELECT row_to_json(r) FROM (SELECT
            t_0."id" AS "id", t_0."name" AS "name", t_0."owner_id" AS "owner_id"
          ) r))::text, -1)
            || (CASE WHEN $1 -> 'embed' -> 'team' ? 'members' THEN ',"members":' || coalesce((
              (
                SELECT coalesce(json_agg(t_0_0_r.v ORDER BY t_0_0_r.k), '[]'::json)
                FROM (
                  SELECT (left(((SELECT row_to_json(r) FROM (SELECT t_0_0."id" AS "id") r))::text, -1)
                    || ',"edge":' || coalesce(('{}'::json)::text, 'null')
                    || '}')::json AS v, t_0_0."id" AS k
                  FROM "app"."teams_members" t_0_0_j JOIN "app"."users" t_0_0 ON t_0_0."id" = t_0_0_j."user_id"
                  WHERE t_0_0_j."team_id" = t_0."id"
                  ORDER BY t_0_0."id" LIMIT ($1 ->> 'embed_limit')::integer
                ) t_0_0_r
              )
            )::text, 'null') ELSE '' END)
            || '}')::json
          FROM "app"."teams" t_0
          WHERE t_0."id" = t."team_id"
        )
      )::text, 'null') ELSE '' END)
      || '}')::json$q$ ELSE $q$(SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."team_id" AS "team_id", t."title" AS "title"
    ) r)$q$ END || $q$), '[]'), coalesce(jsonb_agg($q$ || lib.keys_sql(_keys) || $q$), '[]')
      FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END
      || $q$t."id", t."team_id", t."title", t._rev, t._modified_at
        FROM "app"."tasks" t WHERE $q$ || _where
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
  RETURN json_build_object('meta', _meta, 'scenario', ("app"."tasks_scenario"(_scenario))[1], 'data_bytes', octet_length(_rows::text), 'data', _rows);
END $fn$;
COMMENT ON FUNCTION "app"."tasks_page"(text, jsonb)
  IS 'A page of Task records for list and search: filters and sort from the request, offset or keyset paging, '
    'total by count mode (spec 5.2 FETCH under the policies).';

SELECT meta.drop_if_returns('"api"."tasks_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."tasks_list"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."tasks_page"('list', args) $fn$;
COMMENT ON FUNCTION "api"."tasks_list"(jsonb) IS 'list Task: a page, app.tasks_page(''list'', args).';

SELECT meta.drop_if_returns('"api"."tasks_search"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."tasks_search"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."tasks_page"('search', args) $fn$;
COMMENT ON FUNCTION "api"."tasks_search"(jsonb) IS 'search Task: a page, app.tasks_page(''search'', args).';

SELECT meta.drop_if_returns('"api"."tasks_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."tasks_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('tasks', 'read', "app"."tasks_access"('read'), 'Task');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _result json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM "app"."teams_within"(_parent, args -> 'ancestors'); END IF;
  IF args -> 'embed' ? 'team' THEN
    PERFORM set_config('request.scenario.teams', coalesce("app"."teams_access"('read'), chr(1)), true);
    IF args -> 'embed' -> 'team' ? 'members' THEN
      PERFORM set_config('request.scenario.users', coalesce("app"."users_access"('read'), chr(1)), true);
    END IF;
  END IF;
  IF args ? 'embed' THEN
    SELECT json_build_object(
      'data', (left(((SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."team_id" AS "team_id", t."title" AS "title"
      ) r))::text, -1)
        || (CASE WHEN args -> 'embed' ? 'team' THEN ',"team":' || coalesce((
          (
            SELECT (left(((SELECT row_to_json(r) FROM (SELECT
              t_0."id" AS "id", t_0."name" AS "name", t_0."owner_id" AS "owner_id"
            ) r))::text, -1)
              || (CASE WHEN args -> 'embed' -> 'team' ? 'members' THEN ',"members":' || coalesce((
                (
                  SELECT coalesce(json_agg(t_0_0_r.v ORDER BY t_0_0_r.k), '[]'::json)
                  FROM (
                    SELECT (left(((SELECT row_to_json(r) FROM (SELECT t_0_0."id" AS "id") r))::text, -1)
                      || ',"edge":' || coalesce(('{}'::json)::text, 'null')
                      || '}')::json AS v, t_0_0."id" AS k
                    FROM "app"."teams_members" t_0_0_j JOIN "app"."users" t_0_0 ON t_0_0."id" = t_0_0_j."user_id"
                    WHERE t_0_0_j."team_id" = t_0."id"
                    ORDER BY t_0_0."id" LIMIT (args ->> 'embed_limit')::integer
                  ) t_0_0_r
                )
              )::text, 'null') ELSE '' END)
              || '}')::json
            FROM "app"."teams" t_0
            WHERE t_0."id" = t."team_id"
          )
        )::text, 'null') ELSE '' END)
        || '}')::json,
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."tasks_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."tasks" t
    WHERE t."id" = _key AND (_parent IS NULL OR t."team_id" = _parent);
  ELSE
    SELECT json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."team_id" AS "team_id", t."title" AS "title"
      ) r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."tasks_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."tasks" t
    WHERE t."id" = _key AND (_parent IS NULL OR t."team_id" = _parent);
  END IF;
  IF _result IS NULL THEN
    IF args ? 'answer_refusal' THEN RETURN "app"."tasks_refusal"('read', _key, _parent); END IF;
    PERFORM "app"."tasks_refuse"('read', _key, _parent);
  END IF;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('Task', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."tasks_read"(jsonb) IS 'read one Task';

SELECT meta.drop_if_returns('"api"."tasks_create"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."tasks_create"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('tasks', 'create', "app"."tasks_access"('create'), 'Task');
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _result json;
  _about text[];
BEGIN
  PERFORM lib.check_body(_body, ARRAY['team_id', 'title']::text[], ARRAY['id']::text[]);
  IF _parent IS NOT NULL THEN PERFORM "app"."teams_within"(_parent, args -> 'ancestors'); END IF;
  IF _parent IS NOT NULL THEN
    IF _body ? 'team_id' AND _body ->> 'team_id' IS DISTINCT FROM _parent THEN
      PERFORM lib.bad_request(format('"%s" must be the parent''s key "%s" on this path', 'team_id', _parent), 'team_id', 'parent');
    END IF;
    _body := _body || jsonb_build_object('team_id', _parent);
  END IF;
  BEGIN
    INSERT INTO "app"."tasks" AS t ("team_id", "title")
    SELECT CASE WHEN _body ? 'team_id' THEN r."team_id" ELSE NULL END,
      CASE WHEN _body ? 'title' THEN r."title" ELSE NULL END
    FROM jsonb_populate_record(NULL::"app"."tasks", _body) r
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT
        t."id" AS "id", t."team_id" AS "team_id", t."title" AS "title"
      ) r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."tasks_scenario"(_scenario))[1]
    ) INTO _result;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    _about := "app"."tasks_scenario"(_scenario);
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], 'Task'),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;
  END;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."tasks_create"(jsonb) IS 'create a Task';

SELECT meta.drop_if_returns('"app"."tasks_update"(jsonb, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."tasks_update"(args jsonb, _patch boolean) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('tasks', 'update', "app"."tasks_access"('update'), 'Task');
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
  PERFORM lib.check_body(_body, ARRAY['team_id', 'title']::text[], ARRAY['id']::text[]);
  IF _parent IS NOT NULL THEN PERFORM "app"."teams_within"(_parent, args -> 'ancestors'); END IF;
  IF _body ? 'id' AND _body ->> 'id' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('primary key "id" cannot be changed', 'id', 'primary');
  END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  UPDATE "app"."tasks" t SET
    "team_id" = CASE WHEN _body ? 'team_id' THEN r."team_id" ELSE t."team_id" END,
    "title" = CASE WHEN _body ? 'title' THEN r."title" WHEN _patch THEN t."title" ELSE NULL END
  FROM jsonb_populate_record(NULL::"app"."tasks", _body) r
  WHERE t."id" = _key AND (_parent IS NULL OR t."team_id" = _parent)
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
  RETURNING json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT
      t."id" AS "id", t."team_id" AS "team_id", t."title" AS "title"
    ) r),
    'id', t."id"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."tasks_scenario"(_scenario))[1]
  ) INTO _result;
  IF _result IS NULL THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."tasks" t
    WHERE t."id" = _key AND (_parent IS NULL OR t."team_id" = _parent);
    IF NOT FOUND THEN PERFORM "app"."tasks_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."tasks_deny"('update', _key);
    PERFORM lib.precondition_failed('Task', _etag, _modified, args, _expected);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "app"."tasks_update"(jsonb, boolean) IS 'Update a Task: replace (PUT) when _patch is false, else patch (PATCH).';

SELECT meta.drop_if_returns('"api"."tasks_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."tasks_replace"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."tasks_update"(args, false) $fn$;
COMMENT ON FUNCTION "api"."tasks_replace"(jsonb) IS 'replace (PUT) a Task: app.tasks_update(args, false).';

SELECT meta.drop_if_returns('"api"."tasks_patch"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."tasks_patch"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."tasks_update"(args, true) $fn$;
COMMENT ON FUNCTION "api"."tasks_patch"(jsonb) IS 'patch (PATCH) a Task: app.tasks_update(args, true).';

CREATE OR REPLACE FUNCTION "api"."tasks_delete"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('tasks', 'delete', "app"."tasks_access"('delete'), 'Task');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM "app"."teams_within"(_parent, args -> 'ancestors'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  DELETE FROM "app"."tasks" t WHERE t."id" = _key AND (_parent IS NULL OR t."team_id" = _parent)
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since);
  IF NOT FOUND THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."tasks" t
    WHERE t."id" = _key AND (_parent IS NULL OR t."team_id" = _parent);
    IF NOT FOUND THEN PERFORM "app"."tasks_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false)); END IF;
    PERFORM "app"."tasks_deny"('delete', _key);
    PERFORM lib.precondition_failed('Task', _etag, _modified, args, _expected);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."tasks_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."tasks_delete"(jsonb) IS 'delete a Task';

SELECT meta.drop_if_returns('"api"."tasks_stream"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."tasks_stream"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('tasks', 'list', "app"."tasks_access"('list'), 'Task');
  _parent text := args ->> 'parent';
  _where text;
  _sql text;
  _visible json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM "app"."teams_within"(_parent, args -> 'ancestors'); END IF;
  _where := lib.filter_sql(lib.fields('tasks'), args -> 'filter', '{filter}');
  IF _parent IS NOT NULL THEN _where := 't."team_id" = $2 AND ' || _where; END IF;
  IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;
  PERFORM lib.statement_params(args, _parent, 0, 0);
  IF coalesce(args -> 'joined', '{}'::jsonb) ? 'team' THEN
    PERFORM set_config('request.scenario.teams', coalesce("app"."teams_access"('read'), chr(1)), true);
    IF coalesce(args -> 'joined', '{}'::jsonb) -> 'team' ? 'members' THEN
      PERFORM set_config('request.scenario.users', coalesce("app"."users_access"('read'), chr(1)), true);
    END IF;
  END IF;
  _sql := $q$SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')
  FROM "app"."tasks_changes"(
    ($1 ->> 'after_tx')::xid8,
    ($1 ->> 'after_id')::bigint,
    ($1 ->> 'before')::xid8,
    ($1 ->> 'limit')::integer
  ) c$q$
    || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."tasks", c.image) t WHERE $q$ || _where END;
  _visible := lib.query_generic(_sql, NULL::json);
  RETURN json_build_object('data', _visible);
END $fn$;
COMMENT ON FUNCTION "api"."tasks_stream"(jsonb)
  IS 'which changes of Task (and its links) past a position the caller may list, narrowed by the list''s filters and parent (design 9)';

DROP FUNCTION IF EXISTS "app"."tasks_versions"(text, text, text, integer, bigint);  -- no history kept

DELETE FROM lib.fields WHERE tbl <> ALL (ARRAY['users', 'teams', 'tasks']::text[]);

DELETE FROM lib.manifest_resources WHERE entity <> ALL (ARRAY['User', 'Team', 'Task']::text[]);

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
    PERFORM set_config('request.scenario.users', '', true),
      set_config('request.scenario.teams', '', true),
      set_config('request.scenario.teams_members', '', true),
      set_config('request.scenario.tasks', '', true);
  END IF;
  _set := set_config('request.dispatched', 'yes', true);
  IF fn COLLATE "C" < 'teams_read' THEN
    IF fn COLLATE "C" < 'teams_create' THEN
      CASE fn
        WHEN 'tasks_create' THEN _result := "api"."tasks_create"(args);
        WHEN 'tasks_delete' THEN _result := "api"."tasks_delete"(args);
        WHEN 'tasks_list' THEN _result := "api"."tasks_list"(args);
        WHEN 'tasks_patch' THEN _result := "api"."tasks_patch"(args);
        WHEN 'tasks_read' THEN _result := "api"."tasks_read"(args);
        WHEN 'tasks_replace' THEN _result := "api"."tasks_replace"(args);
        WHEN 'tasks_search' THEN _result := "api"."tasks_search"(args);
        WHEN 'tasks_stream' THEN _result := "api"."tasks_stream"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    ELSE
      CASE fn
        WHEN 'teams_create' THEN _result := "api"."teams_create"(args);
        WHEN 'teams_delete' THEN _result := "api"."teams_delete"(args);
        WHEN 'teams_list' THEN _result := "api"."teams_list"(args);
        WHEN 'teams_members_link' THEN _result := "api"."teams_members_link"(args);
        WHEN 'teams_members_list' THEN _result := "api"."teams_members_list"(args);
        WHEN 'teams_members_unlink' THEN _result := "api"."teams_members_unlink"(args);
        WHEN 'teams_patch' THEN _result := "api"."teams_patch"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    END IF;
  ELSE
    IF fn COLLATE "C" < 'users_delete' THEN
      CASE fn
        WHEN 'teams_read' THEN _result := "api"."teams_read"(args);
        WHEN 'teams_replace' THEN _result := "api"."teams_replace"(args);
        WHEN 'teams_search' THEN _result := "api"."teams_search"(args);
        WHEN 'teams_stream' THEN _result := "api"."teams_stream"(args);
        WHEN 'upload_intent' THEN _result := "api"."upload_intent"(args);
        WHEN 'upload_prepare' THEN _result := "api"."upload_prepare"(args);
        WHEN 'users_create' THEN _result := "api"."users_create"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    ELSE
      CASE fn
        WHEN 'users_delete' THEN _result := "api"."users_delete"(args);
        WHEN 'users_list' THEN _result := "api"."users_list"(args);
        WHEN 'users_patch' THEN _result := "api"."users_patch"(args);
        WHEN 'users_read' THEN _result := "api"."users_read"(args);
        WHEN 'users_replace' THEN _result := "api"."users_replace"(args);
        WHEN 'users_search' THEN _result := "api"."users_search"(args);
        WHEN 'users_stream' THEN _result := "api"."users_stream"(args);
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
  "api": {"slug":"teams","version":"v1","title":"Teams","docsUrl":"https://docs.example.com","basePath":"/api/teams/v1"},
  "resources": {}
}'::jsonb)

  ON CONFLICT (singleton) DO UPDATE SET manifest = EXCLUDED.manifest;

SELECT meta.drop_stale_functions(ARRAY['users_list', 'users_search', 'users_read', 'users_create', 'users_replace', 'users_patch', 'users_delete',
    'users_stream', 'teams_list', 'teams_search', 'teams_read', 'teams_create', 'teams_replace', 'teams_patch', 'teams_delete', 'teams_stream',
    'teams_members_list', 'teams_members_link', 'teams_members_unlink', 'tasks_list', 'tasks_search', 'tasks_read', 'tasks_create', 'tasks_replace',
    'tasks_patch', 'tasks_delete', 'tasks_stream']::text[]);

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA api TO anon, authenticated;

-- Access scenarios: PRE_FETCH functions and row-level security policies -------------------------

CREATE OR REPLACE FUNCTION "app"."teams_stakeholder_keys"() RETURNS SETOF character varying(255)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN QUERY
    SELECT p."id" FROM "app"."teams" p WHERE p."owner_id" = (SELECT auth.uid())
    UNION
    SELECT m."team_id" FROM "app"."teams_members" m WHERE m."user_id" = (SELECT auth.uid());
END $fn$;
COMMENT ON FUNCTION "app"."teams_stakeholder_keys"() IS 'matchProjectStakeholder: keys of the Team rows in projects the caller owns or is a member of.';
CREATE OR REPLACE FUNCTION "app"."tasks_stakeholder_keys"() RETURNS SETOF character varying(255)
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN QUERY
    SELECT x."id" FROM "app"."tasks" x WHERE x."team_id" IN (SELECT "app"."teams_stakeholder_keys"());
END $fn$;
COMMENT ON FUNCTION "app"."tasks_stakeholder_keys"() IS 'matchProjectStakeholder: keys of the Task rows in projects the caller owns or is a member of.';

ALTER TABLE "app"."users" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('users');
CREATE OR REPLACE FUNCTION "app"."users_access"(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  CASE action
    WHEN 'list', 'search', 'read', 'create', 'update', 'delete' THEN RETURN NULL;
    ELSE RETURN NULL;
  END CASE;
END $fn$;
COMMENT ON FUNCTION "app"."users_access"(text) IS 'PRE_FETCH for User: the scenario that wins an action (first whose identity rules pass), or NULL.';
DROP FUNCTION IF EXISTS "app"."users_stakeholder"(text);

ALTER TABLE "app"."teams" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('teams');
CREATE OR REPLACE FUNCTION "app"."teams_access"(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  CASE action
    WHEN 'list', 'search', 'read', 'create', 'update', 'delete', 'link', 'unlink' THEN RETURN CASE WHEN (SELECT auth.uid() IS NOT NULL) THEN 'Stakeholders' END;
    ELSE RETURN NULL;
  END CASE;
END $fn$;
COMMENT ON FUNCTION "app"."teams_access"(text) IS 'PRE_FETCH for Team: the scenario that wins an action (first whose identity rules pass), or NULL.';
CREATE POLICY "Stakeholders [select]" ON "app"."teams"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('teams'), "app"."teams_access"(lib.action())) = 'Stakeholders')
    AND (
      (SELECT auth.uid() IS NOT NULL)
      AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("id" IN (SELECT "app"."teams_stakeholder_keys"())))
    )
  );
COMMENT ON POLICY "Stakeholders [select]" ON "app"."teams"
  IS 'Scenario "Stakeholders"; list (entity), search (entity), read (entity), create (entity), update (entity), delete (entity), link (entity), '
    'unlink (entity)';
CREATE POLICY "Stakeholders [insert]" ON "app"."teams"
  AS PERMISSIVE FOR INSERT TO anon, authenticated
  WITH CHECK (
    (SELECT coalesce(lib.scenario('teams'), "app"."teams_access"(lib.action())) = 'Stakeholders')
    AND ((SELECT auth.uid() IS NOT NULL) AND ("id" IN (SELECT "app"."teams_stakeholder_keys"())))
  );
COMMENT ON POLICY "Stakeholders [insert]" ON "app"."teams" IS 'Scenario "Stakeholders"; create (entity)';
CREATE POLICY "Stakeholders [update]" ON "app"."teams"
  AS PERMISSIVE FOR UPDATE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('teams'), "app"."teams_access"(lib.action())) = 'Stakeholders')
    AND ((SELECT auth.uid() IS NOT NULL) AND ("id" IN (SELECT "app"."teams_stakeholder_keys"())))
  )
  WITH CHECK (true);
COMMENT ON POLICY "Stakeholders [update]" ON "app"."teams" IS 'Scenario "Stakeholders"; update (entity)';
CREATE POLICY "Stakeholders [delete]" ON "app"."teams"
  AS PERMISSIVE FOR DELETE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('teams'), "app"."teams_access"(lib.action())) = 'Stakeholders')
    AND ((SELECT auth.uid() IS NOT NULL) AND ("id" IN (SELECT "app"."teams_stakeholder_keys"())))
  );
COMMENT ON POLICY "Stakeholders [delete]" ON "app"."teams" IS 'Scenario "Stakeholders"; delete (entity)';
DROP FUNCTION IF EXISTS "app"."teams_stakeholder"(text);

ALTER TABLE "app"."teams_members" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('teams_members');
CREATE POLICY "through Team [all]" ON "app"."teams_members"
  AS PERMISSIVE FOR ALL TO anon, authenticated
  USING (EXISTS (SELECT 1 FROM "app"."teams" o WHERE o."id" = "app"."teams_members"."team_id"))
  WITH CHECK (EXISTS (SELECT 1 FROM "app"."teams" o WHERE o."id" = "app"."teams_members"."team_id"));
COMMENT ON POLICY "through Team [all]" ON "app"."teams_members" IS 'Rows of Team.members follow the access to their Team.';

ALTER TABLE "app"."tasks" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('tasks');
CREATE OR REPLACE FUNCTION "app"."tasks_access"(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  CASE action
    WHEN 'list', 'search', 'read', 'create', 'update', 'delete' THEN RETURN CASE
      WHEN ((SELECT auth.roles() && ARRAY['reader']::text[]) OR (SELECT auth.uid() IS NOT NULL)) THEN 'Stakeholders or readers'
    END;
    ELSE RETURN NULL;
  END CASE;
END $fn$;
COMMENT ON FUNCTION "app"."tasks_access"(text) IS 'PRE_FETCH for Task: the scenario that wins an action (first whose identity rules pass), or NULL.';
CREATE POLICY "Stakeholders or readers [select]" ON "app"."tasks"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('tasks'), "app"."tasks_access"(lib.action())) = 'Stakeholders or readers')
    AND (
      (SELECT auth.roles() && ARRAY['reader']::text[])
      OR (
        (SELECT auth.uid() IS NOT NULL)
        AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("team_id" IN (SELECT "app"."teams_stakeholder_keys"())))
      )
    )
  );
COMMENT ON POLICY "Stakeholders or readers [select]" ON "app"."tasks"
  IS 'Scenario "Stakeholders or readers"; list (entity), search (entity), read (entity), create (entity), update (entity), delete (entity)';
CREATE POLICY "Stakeholders or readers [insert]" ON "app"."tasks"
  AS PERMISSIVE FOR INSERT TO anon, authenticated
  WITH CHECK (
    (SELECT coalesce(lib.scenario('tasks'), "app"."tasks_access"(lib.action())) = 'Stakeholders or readers')
    AND (
      (SELECT auth.roles() && ARRAY['reader']::text[])
      OR ((SELECT auth.uid() IS NOT NULL) AND ("team_id" IN (SELECT "app"."teams_stakeholder_keys"())))
    )
  );
COMMENT ON POLICY "Stakeholders or readers [insert]" ON "app"."tasks" IS 'Scenario "Stakeholders or readers"; create (entity)';
CREATE POLICY "Stakeholders or readers [update]" ON "app"."tasks"
  AS PERMISSIVE FOR UPDATE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('tasks'), "app"."tasks_access"(lib.action())) = 'Stakeholders or readers')
    AND (
      (SELECT auth.roles() && ARRAY['reader']::text[])
      OR ((SELECT auth.uid() IS NOT NULL) AND ("team_id" IN (SELECT "app"."teams_stakeholder_keys"())))
    )
  )
  WITH CHECK (true);
COMMENT ON POLICY "Stakeholders or readers [update]" ON "app"."tasks" IS 'Scenario "Stakeholders or readers"; update (entity)';
CREATE POLICY "Stakeholders or readers [delete]" ON "app"."tasks"
  AS PERMISSIVE FOR DELETE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('tasks'), "app"."tasks_access"(lib.action())) = 'Stakeholders or readers')
    AND (
      (SELECT auth.roles() && ARRAY['reader']::text[])
      OR ((SELECT auth.uid() IS NOT NULL) AND ("team_id" IN (SELECT "app"."teams_stakeholder_keys"())))
    )
  );
COMMENT ON POLICY "Stakeholders or readers [delete]" ON "app"."tasks" IS 'Scenario "Stakeholders or readers"; delete (entity)';
DROP FUNCTION IF EXISTS "app"."tasks_stakeholder"(text);

-- Change log: the changes each caller may see, judged by the read rules (design 9) --------------

DROP FUNCTION IF EXISTS "app"."users_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."users_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."users_changes"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "app"."users_changes"(after_tx xid8, after_id bigint, before xid8, lim integer)
RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  _winner text := "app"."users_access"('list');
  _was text := current_setting('request.action', true);
BEGIN
  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing
  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set
  RETURN QUERY
    SELECT c.id, c.tx, c.action, c.record_key, c.image
    FROM (SELECT c.id, c.tx, c.action, c.record_key, c.image AS image FROM lib.changes c
      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('users')
      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page
    WHERE c.image IS NOT NULL AND EXISTS (
        SELECT FROM jsonb_populate_record(NULL::"app"."users", c.image - ARRAY['id', '_rev',
            '_modified_at']::text[])  -- the record as that change wrote it (a link: its owner now)
        WHERE false)
    ORDER BY c.tx, c.id;
  PERFORM set_config('request.action', coalesce(_was, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."users_changes"(xid8, bigint, xid8, integer)
  IS 'Of the first lim changes of app.users (and its links) past a position (tx, id) and of transactions below before, those the caller may list (design 9).';

DROP FUNCTION IF EXISTS "app"."teams_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."teams_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."teams_changes"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "app"."teams_changes"(after_tx xid8, after_id bigint, before xid8, lim integer)
RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  _winner text := "app"."teams_access"('list');
  _was text := current_setting('request.action', true);
BEGIN
  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing
  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set
  RETURN QUERY
    SELECT c.id, c.tx, c.action, c.record_key, c.image
    FROM (SELECT c.id, c.tx, c.action, c.record_key, CASE WHEN c.table_name = 'teams' THEN c.image
        ELSE (SELECT to_jsonb(o) FROM "app"."teams" o WHERE o."id" = c.record_key) END AS image FROM lib.changes c
      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('teams', 'teams_members')
      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page
    WHERE c.image IS NOT NULL AND EXISTS (
        SELECT FROM jsonb_populate_record(NULL::"app"."teams", c.image - ARRAY['name', 'owner_id', '_rev',
            '_modified_at']::text[])  -- the record as that change wrote it (a link: its owner now)
        WHERE CASE _winner
        WHEN 'Stakeholders' THEN (
  (SELECT auth.uid() IS NOT NULL)
  AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("id" IN (SELECT "app"."teams_stakeholder_keys"())))
)
        ELSE false END)
    ORDER BY c.tx, c.id;
  PERFORM set_config('request.action', coalesce(_was, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."teams_changes"(xid8, bigint, xid8, integer)
  IS 'Of the first lim changes of app.teams (and its links) past a position (tx, id) and of transactions below before, those the caller may list (design 9).';

DROP FUNCTION IF EXISTS "app"."teams_members_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."teams_members_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."teams_members_changes"(xid8, bigint, xid8, integer);

DROP FUNCTION IF EXISTS "app"."tasks_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."tasks_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."tasks_changes"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "app"."tasks_changes"(after_tx xid8, after_id bigint, before xid8, lim integer)
RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  _winner text := "app"."tasks_access"('list');
  _was text := current_setting('request.action', true);
BEGIN
  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing
  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set
  RETURN QUERY
    SELECT c.id, c.tx, c.action, c.record_key, c.image
    FROM (SELECT c.id, c.tx, c.action, c.record_key, c.image AS image FROM lib.changes c
      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('tasks')
      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page
    WHERE c.image IS NOT NULL AND EXISTS (
        SELECT FROM jsonb_populate_record(NULL::"app"."tasks", c.image - ARRAY['id', 'title', '_rev',
            '_modified_at']::text[])  -- the record as that change wrote it (a link: its owner now)
        WHERE CASE _winner
        WHEN 'Stakeholders or readers' THEN (
  (SELECT auth.roles() && ARRAY['reader']::text[])
  OR (
    (SELECT auth.uid() IS NOT NULL)
    AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("team_id" IN (SELECT "app"."teams_stakeholder_keys"())))
  )
)
        ELSE false END)
    ORDER BY c.tx, c.id;
  PERFORM set_config('request.action', coalesce(_was, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."tasks_changes"(xid8, bigint, xid8, integer)
  IS 'Of the first lim changes of app.tasks (and its links) past a position (tx, id) and of transactions below before, those the caller may list (design 9).';

-- Change log: pages of changes shaped as records, for the gateway's streams (design 9) ----------

DROP FUNCTION IF EXISTS "app"."users_change_records"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "lib"."users_change_records"(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json
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
        ELSE (SELECT row_to_json(r) FROM (SELECT t."id" AS "id") r)
      END
    ) ORDER BY c.tx, c.id), '[]'),
    'last', (array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1],
    'read', count(*)
  )
  FROM (SELECT * FROM lib.changes c
    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('users')
    ORDER BY c.tx, c.id LIMIT lim) c
  LEFT JOIN LATERAL jsonb_populate_record(NULL::"app"."users", CASE WHEN c.table_name = 'users' THEN c.image END) t ON true
$fn$;
REVOKE EXECUTE ON FUNCTION "lib"."users_change_records"(xid8, bigint, xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "lib"."users_change_records"(xid8, bigint, xid8, integer) TO authenticator;
COMMENT ON FUNCTION "lib"."users_change_records"(xid8, bigint, xid8, integer)
  IS 'A page of the change log of app.users and its links, shaped as records; for the gateway''s streams only (design 9).';

DROP FUNCTION IF EXISTS "app"."teams_change_records"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "lib"."teams_change_records"(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
  SELECT json_build_object(
    'data', coalesce(json_agg(json_build_object(
      'id', c.tx::text || '-' || c.id::text,
      'action', c.action,
      'key', c.record_key,
      'etag', c.etag,
      'at', c.at,
      'data', CASE
        WHEN c.table_name <> 'teams' THEN json_build_object(
          'relation', CASE c.table_name WHEN 'teams_members' THEN 'members' END,
          'target', CASE c.table_name WHEN 'teams_members' THEN c.image ->> 'user_id' END,
          'edge', CASE c.table_name WHEN 'teams_members' THEN json_build_object() END
        )
        WHEN c.action = 'deleted' THEN NULL
        ELSE (SELECT row_to_json(r) FROM (SELECT
          t."id" AS "id", t."name" AS "name", t."owner_id" AS "owner_id"
        ) r)
      END
    ) ORDER BY c.tx, c.id), '[]'),
    'last', (array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1],
    'read', count(*)
  )
  FROM (SELECT * FROM lib.changes c
    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('teams', 'teams_members')
    ORDER BY c.tx, c.id LIMIT lim) c
  LEFT JOIN LATERAL jsonb_populate_record(NULL::"app"."teams", CASE WHEN c.table_name = 'teams' THEN c.image END) t ON true
$fn$;
REVOKE EXECUTE ON FUNCTION "lib"."teams_change_records"(xid8, bigint, xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "lib"."teams_change_records"(xid8, bigint, xid8, integer) TO authenticator;
COMMENT ON FUNCTION "lib"."teams_change_records"(xid8, bigint, xid8, integer)
  IS 'A page of the change log of app.teams and its links, shaped as records; for the gateway''s streams only (design 9).';

DROP FUNCTION IF EXISTS "app"."teams_members_change_records"(xid8, bigint, xid8, integer);
DROP FUNCTION IF EXISTS "lib"."teams_members_change_records"(xid8, bigint, xid8, integer);

DROP FUNCTION IF EXISTS "app"."tasks_change_records"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "lib"."tasks_change_records"(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json
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
          t."id" AS "id", t."team_id" AS "team_id", t."title" AS "title"
        ) r)
      END
    ) ORDER BY c.tx, c.id), '[]'),
    'last', (array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1],
    'read', count(*)
  )
  FROM (SELECT * FROM lib.changes c
    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('tasks')
    ORDER BY c.tx, c.id LIMIT lim) c
  LEFT JOIN LATERAL jsonb_populate_record(NULL::"app"."tasks", CASE WHEN c.table_name = 'tasks' THEN c.image END) t ON true
$fn$;
REVOKE EXECUTE ON FUNCTION "lib"."tasks_change_records"(xid8, bigint, xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "lib"."tasks_change_records"(xid8, bigint, xid8, integer) TO authenticator;
COMMENT ON FUNCTION "lib"."tasks_change_records"(xid8, bigint, xid8, integer)
  IS 'A page of the change log of app.tasks and its links, shaped as records; for the gateway''s streams only (design 9).';

-- Identity: sign-in, refresh tokens and their revocation (api.identity) -------------------------

DROP FUNCTION IF EXISTS lib.identity_claims(text);
DROP TRIGGER IF EXISTS identity_revoke ON "app"."users";
DROP TRIGGER IF EXISTS identity_revoke ON "app"."teams";
DROP TRIGGER IF EXISTS identity_revoke ON "app"."tasks";

-- Webhooks: the receivers of changes (api.webhooks, design 9) -----------------------------------

DELETE FROM lib.webhooks WHERE name <> ALL (ARRAY[]::text[]);  -- removed from the model, with their deliveries

-- Access: existence past the policies, failing rules, refusals (403/404) and pre-flights --------

CREATE OR REPLACE FUNCTION "app"."users_exists"(_key text, _parent text DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "app"."users" t WHERE t."id" = _key);
END $fn$;
COMMENT ON FUNCTION "app"."users_exists"(text, text)
  IS 'Whether User _key exists (live, in the caller''s organization, under _parent), whatever the policies say. Definer: it says only that.';

CREATE OR REPLACE FUNCTION "app"."users_scenario"(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT NULL::text[]
$fn$;
COMMENT ON FUNCTION "app"."users_scenario"(text) IS 'Label, level and data rules of each scenario of User.';

CREATE OR REPLACE FUNCTION "app"."users_failing"(_scenario text, _key text)
  RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _failing text;
BEGIN
  SELECT ''::text FROM "app"."users" t WHERE t."id" = _key INTO _failing;
  RETURN _failing;
END $fn$;
COMMENT ON FUNCTION "app"."users_failing"(text, text) IS 'The data rules of a User scenario that an existing record breaks (for 403 details).';

CREATE OR REPLACE FUNCTION "app"."users_deny"(_action text, _key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _winner text := "app"."users_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, 'User'); END IF;
  _failing := "app"."users_failing"(_winner, _key);
  IF _failing <> '' THEN
    _about := "app"."users_scenario"(_winner);
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'User', _failing),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;
  END IF;
END $fn$;
COMMENT ON FUNCTION "app"."users_deny"(text, text)
  IS 'Refuses (403) when the scenario that wins _action rejects the existing User _key, naming the rules it breaks.';

SELECT meta.drop_if_returns('"app"."users_refusal"(text, text, text, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."users_refusal"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS json LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _scenario text := "app"."users_access"(_action);
  _failing text;
  _about text[];
BEGIN
  SELECT ''::text FROM "app"."users" t WHERE t."id" = _key INTO _failing;
  IF _failing IS NULL THEN
    IF _star THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT412', 'message', format('If-Match: * requires an existing %s, and there is none with %s "%s"', 'User', 'id', _key),
          'detail', jsonb_build_object('current', NULL, 'supplied', '*')::text, 'hint',
          'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.')); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT404', 'message', format('no %s with %s "%s"', 'User', 'id', coalesce(_key, '')), 'detail',
          jsonb_build_object('property', NULL, 'rule', NULL)::text, 'hint', NULL));
  END IF;
  IF _scenario IS NULL THEN
    IF auth.uid() IS NULL
      THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT401', 'message', format('No access scenario lets an anonymous caller %s %s: sign in.', _action, 'User'), 'detail', NULL,
          'hint', NULL)); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message', format('No access scenario lets you %s %s.', _action, 'User'), 'detail', NULL, 'hint', NULL));
  END IF;
  IF _failing <> '' THEN
    _about := "app"."users_scenario"(_scenario);
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message',
          format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'User', _failing), 'detail',
          jsonb_build_object('scenario', _about[1], 'rules', _failing)::text, 'hint', NULL));
  END IF;
  RETURN json_build_object('refused',
      json_build_object('code', 'PT403', 'message', format('You may not %s this %s.', _action, 'User'), 'detail', NULL, 'hint', NULL));
END $fn$;
COMMENT ON FUNCTION "app"."users_refusal"(text, text, text, boolean)
  IS 'Why a User the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.';

CREATE OR REPLACE FUNCTION "app"."users_refuse"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS void LANGUAGE plpgsql
  AS $fn$
BEGIN
  PERFORM lib.raise_refusal("app"."users_refusal"(_action, _key, _parent, _star));
END $fn$;
COMMENT ON FUNCTION "app"."users_refuse"(text, text, text, boolean) IS 'A User the caller cannot _action was asked for: 403 when it exists, else 404 (raised).';

CREATE OR REPLACE FUNCTION "app"."users_require"(_key text, _action text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _outer_action text := lib.action();
  _outer_scenario text := lib.scenario('users');
  _winner text := lib.enter('users', _action, "app"."users_access"(_action), 'User');
  _found boolean := false;
  _set text;
BEGIN
  SELECT EXISTS (SELECT 1 FROM "app"."users" t WHERE t."id" = _key) INTO _found;
  IF NOT _found THEN PERFORM "app"."users_refuse"(_action, _key); END IF;
  _set := set_config('request.action', coalesce(_outer_action, ''), true)
    || set_config('request.scenario.users', coalesce(_outer_scenario, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."users_require"(text, text) IS 'Pre-flight: the caller must be able to _action User _key (404 when missing, 403 when hidden).';

CREATE OR REPLACE FUNCTION "app"."users_within"(_key text, _above jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF jsonb_array_length(coalesce(_above, '[]')) > 0 THEN PERFORM lib.bad_request('User has no parent'); END IF;
  PERFORM "app"."users_require"(_key, 'read');
END $fn$;
COMMENT ON FUNCTION "app"."users_within"(text, jsonb)
  IS 'Nested paths: User _key, under the ancestors _above (outermost first), each existing, containing the next and readable.';

CREATE OR REPLACE FUNCTION "app"."teams_exists"(_key text, _parent text DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "app"."teams" t WHERE t."id" = _key);
END $fn$;
COMMENT ON FUNCTION "app"."teams_exists"(text, text)
  IS 'Whether Team _key exists (live, in the caller''s organization, under _parent), whatever the policies say. Definer: it says only that.';

CREATE OR REPLACE FUNCTION "app"."teams_scenario"(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE _scenario
    WHEN 'Stakeholders' THEN ARRAY['Stakeholders', 'entity', 'matchProjectStakeholder']
  END
$fn$;
COMMENT ON FUNCTION "app"."teams_scenario"(text) IS 'Label, level and data rules of each scenario of Team.';

CREATE OR REPLACE FUNCTION "app"."teams_failing"(_scenario text, _key text)
  RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _failing text;
BEGIN
  IF _scenario = 'Stakeholders' THEN
    SELECT CASE WHEN (_g.g0 AND _r.r0) THEN '' ELSE concat_ws(', ', CASE WHEN (NOT (_g.g0) OR _r.r0) IS NOT TRUE THEN 'matchProjectStakeholder' END) END
        FROM (SELECT (SELECT auth.uid() IS NOT NULL) AS g0 OFFSET 0) _g,
        LATERAL (SELECT coalesce(CASE WHEN (_g.g0) IS NOT FALSE
              THEN (EXISTS (SELECT 1 FROM "app"."teams" p0 WHERE p0."id" = t."id" AND p0."owner_id" = (SELECT auth.uid()))
                OR EXISTS (SELECT 1 FROM "app"."teams_members" m0 WHERE m0."team_id" = t."id" AND m0."user_id" = (SELECT auth.uid()))) END, false) AS r0
            FROM "app"."teams" t WHERE t."id" = _key OFFSET 0) _r INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."teams" t WHERE t."id" = _key INTO _failing;
  END IF;
  RETURN _failing;
END $fn$;
COMMENT ON FUNCTION "app"."teams_failing"(text, text) IS 'The data rules of a Team scenario that an existing record breaks (for 403 details).';

CREATE OR REPLACE FUNCTION "app"."teams_deny"(_action text, _key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _winner text := "app"."teams_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, 'Team'); END IF;
  _failing := "app"."teams_failing"(_winner, _key);
  IF _failing <> '' THEN
    _about := "app"."teams_scenario"(_winner);
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Team', _failing),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;
  END IF;
END $fn$;
COMMENT ON FUNCTION "app"."teams_deny"(text, text)
  IS 'Refuses (403) when the scenario that wins _action rejects the existing Team _key, naming the rules it breaks.';

SELECT meta.drop_if_returns('"app"."teams_refusal"(text, text, text, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."teams_refusal"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS json LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _scenario text := "app"."teams_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _scenario = 'Stakeholders' THEN
    SELECT CASE WHEN (_g.g0 AND _r.r0) THEN '' ELSE concat_ws(', ', CASE WHEN (NOT (_g.g0) OR _r.r0) IS NOT TRUE THEN 'matchProjectStakeholder' END) END
        FROM (SELECT (SELECT auth.uid() IS NOT NULL) AS g0 OFFSET 0) _g,
        LATERAL (SELECT coalesce(CASE WHEN (_g.g0) IS NOT FALSE
              THEN (EXISTS (SELECT 1 FROM "app"."teams" p0 WHERE p0."id" = t."id" AND p0."owner_id" = (SELECT auth.uid()))
                OR EXISTS (SELECT 1 FROM "app"."teams_members" m0 WHERE m0."team_id" = t."id" AND m0."user_id" = (SELECT auth.uid()))) END, false) AS r0
            FROM "app"."teams" t WHERE t."id" = _key OFFSET 0) _r INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."teams" t WHERE t."id" = _key INTO _failing;
  END IF;
  IF _failing IS NULL THEN
    IF _star THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT412', 'message', format('If-Match: * requires an existing %s, and there is none with %s "%s"', 'Team', 'id', _key),
          'detail', jsonb_build_object('current', NULL, 'supplied', '*')::text, 'hint',
          'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.')); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT404', 'message', format('no %s with %s "%s"', 'Team', 'id', coalesce(_key, '')), 'detail',
          jsonb_build_object('property', NULL, 'rule', NULL)::text, 'hint', NULL));
  END IF;
  IF _scenario IS NULL THEN
    IF auth.uid() IS NULL
      THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT401', 'message', format('No access scenario lets an anonymous caller %s %s: sign in.', _action, 'Team'), 'detail', NULL,
          'hint', NULL)); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message', format('No access scenario lets you %s %s.', _action, 'Team'), 'detail', NULL, 'hint', NULL));
  END IF;
  IF _failing <> '' THEN
    _about := "app"."teams_scenario"(_scenario);
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message',
          format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Team', _failing), 'detail',
          jsonb_build_object('scenario', _about[1], 'rules', _failing)::text, 'hint', NULL));
  END IF;
  RETURN json_build_object('refused',
      json_build_object('code', 'PT403', 'message', format('You may not %s this %s.', _action, 'Team'), 'detail', NULL, 'hint', NULL));
END $fn$;
COMMENT ON FUNCTION "app"."teams_refusal"(text, text, text, boolean)
  IS 'Why a Team the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.';

CREATE OR REPLACE FUNCTION "app"."teams_refuse"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS void LANGUAGE plpgsql
  AS $fn$
BEGIN
  PERFORM lib.raise_refusal("app"."teams_refusal"(_action, _key, _parent, _star));
END $fn$;
COMMENT ON FUNCTION "app"."teams_refuse"(text, text, text, boolean) IS 'A Team the caller cannot _action was asked for: 403 when it exists, else 404 (raised).';

CREATE OR REPLACE FUNCTION "app"."teams_require"(_key text, _action text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _outer_action text := lib.action();
  _outer_scenario text := lib.scenario('teams');
  _winner text := lib.enter('teams', _action, "app"."teams_access"(_action), 'Team');
  _found boolean := false;
  _set text;
BEGIN
  SELECT EXISTS (SELECT 1 FROM "app"."teams" t WHERE t."id" = _key) INTO _found;
  IF NOT _found THEN PERFORM "app"."teams_refuse"(_action, _key); END IF;
  _set := set_config('request.action', coalesce(_outer_action, ''), true)
    || set_config('request.scenario.teams', coalesce(_outer_scenario, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."teams_require"(text, text) IS 'Pre-flight: the caller must be able to _action Team _key (404 when missing, 403 when hidden).';

CREATE OR REPLACE FUNCTION "app"."teams_within"(_key text, _above jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF jsonb_array_length(coalesce(_above, '[]')) > 0 THEN PERFORM lib.bad_request('Team has no parent'); END IF;
  PERFORM "app"."teams_require"(_key, 'read');
END $fn$;
COMMENT ON FUNCTION "app"."teams_within"(text, jsonb)
  IS 'Nested paths: Team _key, under the ancestors _above (outermost first), each existing, containing the next and readable.';

CREATE OR REPLACE FUNCTION "app"."tasks_exists"(_key text, _parent text DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "app"."tasks" t WHERE t."id" = _key AND (_parent IS NULL OR t."team_id"::text = _parent));
END $fn$;
COMMENT ON FUNCTION "app"."tasks_exists"(text, text)
  IS 'Whether Task _key exists (live, in the caller''s organization, under _parent), whatever the policies say. Definer: it says only that.';

CREATE OR REPLACE FUNCTION "app"."tasks_scenario"(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE _scenario
    WHEN 'Stakeholders or readers' THEN ARRAY['Stakeholders or readers', 'entity', 'matchProjectStakeholder']
  END
$fn$;
COMMENT ON FUNCTION "app"."tasks_scenario"(text) IS 'Label, level and data rules of each scenario of Task.';

CREATE OR REPLACE FUNCTION "app"."tasks_failing"(_scenario text, _key text)
  RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _failing text;
BEGIN
  IF _scenario = 'Stakeholders or readers' THEN
    SELECT CASE WHEN (_g.g0 OR (_g.g1 AND _r.r0)) THEN ''
      ELSE concat_ws(', ', CASE WHEN (NOT (_g.g1) OR _r.r0) IS NOT TRUE THEN 'matchProjectStakeholder' END) END
        FROM (SELECT (SELECT auth.roles() && ARRAY['reader']::text[]) AS g0, (SELECT auth.uid() IS NOT NULL) AS g1 OFFSET 0) _g,
        LATERAL (SELECT coalesce(CASE WHEN (_g.g1) IS NOT FALSE
              THEN (EXISTS (SELECT 1 FROM "app"."teams" p0 WHERE p0."id" = t."team_id" AND p0."owner_id" = (SELECT auth.uid()))
                OR EXISTS (SELECT 1 FROM "app"."teams_members" m0 WHERE m0."team_id" = t."team_id" AND m0."user_id" = (SELECT auth.uid()))) END, false) AS r0
            FROM "app"."tasks" t WHERE t."id" = _key OFFSET 0) _r INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."tasks" t WHERE t."id" = _key INTO _failing;
  END IF;
  RETURN _failing;
END $fn$;
COMMENT ON FUNCTION "app"."tasks_failing"(text, text) IS 'The data rules of a Task scenario that an existing record breaks (for 403 details).';

CREATE OR REPLACE FUNCTION "app"."tasks_deny"(_action text, _key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _winner text := "app"."tasks_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, 'Task'); END IF;
  _failing := "app"."tasks_failing"(_winner, _key);
  IF _failing <> '' THEN
    _about := "app"."tasks_scenario"(_winner);
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Task', _failing),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;
  END IF;
END $fn$;
COMMENT ON FUNCTION "app"."tasks_deny"(text, text)
  IS 'Refuses (403) when the scenario that wins _action rejects the existing Task _key, naming the rules it breaks.';

SELECT meta.drop_if_returns('"app"."tasks_refusal"(text, text, text, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."tasks_refusal"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS json LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _scenario text := "app"."tasks_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _scenario = 'Stakeholders or readers' THEN
    SELECT CASE WHEN (_g.g0 OR (_g.g1 AND _r.r0)) THEN ''
      ELSE concat_ws(', ', CASE WHEN (NOT (_g.g1) OR _r.r0) IS NOT TRUE THEN 'matchProjectStakeholder' END) END
        FROM (SELECT (SELECT auth.roles() && ARRAY['reader']::text[]) AS g0, (SELECT auth.uid() IS NOT NULL) AS g1 OFFSET 0) _g,
        LATERAL (SELECT coalesce(CASE WHEN (_g.g1) IS NOT FALSE
              THEN (EXISTS (SELECT 1 FROM "app"."teams" p0 WHERE p0."id" = t."team_id" AND p0."owner_id" = (SELECT auth.uid()))
                OR EXISTS (SELECT 1 FROM "app"."teams_members" m0 WHERE m0."team_id" = t."team_id" AND m0."user_id" = (SELECT auth.uid()))) END, false) AS r0
            FROM "app"."tasks" t WHERE t."id" = _key AND (_parent IS NULL OR t."team_id"::text = _parent) OFFSET 0) _r INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."tasks" t WHERE t."id" = _key AND (_parent IS NULL OR t."team_id"::text = _parent) INTO _failing;
  END IF;
  IF _failing IS NULL THEN
    IF _star THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT412', 'message', format('If-Match: * requires an existing %s, and there is none with %s "%s"', 'Task', 'id', _key),
          'detail', jsonb_build_object('current', NULL, 'supplied', '*')::text, 'hint',
          'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.')); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT404', 'message', format('no %s with %s "%s"', 'Task', 'id', coalesce(_key, '')), 'detail',
          jsonb_build_object('property', NULL, 'rule', NULL)::text, 'hint', NULL));
  END IF;
  IF _scenario IS NULL THEN
    IF auth.uid() IS NULL
      THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT401', 'message', format('No access scenario lets an anonymous caller %s %s: sign in.', _action, 'Task'), 'detail', NULL,
          'hint', NULL)); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message', format('No access scenario lets you %s %s.', _action, 'Task'), 'detail', NULL, 'hint', NULL));
  END IF;
  IF _failing <> '' THEN
    _about := "app"."tasks_scenario"(_scenario);
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message',
          format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Task', _failing), 'detail',
          jsonb_build_object('scenario', _about[1], 'rules', _failing)::text, 'hint', NULL));
  END IF;
  RETURN json_build_object('refused',
      json_build_object('code', 'PT403', 'message', format('You may not %s this %s.', _action, 'Task'), 'detail', NULL, 'hint', NULL));
END $fn$;
COMMENT ON FUNCTION "app"."tasks_refusal"(text, text, text, boolean)
  IS 'Why a Task the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.';

CREATE OR REPLACE FUNCTION "app"."tasks_refuse"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS void LANGUAGE plpgsql
  AS $fn$
BEGIN
  PERFORM lib.raise_refusal("app"."tasks_refusal"(_action, _key, _parent, _star));
END $fn$;
COMMENT ON FUNCTION "app"."tasks_refuse"(text, text, text, boolean) IS 'A Task the caller cannot _action was asked for: 403 when it exists, else 404 (raised).';

CREATE OR REPLACE FUNCTION "app"."tasks_require"(_key text, _action text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _outer_action text := lib.action();
  _outer_scenario text := lib.scenario('tasks');
  _winner text := lib.enter('tasks', _action, "app"."tasks_access"(_action), 'Task');
  _found boolean := false;
  _set text;
BEGIN
  SELECT EXISTS (SELECT 1 FROM "app"."tasks" t WHERE t."id" = _key) INTO _found;
  IF NOT _found THEN PERFORM "app"."tasks_refuse"(_action, _key); END IF;
  _set := set_config('request.action', coalesce(_outer_action, ''), true)
    || set_config('request.scenario.tasks', coalesce(_outer_scenario, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."tasks_require"(text, text) IS 'Pre-flight: the caller must be able to _action Task _key (404 when missing, 403 when hidden).';

CREATE OR REPLACE FUNCTION "app"."tasks_within"(_key text, _above jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF jsonb_array_length(coalesce(_above, '[]')) > 0 THEN
    PERFORM "app"."teams_within"(_above ->> -1, _above - -1);
    IF "app"."tasks_access"('read') IS NULL THEN PERFORM lib.no_scenario('read', 'Task'); END IF;
    IF NOT "app"."tasks_exists"(_key, _above ->> -1) THEN PERFORM lib.not_found('Task', 'id', _key); END IF;
  END IF;
  PERFORM "app"."tasks_require"(_key, 'read');
END $fn$;
COMMENT ON FUNCTION "app"."tasks_within"(text, jsonb)
  IS 'Nested paths: Task _key, under the ancestors _above (outermost first), each existing, containing the next and readable.';

-- Removed from the model ------------------------------------------------------------------------

SELECT meta.drop_stale_columns('users', ARRAY['id', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_columns('teams', ARRAY['id', 'name', 'owner_id', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_columns('teams_members', ARRAY['team_id', 'user_id', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_columns('tasks', ARRAY['id', 'team_id', 'title', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_tables(ARRAY['users', 'teams', 'teams_members', 'tasks']::text[]);


