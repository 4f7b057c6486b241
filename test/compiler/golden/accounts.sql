-- Constraints and indexes the model no longer has, or has changed -------------------------------

SELECT meta.drop_replaced(
  'accounts',
  ARRAY[
    'accounts_pkey', 'accounts_email_email', 'accounts_email_key', 'accounts_password_password'
  ]::text[],
  ARRAY[
    'PRIMARY KEY ("id")', 'CHECK (lib.is_email("email"))', 'UNIQUE ("email")',
    'CHECK ("password" ~ ''^\$2[abxy]\$[0-9]{2}\$[./A-Za-z0-9]{53}$'')'
  ]::text[],
  ARRAY[]::text[],
  ARRAY[]::text[]
);

SELECT meta.drop_replaced(
  'accounts_labels',
  ARRAY[
    'accounts_labels_pkey', 'accounts_labels_account_id_fkey', 'accounts_labels_label_slug_fkey'
  ]::text[],
  ARRAY[
    'PRIMARY KEY ("account_id", "label_slug")',
    'FOREIGN KEY ("account_id") REFERENCES "app"."accounts" ("id") ON DELETE CASCADE',
    'FOREIGN KEY ("label_slug") REFERENCES "app"."labels" ("slug") ON DELETE CASCADE'
  ]::text[],
  ARRAY['accounts_labels_label_slug_idx']::text[],
  ARRAY[
    'CREATE INDEX "accounts_labels_label_slug_idx" ON "app"."accounts_labels" USING btree ("label_slug")'
  ]::text[]
);

SELECT meta.drop_replaced(
  'accounts_settings',
  ARRAY['accounts_settings_pkey', 'accounts_settings_account_id_fkey']::text[],
  ARRAY[
    'PRIMARY KEY ("account_id")',
    'FOREIGN KEY ("account_id") REFERENCES "app"."accounts" ("id") ON DELETE CASCADE'
  ]::text[],
  ARRAY[]::text[],
  ARRAY[]::text[]
);

SELECT meta.drop_replaced('labels', ARRAY['labels_pkey']::text[], ARRAY['PRIMARY KEY ("slug")']::text[], ARRAY[]::text[], ARRAY[]::text[]);

-- Tables and columns ----------------------------------------------------------------------------

CREATE TABLE IF NOT EXISTS "app"."accounts" ();
COMMENT ON TABLE "app"."accounts" IS 'Entity Account (collection accounts).';
SELECT meta.ensure_column('accounts', 'id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."accounts"."id" IS 'primary, readOnly';
SELECT meta.ensure_column('accounts', 'email', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."accounts"."email" IS 'required, unique; modules: Email';
SELECT meta.ensure_column('accounts', 'password', 'character varying(255)', false, NULL, false);
COMMENT ON COLUMN "app"."accounts"."password" IS 'writeOnly; modules: Password';
SELECT meta.ensure_column('accounts', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."accounts"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('accounts', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."accounts"."_modified_at" IS 'Time of the last write (Last-Modified).';

CREATE TABLE IF NOT EXISTS "app"."accounts_labels" ();
COMMENT ON TABLE "app"."accounts_labels" IS 'manyToMany Account.labels -> Label.';
SELECT meta.ensure_column('accounts_labels', 'account_id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."accounts_labels"."account_id" IS NULL;
SELECT meta.ensure_column('accounts_labels', 'label_slug', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."accounts_labels"."label_slug" IS NULL;
SELECT meta.ensure_column('accounts_labels', 'role', 'character varying(255)', false, NULL, false);
COMMENT ON COLUMN "app"."accounts_labels"."role" IS 'Edge property';
SELECT meta.ensure_column('accounts_labels', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."accounts_labels"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('accounts_labels', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."accounts_labels"."_modified_at" IS 'Time of the last write (Last-Modified).';

CREATE TABLE IF NOT EXISTS "app"."accounts_settings" ();
COMMENT ON TABLE "app"."accounts_settings" IS 'oneToOne sub-resource Account.settings.';
SELECT meta.ensure_column('accounts_settings', 'account_id', 'character varying(255)', true, NULL, false);
COMMENT ON COLUMN "app"."accounts_settings"."account_id" IS NULL;
SELECT meta.ensure_column('accounts_settings', 'theme', 'character varying(255)', false, NULL, false);
COMMENT ON COLUMN "app"."accounts_settings"."theme" IS NULL;
SELECT meta.ensure_column('accounts_settings', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."accounts_settings"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('accounts_settings', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."accounts_settings"."_modified_at" IS 'Time of the last write (Last-Modified).';

CREATE TABLE IF NOT EXISTS "app"."labels" ();
COMMENT ON TABLE "app"."labels" IS 'Entity Label (collection labels).';
SELECT meta.ensure_column('labels', 'slug', 'character varying(255)', true, 'gen_random_uuid()::text', false);
COMMENT ON COLUMN "app"."labels"."slug" IS 'primary, immutable';
SELECT meta.ensure_column('labels', 'name', 'character varying(255)', false, NULL, false);
COMMENT ON COLUMN "app"."labels"."name" IS NULL;
SELECT meta.ensure_column('labels', '_rev', 'uuid', true, 'gen_random_uuid()', false);
COMMENT ON COLUMN "app"."labels"."_rev" IS 'Revision token, new on every write (the ETag where there is no Version property).';
SELECT meta.ensure_column('labels', '_modified_at', 'timestamp with time zone', true, 'now()', false);
COMMENT ON COLUMN "app"."labels"."_modified_at" IS 'Time of the last write (Last-Modified).';

-- Primary keys, unique and check constraints ----------------------------------------------------

SELECT meta.ensure_constraint('accounts', 'accounts_pkey', 'PRIMARY KEY ("id")', '{"property":"id","rule":"primary"}'::jsonb);
SELECT meta.ensure_constraint('accounts', 'accounts_email_email', 'CHECK (lib.is_email("email"))', '{"property":"email","rule":"email"}'::jsonb);
SELECT meta.ensure_constraint('accounts', 'accounts_email_key', 'UNIQUE ("email")', '{"property":"email","rule":"unique"}'::jsonb);
SELECT meta.ensure_constraint(
  'accounts',
  'accounts_password_password',
  'CHECK ("password" ~ ''^\$2[abxy]\$[0-9]{2}\$[./A-Za-z0-9]{53}$'')',
  '{"property":"password","rule":"Password","hint":"A Password column holds bcrypt hashes, and these values are not (plain text?). Hash them first: '
    'UPDATE \"app\".\"accounts\" SET \"password\" = extensions.crypt(\"password\", extensions.gen_salt(''bf'', '
    '10)) WHERE NOT (\"password\" ~ ''^\\$2[abxy]\\$[0-9]{2}\\$[./A-Za-z0-9]{53}$'');"}'::jsonb
);

SELECT meta.ensure_constraint(
  'accounts_labels',
  'accounts_labels_pkey',
  'PRIMARY KEY ("account_id", "label_slug")',
  '{"property":"labels","rule":"primary"}'::jsonb
);

SELECT meta.ensure_constraint(
  'accounts_settings',
  'accounts_settings_pkey',
  'PRIMARY KEY ("account_id")',
  '{"property":"account_id","rule":"primary"}'::jsonb
);

SELECT meta.ensure_constraint('labels', 'labels_pkey', 'PRIMARY KEY ("slug")', '{"property":"slug","rule":"primary"}'::jsonb);

-- Foreign keys ----------------------------------------------------------------------------------

SELECT meta.ensure_constraint(
  'accounts_labels',
  'accounts_labels_account_id_fkey',
  'FOREIGN KEY ("account_id") REFERENCES "app"."accounts" ("id") ON DELETE CASCADE',
  '{"property":"account_id","rule":"references"}'::jsonb
);
SELECT meta.ensure_constraint(
  'accounts_labels',
  'accounts_labels_label_slug_fkey',
  'FOREIGN KEY ("label_slug") REFERENCES "app"."labels" ("slug") ON DELETE CASCADE',
  '{"property":"label_slug","rule":"references"}'::jsonb
);

SELECT meta.ensure_constraint(
  'accounts_settings',
  'accounts_settings_account_id_fkey',
  'FOREIGN KEY ("account_id") REFERENCES "app"."accounts" ("id") ON DELETE CASCADE',
  '{"property":"account_id","rule":"references"}'::jsonb
);

-- Indexes ---------------------------------------------------------------------------------------

SELECT meta.ensure_index(
  'accounts_labels',
  'accounts_labels_label_slug_idx',
  'CREATE INDEX "accounts_labels_label_slug_idx" ON "app"."accounts_labels" USING btree ("label_slug")',
  '{"property":"label_slug","rule":"indexed"}'::jsonb
);

-- Write rules -----------------------------------------------------------------------------------

CREATE OR REPLACE FUNCTION "app"."accounts_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
DECLARE
  _hashes integer;
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
  NEW."email" := lower(NEW."email");  -- Email: stored lowercase
  IF NEW."password" IS NOT NULL AND (TG_OP = 'INSERT' OR NEW."password" IS DISTINCT FROM OLD."password") THEN
    IF octet_length(NEW."password") > 72 THEN
      PERFORM lib.refuse('PT422', 'a password holds at most 72 bytes (bcrypt reads no further)', 'password', 'Password');
    END IF;
    _hashes := coalesce(nullif(current_setting('lib.password_hashes', true), ''), '0')::int + 1;  -- in this transaction
    IF _hashes > 10 THEN
      PERFORM lib.refuse('PT413', 'at most 10 passwords are set in one request (each takes bcrypt''s time): send the others apart', 'password', 'Password');
    END IF;
    PERFORM set_config('lib.password_hashes', _hashes::text, true);
    PERFORM lib.hash_slot();  -- one of the few hashes the database runs at once
    NEW."password" := extensions.crypt(NEW."password", extensions.gen_salt('bf', 10));  -- Password: salted hash
  END IF;
  NEW._rev := gen_random_uuid();
  NEW._modified_at := now();
  RETURN NEW;
END $fn$;
COMMENT ON FUNCTION "app"."accounts_write_rules"() IS 'Write rules of app.accounts: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."accounts" FOR EACH ROW EXECUTE FUNCTION "app"."accounts_write_rules"();

CREATE OR REPLACE FUNCTION "app"."accounts_labels_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
COMMENT ON FUNCTION "app"."accounts_labels_write_rules"() IS 'Write rules of app.accounts_labels: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."accounts_labels" FOR EACH ROW EXECUTE FUNCTION "app"."accounts_labels_write_rules"();

CREATE OR REPLACE FUNCTION "app"."accounts_settings_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
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
COMMENT ON FUNCTION "app"."accounts_settings_write_rules"() IS 'Write rules of app.accounts_settings: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT
  OR UPDATE ON "app"."accounts_settings" FOR EACH ROW EXECUTE FUNCTION "app"."accounts_settings_write_rules"();

CREATE OR REPLACE FUNCTION "app"."accounts_settings_touch_owner"() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog,
  pg_temp AS $fn$
BEGIN
  UPDATE "app"."accounts" SET _rev = gen_random_uuid() WHERE "id" = (CASE WHEN TG_OP = 'DELETE' THEN OLD."account_id" ELSE NEW."account_id" END);
  RETURN NULL;
END $fn$;
CREATE OR REPLACE TRIGGER touch_owner AFTER INSERT OR UPDATE OR DELETE ON "app"."accounts_settings"
  FOR EACH ROW EXECUTE FUNCTION "app"."accounts_settings_touch_owner"();

CREATE OR REPLACE FUNCTION "app"."labels_write_rules"() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NULL;
  ELSE
    IF NEW."slug" IS DISTINCT FROM OLD."slug" THEN
      PERFORM lib.refuse('PT400', 'primary key "slug" cannot be changed', 'slug', 'primary');
    END IF;
  END IF;
  NEW._rev := gen_random_uuid();
  NEW._modified_at := now();
  RETURN NEW;
END $fn$;
COMMENT ON FUNCTION "app"."labels_write_rules"() IS 'Write rules of app.labels: readOnly/immutable guards, modules, revision token.';
CREATE OR REPLACE TRIGGER write_rules BEFORE INSERT OR UPDATE ON "app"."labels" FOR EACH ROW EXECUTE FUNCTION "app"."labels_write_rules"();

-- Change log: each written row appended to lib.changes (design 9) -------------------------------

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."accounts"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Account', 'id', 'entity', '_rev', '{"password"}');

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."accounts_labels"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Account', 'account_id', 'join', '_rev', '{}');

DROP TRIGGER IF EXISTS changes ON "app"."accounts_settings";  -- logged as its owner's update

CREATE OR REPLACE TRIGGER changes AFTER INSERT OR UPDATE OR DELETE ON "app"."labels"
  FOR EACH ROW EXECUTE FUNCTION lib.log_change('Label', 'slug', 'entity', '_rev', '{}');

-- Change log: how long each table's rows are kept (record history, design 9) --------------------

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('accounts', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('accounts_labels', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

INSERT INTO lib.changes_keep (table_name, keep_seconds) VALUES ('labels', 0)
  ON CONFLICT (table_name) DO UPDATE SET keep_seconds = EXCLUDED.keep_seconds;

UPDATE lib.changes_keep SET keep_seconds = 0 WHERE keep_seconds IS DISTINCT FROM 0
  AND table_name <> ALL (ARRAY['accounts', 'accounts_labels', 'labels']::text[]);

-- Files: claim of file references, outbox of replaced and deleted files -------------------------

DROP TRIGGER IF EXISTS files ON "app"."accounts";
DROP TRIGGER IF EXISTS files_gone ON "app"."accounts";
DROP FUNCTION IF EXISTS "app"."accounts_files"();
DROP FUNCTION IF EXISTS "app"."accounts_files_gone"();

DROP TRIGGER IF EXISTS files ON "app"."accounts_labels";
DROP TRIGGER IF EXISTS files_gone ON "app"."accounts_labels";
DROP FUNCTION IF EXISTS "app"."accounts_labels_files"();
DROP FUNCTION IF EXISTS "app"."accounts_labels_files_gone"();

DROP TRIGGER IF EXISTS files ON "app"."accounts_settings";
DROP TRIGGER IF EXISTS files_gone ON "app"."accounts_settings";
DROP FUNCTION IF EXISTS "app"."accounts_settings_files"();
DROP FUNCTION IF EXISTS "app"."accounts_settings_files_gone"();

DROP TRIGGER IF EXISTS files ON "app"."labels";
DROP TRIGGER IF EXISTS files_gone ON "app"."labels";
DROP FUNCTION IF EXISTS "app"."labels_files"();
DROP FUNCTION IF EXISTS "app"."labels_files_gone"();

-- Privileges of the request roles ---------------------------------------------------------------

REVOKE ALL ON "app"."accounts" FROM anon, authenticated;
GRANT SELECT ("id", "email", "_rev", "_modified_at") ON "app"."accounts" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."accounts" TO anon, authenticated;

REVOKE ALL ON "app"."accounts_labels" FROM anon, authenticated;
GRANT SELECT ("account_id", "label_slug", "role", "_rev", "_modified_at") ON "app"."accounts_labels" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."accounts_labels" TO anon, authenticated;
GRANT SELECT (xmax) ON "app"."accounts_labels" TO anon, authenticated;

REVOKE ALL ON "app"."accounts_settings" FROM anon, authenticated;
GRANT SELECT ("account_id", "theme", "_rev", "_modified_at") ON "app"."accounts_settings" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."accounts_settings" TO anon, authenticated;

REVOKE ALL ON "app"."labels" FROM anon, authenticated;
GRANT SELECT ("slug", "name", "_rev", "_modified_at") ON "app"."labels" TO anon, authenticated;
GRANT INSERT, UPDATE, DELETE ON "app"."labels" TO anon, authenticated;

-- API functions: compiled per table and action, filter fields, the manifest ---------------------

INSERT INTO lib.fields (tbl, fields) VALUES ('accounts', '{
  "pk": "id",
  "columns": {
    "id": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "email": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false,"email":true},
    "password": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":false,"search":false}
  }
}'::jsonb)
  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;

INSERT INTO lib.manifest_resources (entity, resource) VALUES ('Account', '{
  "entity": "Account",
  "collection": "accounts",
  "table": "accounts",
  "primaryKey": "id",
  "softDelete": false,
  "properties": {
    "id": {"type":"String","primary":true,"readOnly":true},
    "email": {"type":"String","required":true},
    "password": {"type":"String","writeOnly":true}
  },
  "relations": {
    "labels": {
      "kind": "manyToMany",
      "target": "Label",
      "table": "accounts_labels",
      "functions": {"list":"accounts_labels_list","link":"accounts_labels_link","unlink":"accounts_labels_unlink"},
      "ownerColumn": "account_id",
      "targetColumn": "label_slug",
      "edge": {"role":{}},
      "schemas": {
        "link": {"type":"object","properties":{"role":{"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]}},"additionalProperties":false}
      }
    },
    "settings": {
      "kind": "oneToOne",
      "table": "accounts_settings",
      "functions": {"read":"accounts_settings_read","replace":"accounts_settings_replace"},
      "ownerColumn": "account_id",
      "properties": {"theme":{"type":"String"}},
      "schemas": {
        "replace": {
          "type": "object",
          "properties": {"theme":{"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]}},
          "additionalProperties": false
        },
        "read": {
          "type": "object",
          "properties": {
            "account_id": {"type":"string","maxLength":255,"readOnly":true},
            "theme": {"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]}
          }
        }
      }
    }
  },
  "embeds": {"labels":{"kind":"manyToMany","target":"Label","relation":"labels"},"settings":{"kind":"oneToOne","relation":"settings"}},
  "functions": {
    "list": "accounts_list",
    "search": "accounts_search",
    "read": "accounts_read",
    "create": "accounts_create",
    "replace": "accounts_replace",
    "patch": "accounts_patch",
    "delete": "accounts_delete",
    "stream": "accounts_stream"
  },
  "schemas": {
    "$defs": {"email":{"type":"string","maxLength":255},"password":{"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]}},
    "create": {
      "type": "object",
      "properties": {"email":{"$ref":"#/$defs/email"},"password":{"$ref":"#/$defs/password"}},
      "required": ["email"],
      "additionalProperties": false
    },
    "replace": {
      "type": "object",
      "properties": {"email":{"$ref":"#/$defs/email"},"password":{"$ref":"#/$defs/password"}},
      "required": ["email"],
      "additionalProperties": false
    },
    "patch": {"type":"object","properties":{"email":{"$ref":"#/$defs/email"},"password":{"$ref":"#/$defs/password"}},"additionalProperties":false},
    "read": {"type":"object","properties":{"id":{"type":"string","maxLength":255,"readOnly":true},"email":{"type":"string","maxLength":255}}}
  },
  "constraints": {
    "accounts_pkey": {"property":"id","rule":"primary"},
    "accounts_email_email": {"property":"email","rule":"email"},
    "accounts_email_key": {"property":"email","rule":"unique"},
    "accounts_password_password": {"property":"password","rule":"Password"},
    "accounts_labels_pkey": {"property":"labels","rule":"primary"},
    "accounts_labels_account_id_fkey": {"property":"account_id","rule":"references"},
    "accounts_labels_label_slug_fkey": {"property":"label_slug","rule":"references"},
    "accounts_settings_pkey": {"property":"account_id","rule":"primary"},
    "accounts_settings_account_id_fkey": {"property":"account_id","rule":"references"}
  }
}'::jsonb)
  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;

SELECT meta.drop_if_returns('"app"."accounts_page"(text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION "app"."accounts_page"(_action text, args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', _action, "app"."accounts_access"(_action), 'Account');
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
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('accounts'), args -> 'filter', '{filter}');
  _keys := lib.sort_keys(lib.fields('accounts'), _sort);
  IF args ? 'after' OR _before THEN
    _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);
    args := args || jsonb_build_object('cursor', _cursor);
  END IF;
  _offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;
  PERFORM lib.statement_params(args, _parent, _per_page, _offset);
  IF (coalesce(args -> 'joined', '{}'::jsonb) || coalesce(args -> 'embed', '{}'::jsonb)) ? 'labels' THEN
    PERFORM set_config('request.scenario.labels', coalesce("app"."labels_access"('read'), chr(1)), true);
  END IF;
  _total := lib.page_total(_count, $q$SELECT count(*) FROM "app"."accounts" t WHERE $q$ || _where,
    $q$SELECT count(*) FROM "app"."accounts" t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE $q$ || _where,
    '"app"."accounts"'::regclass, 1000);
  _few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;
  IF _few AND (_total ->> 'total')::bigint <= _offset THEN
    _page_rows := ('[]', '[]')::lib.page_rows;
  ELSE
    _sql := $q$SELECT coalesce(json_agg($q$ || CASE WHEN args ? 'embed'
      THEN $q$(left(((SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."email" AS "email") r))::text, -1)
      || (CASE WHEN $1 -> 'embed' ? 'labels' THEN ',"labels":' || coalesce((
        (
          SELECT coalesce(json_agg(t_0_r.v ORDER BY t_0_r.k), '[]'::json)
          FROM (
            SELECT (left(((SELECT row_to_json(r) FROM (SELECT t_0."slug" AS "slug", t_0."name" AS "name") r))::text, -1)
              || ',"edge":' || coalesce((
                (SELECT row_to_json(r) FROM (SELECT t_0_j."role" AS "role") r)
              )::text, 'null')
              || '}')::json AS v, t_0."slug" AS k
            FROM "app"."accounts_labels" t_0_j JOIN "app"."labels" t_0 ON t_0."slug" = t_0_j."label_slug"
            WHERE t_0_j."account_id" = t."id"
            ORDER BY t_0."slug" LIMIT ($1 ->> 'embed_limit')::integer
          ) t_0_r
        )
      )::text, 'null') ELSE '' END
        || CASE WHEN $1 -> 'embed' ? 'settings' THEN ',"settings":' || coalesce((
          coalesce((
            SELECT (SELECT row_to_json(r) FROM (SELECT t_1."account_id" AS "account_id", t_1."theme" AS "theme") r)
            FROM "app"."accounts_settings" t_1
            WHERE t_1."account_id" = t."id"
          ), (SELECT row_to_json(r) FROM (SELECT t."id" AS "account_id", NULL::text AS "theme") r))
        )::text, 'null') ELSE '' END)
      || '}')::json$q$ ELSE $q$(SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."email" AS "email") r)$q$ END || $q$), '[]'), coalesce(jsonb_agg($q$
        || lib.keys_sql(_keys) || $q$), '[]')
      FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END
      || $q$t."id", t."email", t._rev, t._modified_at
        FROM "app"."accounts" t WHERE $q$ || _where
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
  RETURN json_build_object('meta', _meta, 'scenario', ("app"."accounts_scenario"(_scenario))[1], 'data_bytes', octet_length(_rows::text), 'data', _rows);
END $fn$;
COMMENT ON FUNCTION "app"."accounts_page"(text, jsonb)
  IS 'A page of Account records for list and search: filters and sort from the request, offset or keyset paging, '
    'total by count mode (spec 5.2 FETCH under the policies).';

SELECT meta.drop_if_returns('"api"."accounts_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_list"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."accounts_page"('list', args) $fn$;
COMMENT ON FUNCTION "api"."accounts_list"(jsonb) IS 'list Account: a page, app.accounts_page(''list'', args).';

SELECT meta.drop_if_returns('"api"."accounts_search"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_search"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."accounts_page"('search', args) $fn$;
COMMENT ON FUNCTION "api"."accounts_search"(jsonb) IS 'search Account: a page, app.accounts_page(''search'', args).';

SELECT meta.drop_if_returns('"api"."accounts_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'read', "app"."accounts_access"('read'), 'Account');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _result json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  IF args -> 'embed' ? 'labels' THEN
    PERFORM set_config('request.scenario.labels', coalesce("app"."labels_access"('read'), chr(1)), true);
  END IF;
  IF args ? 'embed' THEN
    SELECT json_build_object(
      'data', (left(((SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."email" AS "email") r))::text, -1)
        || (CASE WHEN args -> 'embed' ? 'labels' THEN ',"labels":' || coalesce((
          (
            SELECT coalesce(json_agg(t_0_r.v ORDER BY t_0_r.k), '[]'::json)
            FROM (
              SELECT (left(((SELECT row_to_json(r) FROM (SELECT t_0."slug" AS "slug", t_0."name" AS "name") r))::text, -1)
                || ',"edge":' || coalesce((
                  (SELECT row_to_json(r) FROM (SELECT t_0_j."role" AS "role") r)
                )::text, 'null')
                || '}')::json AS v, t_0."slug" AS k
              FROM "app"."accounts_labels" t_0_j JOIN "app"."labels" t_0 ON t_0."slug" = t_0_j."label_slug"
              WHERE t_0_j."account_id" = t."id"
              ORDER BY t_0."slug" LIMIT (args ->> 'embed_limit')::integer
            ) t_0_r
          )
        )::text, 'null') ELSE '' END
          || CASE WHEN args -> 'embed' ? 'settings' THEN ',"settings":' || coalesce((
            coalesce((
              SELECT (SELECT row_to_json(r) FROM (SELECT t_1."account_id" AS "account_id", t_1."theme" AS "theme") r)
              FROM "app"."accounts_settings" t_1
              WHERE t_1."account_id" = t."id"
            ), (SELECT row_to_json(r) FROM (SELECT t."id" AS "account_id", NULL::text AS "theme") r))
          )::text, 'null') ELSE '' END)
        || '}')::json,
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."accounts_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."accounts" t
    WHERE t."id" = _key;
  ELSE
    SELECT json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."email" AS "email") r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."accounts_scenario"(_scenario))[1]
    ) INTO _result
    FROM "app"."accounts" t
    WHERE t."id" = _key;
  END IF;
  IF _result IS NULL THEN
    IF args ? 'answer_refusal' THEN RETURN "app"."accounts_refusal"('read', _key, _parent); END IF;
    PERFORM "app"."accounts_refuse"('read', _key, _parent);
  END IF;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('Account', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."accounts_read"(jsonb) IS 'read one Account';

SELECT meta.drop_if_returns('"api"."accounts_create"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_create"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'create', "app"."accounts_access"('create'), 'Account');
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _result json;
  _about text[];
BEGIN
  PERFORM lib.check_body(_body, ARRAY['email', 'password']::text[], ARRAY['id']::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  BEGIN
    INSERT INTO "app"."accounts" AS t ("email", "password")
    SELECT CASE WHEN _body ? 'email' THEN r."email" ELSE NULL END,
      CASE WHEN _body ? 'password' THEN r."password" ELSE NULL END
    FROM jsonb_populate_record(NULL::"app"."accounts", _body) r
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."email" AS "email") r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."accounts_scenario"(_scenario))[1]
    ) INTO _result;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    _about := "app"."accounts_scenario"(_scenario);
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], 'Account'),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;
  END;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."accounts_create"(jsonb) IS 'create a Account';

SELECT meta.drop_if_returns('"app"."accounts_update"(jsonb, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."accounts_update"(args jsonb, _patch boolean) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'update', "app"."accounts_access"('update'), 'Account');
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
  PERFORM lib.check_body(_body, ARRAY['email', 'password']::text[], ARRAY['id']::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  IF _body ? 'id' AND _body ->> 'id' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('primary key "id" cannot be changed', 'id', 'primary');
  END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  IF _body ? 'password' THEN
    UPDATE "app"."accounts" t SET
      "email" = CASE WHEN _body ? 'email' THEN r."email" WHEN _patch THEN t."email" ELSE NULL END,
      "password" = r."password"
    FROM jsonb_populate_record(NULL::"app"."accounts", _body) r
    WHERE t."id" = _key
      AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
      AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."email" AS "email") r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."accounts_scenario"(_scenario))[1]
    ) INTO _result;
  ELSE
    UPDATE "app"."accounts" t SET
      "email" = CASE WHEN _body ? 'email' THEN r."email" WHEN _patch THEN t."email" ELSE NULL END
    FROM jsonb_populate_record(NULL::"app"."accounts", _body) r
    WHERE t."id" = _key
      AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
      AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."email" AS "email") r),
      'id', t."id"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."accounts_scenario"(_scenario))[1]
    ) INTO _result;
  END IF;
  IF _result IS NULL THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."accounts" t
    WHERE t."id" = _key;
    IF NOT FOUND THEN
      PERFORM "app"."accounts_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false));
    END IF;
    PERFORM "app"."accounts_deny"('update', _key);
    PERFORM lib.precondition_failed('Account', _etag, _modified, args, _expected);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "app"."accounts_update"(jsonb, boolean) IS 'Update a Account: replace (PUT) when _patch is false, else patch (PATCH).';

SELECT meta.drop_if_returns('"api"."accounts_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_replace"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."accounts_update"(args, false) $fn$;
COMMENT ON FUNCTION "api"."accounts_replace"(jsonb) IS 'replace (PUT) a Account: app.accounts_update(args, false).';

SELECT meta.drop_if_returns('"api"."accounts_patch"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_patch"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."accounts_update"(args, true) $fn$;
COMMENT ON FUNCTION "api"."accounts_patch"(jsonb) IS 'patch (PATCH) a Account: app.accounts_update(args, true).';

CREATE OR REPLACE FUNCTION "api"."accounts_delete"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'delete', "app"."accounts_access"('delete'), 'Account');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  DELETE FROM "app"."accounts" t WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since);
  IF NOT FOUND THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."accounts" t
    WHERE t."id" = _key;
    IF NOT FOUND THEN
      PERFORM "app"."accounts_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false));
    END IF;
    PERFORM "app"."accounts_deny"('delete', _key);
    PERFORM lib.precondition_failed('Account', _etag, _modified, args, _expected);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."accounts_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."accounts_delete"(jsonb) IS 'delete a Account';

SELECT meta.drop_if_returns('"api"."accounts_stream"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_stream"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'list', "app"."accounts_access"('list'), 'Account');
  _parent text := args ->> 'parent';
  _where text;
  _sql text;
  _visible json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('accounts'), args -> 'filter', '{filter}');
  IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;
  PERFORM lib.statement_params(args, _parent, 0, 0);
  IF coalesce(args -> 'joined', '{}'::jsonb) ? 'labels' THEN
    PERFORM set_config('request.scenario.labels', coalesce("app"."labels_access"('read'), chr(1)), true);
  END IF;
  _sql := $q$SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')
  FROM "app"."accounts_changes"(
    ($1 ->> 'after_tx')::xid8,
    ($1 ->> 'after_id')::bigint,
    ($1 ->> 'before')::xid8,
    ($1 ->> 'limit')::integer
  ) c$q$
    || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."accounts", c.image) t WHERE $q$ || _where END;
  _visible := lib.query_generic(_sql, NULL::json);
  RETURN json_build_object('data', _visible);
END $fn$;
COMMENT ON FUNCTION "api"."accounts_stream"(jsonb)
  IS 'which changes of Account (and its links) past a position the caller may list, narrowed by the list''s filters and parent (design 9)';

DROP FUNCTION IF EXISTS "app"."accounts_versions"(text, text, text, integer, bigint);  -- no history kept

SELECT meta.drop_if_returns('"api"."accounts_labels_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_labels_list"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'read', "app"."accounts_access"('read'), 'Account');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _page int := lib.page(args);
  _per_page int := lib.per_page(args);
  _total bigint;
  _rows json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  PERFORM "app"."accounts_require"(_key, 'read');
  SELECT count(*) INTO _total FROM "app"."accounts_labels" j JOIN "app"."labels" t ON t."slug" = j."label_slug"
      WHERE j."account_id" = _key;
  SELECT coalesce(json_agg((left(((SELECT row_to_json(r) FROM (SELECT x."slug" AS "slug", x."name" AS "name") r))::text, -1)
    || ',"edge":' || coalesce((x.edge)::text, 'null')
    || '}')::json), '[]') INTO _rows FROM (
    SELECT t."slug", t."name", t._rev, t._modified_at, (SELECT row_to_json(r) FROM (SELECT j."role" AS "role") r) AS edge FROM "app"."accounts_labels" j
      JOIN "app"."labels" t ON t."slug" = j."label_slug"
        WHERE j."account_id" = _key
    ORDER BY t."slug" LIMIT _per_page OFFSET (_page - 1)::bigint * _per_page) x;
  RETURN json_build_object('data', _rows, 'meta', json_build_object('total', _total, 'count', 'exact', 'page', _page, 'per_page', _per_page), 'scenario',
      ("app"."accounts_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."accounts_labels_list"(jsonb) IS 'list linked records: Account.labels';

CREATE OR REPLACE FUNCTION "api"."accounts_labels_link"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'link', "app"."accounts_access"('link'), 'Account');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _target text := args ->> 'target';
  _body jsonb := coalesce(args -> 'body', '{}'::jsonb);
  _edge jsonb;
  _created boolean;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  PERFORM "app"."accounts_require"(_key, 'link');
  PERFORM "app"."labels_require"(_target, 'read');
  PERFORM lib.check_edge(_body, ARRAY['role']::text[]);
  IF args ? 'if_match' THEN
    PERFORM 1 FROM "app"."accounts_labels" j WHERE j."account_id" = _key AND j."label_slug" = _target FOR UPDATE;
    IF NOT (FOUND AND (args -> 'if_match') ? '*') THEN
      PERFORM lib.link_precondition_failed(
        format(
          'If-Match: %s "%s" and %s "%s" are not linked, or a link has no ETag (only * matches an existing link)',
          'Account',
          _key,
          'Label',
          _target
        ),
        args -> 'if_match'
      );
    END IF;
  END IF;
  INSERT INTO "app"."accounts_labels" AS j ("account_id", "label_slug", "role") VALUES (_key, _target, _body ->> 'role')
  ON CONFLICT ("account_id", "label_slug") DO UPDATE SET _rev = gen_random_uuid(), "role" = EXCLUDED."role"
  RETURNING jsonb_build_object('role', j."role"), j.xmax = 0 INTO _edge, _created;
  RETURN jsonb_build_object('data', jsonb_build_object('account_id', _key, 'label_slug', _target) || _edge,
    'created', _created) || jsonb_build_object('scenario', ("app"."accounts_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."accounts_labels_link"(jsonb) IS 'link a record: Account.labels';

CREATE OR REPLACE FUNCTION "api"."accounts_labels_unlink"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'unlink', "app"."accounts_access"('unlink'), 'Account');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _target text := args ->> 'target';
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  PERFORM "app"."accounts_require"(_key, 'unlink');
  IF args ? 'if_match' AND NOT (args -> 'if_match') ? '*'
    AND EXISTS (SELECT 1 FROM "app"."accounts_labels" j WHERE j."account_id" = _key AND j."label_slug" = _target) THEN
    PERFORM lib.link_precondition_failed(
      format(
        'If-Match: %s "%s" and %s "%s" are linked, and a link has no ETag (only * matches it)',
        'Account',
        _key,
        'Label',
        _target
      ),
      args -> 'if_match'
    );
  END IF;
  DELETE FROM "app"."accounts_labels" j WHERE j."account_id" = _key
    AND j."label_slug" = _target;
  IF NOT FOUND THEN
    PERFORM lib.refuse('PT404', format('%s "%s" is not linked to %s "%s"', 'Label', _target, 'Account', _key), NULL, NULL);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."accounts_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."accounts_labels_unlink"(jsonb) IS 'unlink a record: Account.labels';

SELECT meta.drop_if_returns('"api"."accounts_settings_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_settings_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'read', "app"."accounts_access"('read'), 'Account');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _row json;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  PERFORM "app"."accounts_require"(_key, 'read');
  SELECT (SELECT row_to_json(r) FROM (SELECT t."account_id" AS "account_id", t."theme" AS "theme") r) INTO _row FROM "app"."accounts_settings" t
    WHERE t."account_id" = _key;
  -- Never written: every property null.
  _row := coalesce(_row, (SELECT row_to_json(r) FROM (SELECT _key AS "account_id", NULL::text AS "theme") r));
  SELECT t._rev::text, t._modified_at INTO _etag, _modified FROM "app"."accounts" t WHERE t."id" = _key;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('Account', _etag, _modified, args);
  END IF;
  RETURN json_build_object('data', _row, 'id', _key, 'etag', _etag, 'last_modified', _modified, 'scenario', ("app"."accounts_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."accounts_settings_read"(jsonb) IS 'read the sub-resource Account.settings';

SELECT meta.drop_if_returns('"api"."accounts_settings_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."accounts_settings_replace"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('accounts', 'update', "app"."accounts_access"('update'), 'Account');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _row json;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  PERFORM "app"."accounts_require"(_key, 'update');
  PERFORM lib.check_body(_body, ARRAY['account_id', 'theme']::text[], ARRAY[]::text[]);
  IF _body ? 'account_id' AND _body ->> 'account_id' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('"account_id" is the owner''s key and cannot differ from the path', 'account_id', 'primary');
  END IF;
  _body := _body || jsonb_build_object('account_id', _key);
  _if_match := lib.if_match((args - 'body'));
  _since := lib.if_unmodified_since((args - 'body'));
  PERFORM FROM "app"."accounts" t WHERE t."id" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
    FOR UPDATE;
  IF NOT FOUND THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."accounts" t
    WHERE t."id" = _key;
    IF NOT FOUND THEN
      PERFORM "app"."accounts_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false));
    END IF;
    PERFORM "app"."accounts_deny"('update', _key);
    PERFORM lib.precondition_failed('Account', _etag, _modified, args, NULL);
  END IF;
  -- Omitted properties go back to their default.
  INSERT INTO "app"."accounts_settings" AS t ("account_id", "theme")
  SELECT CASE WHEN _body ? 'account_id' THEN r."account_id" ELSE NULL END,
      CASE WHEN _body ? 'theme' THEN r."theme" ELSE NULL END
  FROM jsonb_populate_record(NULL::"app"."accounts_settings", _body) r
  ON CONFLICT ("account_id") DO UPDATE SET "theme" = EXCLUDED."theme"
  RETURNING (SELECT row_to_json(r) FROM (SELECT t."account_id" AS "account_id", t."theme" AS "theme") r) INTO _row;
  SELECT t._rev::text, t._modified_at INTO _etag, _modified FROM "app"."accounts" t WHERE t."id" = _key;
  RETURN json_build_object('data', _row, 'id', _key, 'etag', _etag, 'last_modified', _modified, 'scenario', ("app"."accounts_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."accounts_settings_replace"(jsonb) IS 'replace the sub-resource Account.settings';

INSERT INTO lib.fields (tbl, fields) VALUES ('labels', '{
  "pk": "slug",
  "columns": {
    "slug": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false},
    "name": {"type":"character varying","kind":"String","multiple":false,"json":false,"readable":true,"search":false}
  }
}'::jsonb)
  ON CONFLICT (tbl) DO UPDATE SET fields = EXCLUDED.fields;

INSERT INTO lib.manifest_resources (entity, resource) VALUES ('Label', '{
  "entity": "Label",
  "collection": "labels",
  "table": "labels",
  "primaryKey": "slug",
  "softDelete": false,
  "properties": {"slug":{"type":"String","primary":true,"immutable":true},"name":{"type":"String"}},
  "relations": {},
  "functions": {
    "list": "labels_list",
    "search": "labels_search",
    "read": "labels_read",
    "create": "labels_create",
    "replace": "labels_replace",
    "patch": "labels_patch",
    "delete": "labels_delete",
    "stream": "labels_stream"
  },
  "schemas": {
    "$defs": {
      "slug": {"anyOf":[{"type":"string","minLength":1,"maxLength":255},{"type":"null"}]},
      "name": {"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]}
    },
    "create": {"type":"object","properties":{"slug":{"$ref":"#/$defs/slug"},"name":{"$ref":"#/$defs/name"}},"additionalProperties":false},
    "replace": {"type":"object","properties":{"slug":{"$ref":"#/$defs/slug"},"name":{"$ref":"#/$defs/name"}},"additionalProperties":false},
    "patch": {"type":"object","properties":{"slug":{"$ref":"#/$defs/slug"},"name":{"$ref":"#/$defs/name"}},"additionalProperties":false},
    "read": {
      "type": "object",
      "properties": {"slug":{"type":"string","minLength":1,"maxLength":255},"name":{"anyOf":[{"type":"string","maxLength":255},{"type":"null"}]}}
    }
  },
  "constraints": {"labels_pkey":{"property":"slug","rule":"primary"}}
}'::jsonb)
  ON CONFLICT (entity) DO UPDATE SET resource = EXCLUDED.resource;

SELECT meta.drop_if_returns('"app"."labels_page"(text, jsonb)', 'json');
CREATE OR REPLACE FUNCTION "app"."labels_page"(_action text, args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('labels', _action, "app"."labels_access"(_action), 'Label');
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
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Label has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('labels'), args -> 'filter', '{filter}');
  _keys := lib.sort_keys(lib.fields('labels'), _sort);
  IF args ? 'after' OR _before THEN
    _cursor := lib.cursor_keys(coalesce(args ->> 'after', args ->> 'before'), _keys, _sort);
    args := args || jsonb_build_object('cursor', _cursor);
  END IF;
  _offset := CASE WHEN _cursor IS NULL THEN (_page - 1)::bigint * _per_page ELSE 0 END;
  PERFORM lib.statement_params(args, _parent, _per_page, _offset);
  _total := lib.page_total(_count, $q$SELECT count(*) FROM "app"."labels" t WHERE $q$ || _where,
    $q$SELECT count(*) FROM "app"."labels" t TABLESAMPLE SYSTEM (current_setting('request.q.sample')::real) WHERE $q$ || _where,
    '"app"."labels"'::regclass, 1000);
  _few := _total ->> 'count' = 'exact' AND (_total ->> 'total')::bigint <= _offset + _per_page;
  IF _few AND (_total ->> 'total')::bigint <= _offset THEN
    _page_rows := ('[]', '[]')::lib.page_rows;
  ELSE
    _sql := $q$SELECT coalesce(json_agg((SELECT row_to_json(r) FROM (SELECT t."slug" AS "slug", t."name" AS "name") r)), '[]'), coalesce(jsonb_agg($q$
      || lib.keys_sql(_keys) || $q$), '[]')
      FROM (SELECT $q$ || CASE WHEN _few THEN '* FROM (SELECT ' ELSE '' END
      || $q$t."slug", t."name", t._rev, t._modified_at
        FROM "app"."labels" t WHERE $q$ || _where
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
  RETURN json_build_object('meta', _meta, 'scenario', ("app"."labels_scenario"(_scenario))[1], 'data_bytes', octet_length(_rows::text), 'data', _rows);
END $fn$;
COMMENT ON FUNCTION "app"."labels_page"(text, jsonb)
  IS 'A page of Label records for list and search: filters and sort from the request, offset or keyset paging, '
    'total by count mode (spec 5.2 FETCH under the policies).';

SELECT meta.drop_if_returns('"api"."labels_list"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."labels_list"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."labels_page"('list', args) $fn$;
COMMENT ON FUNCTION "api"."labels_list"(jsonb) IS 'list Label: a page, app.labels_page(''list'', args).';

SELECT meta.drop_if_returns('"api"."labels_search"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."labels_search"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."labels_page"('search', args) $fn$;
COMMENT ON FUNCTION "api"."labels_search"(jsonb) IS 'search Label: a page, app.labels_page(''search'', args).';

SELECT meta.drop_if_returns('"api"."labels_read"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."labels_read"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('labels', 'read', "app"."labels_access"('read'), 'Label');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _result json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Label has no parent'); END IF;
  SELECT json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT t."slug" AS "slug", t."name" AS "name") r),
    'id', t."slug"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."labels_scenario"(_scenario))[1]
  ) INTO _result
  FROM "app"."labels" t
  WHERE t."slug" = _key;
  IF _result IS NULL THEN
    IF args ? 'answer_refusal' THEN RETURN "app"."labels_refusal"('read', _key, _parent); END IF;
    PERFORM "app"."labels_refuse"('read', _key, _parent);
  END IF;
  IF args ? 'if_match' OR args ? 'if_unmodified_since' THEN
    PERFORM lib.precondition_check('Label', _result ->> 'etag', (_result ->> 'last_modified')::timestamptz, args);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."labels_read"(jsonb) IS 'read one Label';

SELECT meta.drop_if_returns('"api"."labels_create"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."labels_create"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('labels', 'create', "app"."labels_access"('create'), 'Label');
  _parent text := args ->> 'parent';
  _body jsonb := args -> 'body';
  _result json;
  _about text[];
BEGIN
  PERFORM lib.check_body(_body, ARRAY['slug', 'name']::text[], ARRAY[]::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Label has no parent'); END IF;
  BEGIN
    INSERT INTO "app"."labels" AS t ("slug", "name")
    SELECT CASE WHEN _body ? 'slug' THEN r."slug" ELSE gen_random_uuid()::text END,
      CASE WHEN _body ? 'name' THEN r."name" ELSE NULL END
    FROM jsonb_populate_record(NULL::"app"."labels", _body) r
    RETURNING json_build_object(
      'data', (SELECT row_to_json(r) FROM (SELECT t."slug" AS "slug", t."name" AS "name") r),
      'id', t."slug"::text,
      'etag', t._rev::text,
      'last_modified', t._modified_at,
      'scenario', ("app"."labels_scenario"(_scenario))[1]
    ) INTO _result;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    _about := "app"."labels_scenario"(_scenario);
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('Scenario "%s" does not allow you to create this %s.', _about[1], 'Label'),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', nullif(_about[3], ''))::text;
  END;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "api"."labels_create"(jsonb) IS 'create a Label';

SELECT meta.drop_if_returns('"app"."labels_update"(jsonb, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."labels_update"(args jsonb, _patch boolean) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('labels', 'update', "app"."labels_access"('update'), 'Label');
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
  PERFORM lib.check_body(_body, ARRAY['slug', 'name']::text[], ARRAY[]::text[]);
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Label has no parent'); END IF;
  IF _body ? 'slug' AND _body ->> 'slug' IS DISTINCT FROM _key THEN
    PERFORM lib.bad_request('primary key "slug" cannot be changed', 'slug', 'primary');
  END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  UPDATE "app"."labels" t SET
    "name" = CASE WHEN _body ? 'name' THEN r."name" WHEN _patch THEN t."name" ELSE NULL END
  FROM jsonb_populate_record(NULL::"app"."labels", _body) r
  WHERE t."slug" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since)
  RETURNING json_build_object(
    'data', (SELECT row_to_json(r) FROM (SELECT t."slug" AS "slug", t."name" AS "name") r),
    'id', t."slug"::text,
    'etag', t._rev::text,
    'last_modified', t._modified_at,
    'scenario', ("app"."labels_scenario"(_scenario))[1]
  ) INTO _result;
  IF _result IS NULL THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."labels" t
    WHERE t."slug" = _key;
    IF NOT FOUND THEN
      PERFORM "app"."labels_refuse"('update', _key, _parent, coalesce('*' = ANY (_if_match), false));
    END IF;
    PERFORM "app"."labels_deny"('update', _key);
    PERFORM lib.precondition_failed('Label', _etag, _modified, args, _expected);
  END IF;
  RETURN _result;
END $fn$;
COMMENT ON FUNCTION "app"."labels_update"(jsonb, boolean) IS 'Update a Label: replace (PUT) when _patch is false, else patch (PATCH).';

SELECT meta.drop_if_returns('"api"."labels_replace"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."labels_replace"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."labels_update"(args, false) $fn$;
COMMENT ON FUNCTION "api"."labels_replace"(jsonb) IS 'replace (PUT) a Label: app.labels_update(args, false).';

SELECT meta.drop_if_returns('"api"."labels_patch"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."labels_patch"(args jsonb) RETURNS json LANGUAGE sql AS $fn$ SELECT "app"."labels_update"(args, true) $fn$;
COMMENT ON FUNCTION "api"."labels_patch"(jsonb) IS 'patch (PATCH) a Label: app.labels_update(args, true).';

CREATE OR REPLACE FUNCTION "api"."labels_delete"(args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('labels', 'delete', "app"."labels_access"('delete'), 'Label');
  _key text := args ->> 'id';
  _parent text := args ->> 'parent';
  _if_match text[];
  _since timestamptz;
  _expected numeric;
  _etag text;
  _modified timestamptz;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Label has no parent'); END IF;
  _if_match := lib.if_match(args);
  _since := lib.if_unmodified_since(args);
  DELETE FROM "app"."labels" t WHERE t."slug" = _key
    AND (_if_match IS NULL OR '*' = ANY (_if_match) OR t._rev::text = ANY (_if_match))
    AND (_since IS NULL OR date_trunc('second', t._modified_at) <= _since);
  IF NOT FOUND THEN
    SELECT t._rev::text, t._modified_at INTO _etag, _modified
    FROM "app"."labels" t
    WHERE t."slug" = _key;
    IF NOT FOUND THEN
      PERFORM "app"."labels_refuse"('delete', _key, _parent, coalesce('*' = ANY (_if_match), false));
    END IF;
    PERFORM "app"."labels_deny"('delete', _key);
    PERFORM lib.precondition_failed('Label', _etag, _modified, args, _expected);
  END IF;
  RETURN jsonb_build_object('scenario', ("app"."labels_scenario"(_scenario))[1]);
END $fn$;
COMMENT ON FUNCTION "api"."labels_delete"(jsonb) IS 'delete a Label';

SELECT meta.drop_if_returns('"api"."labels_stream"(jsonb)', 'json');
CREATE OR REPLACE FUNCTION "api"."labels_stream"(args jsonb) RETURNS json LANGUAGE plpgsql AS $fn$
DECLARE
  _scenario text := lib.enter('labels', 'list', "app"."labels_access"('list'), 'Label');
  _parent text := args ->> 'parent';
  _where text;
  _sql text;
  _visible json;
BEGIN
  IF _parent IS NOT NULL THEN PERFORM lib.bad_request('Label has no parent'); END IF;
  _where := lib.filter_sql(lib.fields('labels'), args -> 'filter', '{filter}');
  IF NOT args ? 'before' THEN RETURN json_build_object('data', '[]'::json); END IF;
  PERFORM lib.statement_params(args, _parent, 0, 0);
  _sql := $q$SELECT coalesce(json_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx, c.id), '[]')
  FROM "app"."labels_changes"(
    ($1 ->> 'after_tx')::xid8,
    ($1 ->> 'after_id')::bigint,
    ($1 ->> 'before')::xid8,
    ($1 ->> 'limit')::integer
  ) c$q$
    || CASE WHEN _where = 'true' THEN '' ELSE $q$ CROSS JOIN LATERAL jsonb_populate_record(NULL::"app"."labels", c.image) t WHERE $q$ || _where END;
  _visible := lib.query_generic(_sql, NULL::json);
  RETURN json_build_object('data', _visible);
END $fn$;
COMMENT ON FUNCTION "api"."labels_stream"(jsonb)
  IS 'which changes of Label (and its links) past a position the caller may list, narrowed by the list''s filters and parent (design 9)';

DROP FUNCTION IF EXISTS "app"."labels_versions"(text, text, text, integer, bigint);  -- no history kept

DELETE FROM lib.fields WHERE tbl <> ALL (ARRAY['accounts', 'labels']::text[]);

DELETE FROM lib.manifest_resources WHERE entity <> ALL (ARRAY['Account', 'Label']::text[]);

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
    PERFORM set_config('request.scenario.accounts', '', true),
      set_config('request.scenario.accounts_labels', '', true),
      set_config('request.scenario.accounts_settings', '', true),
      set_config('request.scenario.labels', '', true);
  END IF;
  _set := set_config('request.dispatched', 'yes', true);
  IF fn COLLATE "C" < 'accounts_stream' THEN
    IF fn COLLATE "C" < 'accounts_patch' THEN
      CASE fn
        WHEN 'accounts_create' THEN _result := "api"."accounts_create"(args);
        WHEN 'accounts_delete' THEN _result := "api"."accounts_delete"(args);
        WHEN 'accounts_labels_link' THEN _result := "api"."accounts_labels_link"(args);
        WHEN 'accounts_labels_list' THEN _result := "api"."accounts_labels_list"(args);
        WHEN 'accounts_labels_unlink' THEN _result := "api"."accounts_labels_unlink"(args);
        WHEN 'accounts_list' THEN _result := "api"."accounts_list"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    ELSE
      CASE fn
        WHEN 'accounts_patch' THEN _result := "api"."accounts_patch"(args);
        WHEN 'accounts_read' THEN _result := "api"."accounts_read"(args);
        WHEN 'accounts_replace' THEN _result := "api"."accounts_replace"(args);
        WHEN 'accounts_search' THEN _result := "api"."accounts_search"(args);
        WHEN 'accounts_settings_read' THEN _result := "api"."accounts_settings_read"(args);
        WHEN 'accounts_settings_replace' THEN _result := "api"."accounts_settings_replace"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    END IF;
  ELSE
    IF fn COLLATE "C" < 'labels_replace' THEN
      CASE fn
        WHEN 'accounts_stream' THEN _result := "api"."accounts_stream"(args);
        WHEN 'labels_create' THEN _result := "api"."labels_create"(args);
        WHEN 'labels_delete' THEN _result := "api"."labels_delete"(args);
        WHEN 'labels_list' THEN _result := "api"."labels_list"(args);
        WHEN 'labels_patch' THEN _result := "api"."labels_patch"(args);
        WHEN 'labels_read' THEN _result := "api"."labels_read"(args);
        ELSE PERFORM lib.refuse('PT404', format('no API function %s', fn), NULL, NULL);
      END CASE;
    ELSE
      CASE fn
        WHEN 'labels_replace' THEN _result := "api"."labels_replace"(args);
        WHEN 'labels_search' THEN _result := "api"."labels_search"(args);
        WHEN 'labels_stream' THEN _result := "api"."labels_stream"(args);
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
  "api": {"slug":"accounts","version":"v1","title":"Accounts","docsUrl":"https://docs.example.com","basePath":"/api/accounts/v1"},
  "resources": {}
}'::jsonb)

  ON CONFLICT (singleton) DO UPDATE SET manifest = EXCLUDED.manifest;

SELECT meta.drop_stale_functions(ARRAY['accounts_list', 'accounts_search', 'accounts_read', 'accounts_create', 'accounts_replace', 'accounts_patch',
    'accounts_delete', 'accounts_stream', 'accounts_labels_list', 'accounts_labels_link', 'accounts_labels_unlink', 'accounts_settings_read',
    'accounts_settings_replace', 'labels_list', 'labels_search', 'labels_read', 'labels_create', 'labels_replace', 'labels_patch', 'labels_delete',
    'labels_stream']::text[]);

GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA api TO anon, authenticated;

-- Access scenarios: PRE_FETCH functions and row-level security policies -------------------------

ALTER TABLE "app"."accounts" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('accounts');
CREATE OR REPLACE FUNCTION "app"."accounts_access"(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  CASE action
    WHEN 'list', 'search', 'read', 'create', 'update', 'delete', 'link', 'unlink' THEN RETURN CASE
      WHEN (SELECT auth.uid() IS NOT NULL) THEN 'Accounts manage themselves'
      WHEN (SELECT auth.roles() && ARRAY['admin']::text[]) THEN 'Admins'
    END;
    ELSE RETURN NULL;
  END CASE;
END $fn$;
COMMENT ON FUNCTION "app"."accounts_access"(text) IS 'PRE_FETCH for Account: the scenario that wins an action (first whose identity rules pass), or NULL.';
CREATE POLICY "Accounts manage themselves [select]" ON "app"."accounts"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('accounts'), "app"."accounts_access"(lib.action())) = 'Accounts manage themselves')
    AND (
      (SELECT auth.uid() IS NOT NULL)
      AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("id" = (SELECT auth.uid())))
    )
  );
COMMENT ON POLICY "Accounts manage themselves [select]" ON "app"."accounts"
  IS 'Scenario "Accounts manage themselves"; list (entity), search (entity), read (entity), create (entity), update (entity), delete (entity), link (entity), '
    'unlink (entity)';
CREATE POLICY "Admins [select]" ON "app"."accounts"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('accounts'), "app"."accounts_access"(lib.action())) = 'Admins')
    AND (SELECT auth.roles() && ARRAY['admin']::text[])
  );
COMMENT ON POLICY "Admins [select]" ON "app"."accounts"
  IS 'Scenario "Admins"; list (api), search (api), read (api), create (api), update (api), delete (api), link (api), unlink (api)';
CREATE POLICY "Accounts manage themselves [insert]" ON "app"."accounts"
  AS PERMISSIVE FOR INSERT TO anon, authenticated
  WITH CHECK (
    (SELECT coalesce(lib.scenario('accounts'), "app"."accounts_access"(lib.action())) = 'Accounts manage themselves')
    AND ((SELECT auth.uid() IS NOT NULL) AND ("id" = (SELECT auth.uid())))
  );
COMMENT ON POLICY "Accounts manage themselves [insert]" ON "app"."accounts" IS 'Scenario "Accounts manage themselves"; create (entity)';
CREATE POLICY "Admins [insert]" ON "app"."accounts"
  AS PERMISSIVE FOR INSERT TO anon, authenticated
  WITH CHECK (
    (SELECT coalesce(lib.scenario('accounts'), "app"."accounts_access"(lib.action())) = 'Admins')
    AND (SELECT auth.roles() && ARRAY['admin']::text[])
  );
COMMENT ON POLICY "Admins [insert]" ON "app"."accounts" IS 'Scenario "Admins"; create (api)';
CREATE POLICY "Accounts manage themselves [update]" ON "app"."accounts"
  AS PERMISSIVE FOR UPDATE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('accounts'), "app"."accounts_access"(lib.action())) = 'Accounts manage themselves')
    AND ((SELECT auth.uid() IS NOT NULL) AND ("id" = (SELECT auth.uid())))
  )
  WITH CHECK (true);
COMMENT ON POLICY "Accounts manage themselves [update]" ON "app"."accounts" IS 'Scenario "Accounts manage themselves"; update (entity)';
CREATE POLICY "Admins [update]" ON "app"."accounts"
  AS PERMISSIVE FOR UPDATE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('accounts'), "app"."accounts_access"(lib.action())) = 'Admins')
    AND (SELECT auth.roles() && ARRAY['admin']::text[])
  )
  WITH CHECK (true);
COMMENT ON POLICY "Admins [update]" ON "app"."accounts" IS 'Scenario "Admins"; update (api)';
CREATE POLICY "Accounts manage themselves [delete]" ON "app"."accounts"
  AS PERMISSIVE FOR DELETE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('accounts'), "app"."accounts_access"(lib.action())) = 'Accounts manage themselves')
    AND ((SELECT auth.uid() IS NOT NULL) AND ("id" = (SELECT auth.uid())))
  );
COMMENT ON POLICY "Accounts manage themselves [delete]" ON "app"."accounts" IS 'Scenario "Accounts manage themselves"; delete (entity)';
CREATE POLICY "Admins [delete]" ON "app"."accounts"
  AS PERMISSIVE FOR DELETE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('accounts'), "app"."accounts_access"(lib.action())) = 'Admins')
    AND (SELECT auth.roles() && ARRAY['admin']::text[])
  );
COMMENT ON POLICY "Admins [delete]" ON "app"."accounts" IS 'Scenario "Admins"; delete (api)';
DROP FUNCTION IF EXISTS "app"."accounts_stakeholder"(text);

ALTER TABLE "app"."accounts_labels" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('accounts_labels');
CREATE POLICY "through Account [all]" ON "app"."accounts_labels"
  AS PERMISSIVE FOR ALL TO anon, authenticated
  USING (EXISTS (SELECT 1 FROM "app"."accounts" o WHERE o."id" = "app"."accounts_labels"."account_id"))
  WITH CHECK (EXISTS (SELECT 1 FROM "app"."accounts" o WHERE o."id" = "app"."accounts_labels"."account_id"));
COMMENT ON POLICY "through Account [all]" ON "app"."accounts_labels" IS 'Rows of Account.labels follow the access to their Account.';

ALTER TABLE "app"."accounts_settings" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('accounts_settings');
CREATE POLICY "through Account [all]" ON "app"."accounts_settings"
  AS PERMISSIVE FOR ALL TO anon, authenticated
  USING (EXISTS (SELECT 1 FROM "app"."accounts" o WHERE o."id" = "app"."accounts_settings"."account_id"))
  WITH CHECK (EXISTS (SELECT 1 FROM "app"."accounts" o WHERE o."id" = "app"."accounts_settings"."account_id"));
COMMENT ON POLICY "through Account [all]" ON "app"."accounts_settings" IS 'Rows of Account.settings follow the access to their Account.';

ALTER TABLE "app"."labels" ENABLE ROW LEVEL SECURITY;
SELECT meta.drop_policies('labels');
CREATE OR REPLACE FUNCTION "app"."labels_access"(action text) RETURNS text LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  CASE action
    WHEN 'list', 'search', 'create', 'update', 'delete' THEN RETURN CASE WHEN (SELECT auth.roles() && ARRAY['admin']::text[]) THEN 'Admins' END;
    WHEN 'read' THEN RETURN 'Everyone reads labels';
    ELSE RETURN NULL;
  END CASE;
END $fn$;
COMMENT ON FUNCTION "app"."labels_access"(text) IS 'PRE_FETCH for Label: the scenario that wins an action (first whose identity rules pass), or NULL.';
CREATE POLICY "Admins [select]" ON "app"."labels"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('labels'), "app"."labels_access"(lib.action())) = 'Admins')
    AND (SELECT auth.roles() && ARRAY['admin']::text[])
  );
COMMENT ON POLICY "Admins [select]" ON "app"."labels" IS 'Scenario "Admins"; list (api), search (api), read (api), create (api), update (api), delete (api)';
CREATE POLICY "Everyone reads labels [select]" ON "app"."labels"
  AS PERMISSIVE FOR SELECT TO anon, authenticated
  USING ((SELECT coalesce(lib.scenario('labels'), "app"."labels_access"(lib.action())) = 'Everyone reads labels'));
COMMENT ON POLICY "Everyone reads labels [select]" ON "app"."labels" IS 'Scenario "Everyone reads labels"; read (action)';
CREATE POLICY "Admins [insert]" ON "app"."labels"
  AS PERMISSIVE FOR INSERT TO anon, authenticated
  WITH CHECK (
    (SELECT coalesce(lib.scenario('labels'), "app"."labels_access"(lib.action())) = 'Admins')
    AND (SELECT auth.roles() && ARRAY['admin']::text[])
  );
COMMENT ON POLICY "Admins [insert]" ON "app"."labels" IS 'Scenario "Admins"; create (api)';
CREATE POLICY "Admins [update]" ON "app"."labels"
  AS PERMISSIVE FOR UPDATE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('labels'), "app"."labels_access"(lib.action())) = 'Admins')
    AND (SELECT auth.roles() && ARRAY['admin']::text[])
  )
  WITH CHECK (true);
COMMENT ON POLICY "Admins [update]" ON "app"."labels" IS 'Scenario "Admins"; update (api)';
CREATE POLICY "Admins [delete]" ON "app"."labels"
  AS PERMISSIVE FOR DELETE TO anon, authenticated
  USING (
    (SELECT coalesce(lib.scenario('labels'), "app"."labels_access"(lib.action())) = 'Admins')
    AND (SELECT auth.roles() && ARRAY['admin']::text[])
  );
COMMENT ON POLICY "Admins [delete]" ON "app"."labels" IS 'Scenario "Admins"; delete (api)';
DROP FUNCTION IF EXISTS "app"."labels_stakeholder"(text);

-- Change log: the changes each caller may see, judged by the read rules (design 9) --------------

DROP FUNCTION IF EXISTS "app"."accounts_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."accounts_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."accounts_changes"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "app"."accounts_changes"(after_tx xid8, after_id bigint, before xid8, lim integer)
RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  _winner text := "app"."accounts_access"('list');
  _was text := current_setting('request.action', true);
BEGIN
  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing
  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set
  RETURN QUERY
    SELECT c.id, c.tx, c.action, c.record_key, c.image
    FROM (SELECT c.id, c.tx, c.action, c.record_key, CASE WHEN c.table_name = 'accounts' THEN c.image
        ELSE (SELECT to_jsonb(o) - ARRAY['password']::text[] FROM "app"."accounts" o WHERE o."id" = c.record_key) END AS image FROM lib.changes c
      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('accounts', 'accounts_labels')
      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page
    WHERE c.image IS NOT NULL AND EXISTS (
        SELECT FROM jsonb_populate_record(NULL::"app"."accounts", c.image - ARRAY['email', 'password', '_rev',
            '_modified_at']::text[])  -- the record as that change wrote it (a link: its owner now)
        WHERE CASE _winner
        WHEN 'Accounts manage themselves' THEN (
  (SELECT auth.uid() IS NOT NULL)
  AND ((SELECT lib.action() = ANY (ARRAY['update']::text[])) OR ("id" = (SELECT auth.uid())))
)
        WHEN 'Admins' THEN (SELECT auth.roles() && ARRAY['admin']::text[])
        ELSE false END)
    ORDER BY c.tx, c.id;
  PERFORM set_config('request.action', coalesce(_was, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."accounts_changes"(xid8, bigint, xid8, integer)
  IS 'Of the first lim changes of app.accounts (and its links) past a position (tx, id) and of transactions below before, '
  'those the caller may list (design 9).';

DROP FUNCTION IF EXISTS "app"."accounts_labels_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."accounts_labels_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."accounts_labels_changes"(xid8, bigint, xid8, integer);

DROP FUNCTION IF EXISTS "app"."accounts_settings_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."accounts_settings_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."accounts_settings_changes"(xid8, bigint, xid8, integer);

DROP FUNCTION IF EXISTS "app"."labels_changes"(bigint, bigint);
DROP FUNCTION IF EXISTS "app"."labels_changes"(xid8, bigint, xid8, bigint);
DROP FUNCTION IF EXISTS "app"."labels_changes"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "app"."labels_changes"(after_tx xid8, after_id bigint, before xid8, lim integer)
RETURNS TABLE (id bigint, tx xid8, action text, record_key text, image jsonb)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
DECLARE
  _winner text := "app"."labels_access"('list');
  _was text := current_setting('request.action', true);
BEGIN
  IF _winner IS NULL THEN RETURN; END IF;  -- no scenario lets the caller list: nothing
  PERFORM set_config('request.action', 'list', true);  -- the rules of a list, whatever the session set
  RETURN QUERY
    SELECT c.id, c.tx, c.action, c.record_key, c.image
    FROM (SELECT c.id, c.tx, c.action, c.record_key, c.image AS image FROM lib.changes c
      WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('labels')
      ORDER BY c.tx, c.id LIMIT lim) c  -- the same rows as lib.<table>_change_records reads for this page
    WHERE c.image IS NOT NULL AND EXISTS (
        SELECT FROM jsonb_populate_record(NULL::"app"."labels", c.image - ARRAY['slug', 'name', '_rev',
            '_modified_at']::text[])  -- the record as that change wrote it (a link: its owner now)
        WHERE CASE _winner
        WHEN 'Admins' THEN (SELECT auth.roles() && ARRAY['admin']::text[])
        ELSE false END)
    ORDER BY c.tx, c.id;
  PERFORM set_config('request.action', coalesce(_was, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."labels_changes"(xid8, bigint, xid8, integer)
  IS 'Of the first lim changes of app.labels (and its links) past a position (tx, id) and of transactions below before, those the caller may list (design 9).';

-- Change log: pages of changes shaped as records, for the gateway's streams (design 9) ----------

DROP FUNCTION IF EXISTS "app"."accounts_change_records"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "lib"."accounts_change_records"(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
  SELECT json_build_object(
    'data', coalesce(json_agg(json_build_object(
      'id', c.tx::text || '-' || c.id::text,
      'action', c.action,
      'key', c.record_key,
      'etag', c.etag,
      'at', c.at,
      'data', CASE
        WHEN c.table_name <> 'accounts' THEN json_build_object(
          'relation', CASE c.table_name WHEN 'accounts_labels' THEN 'labels' END,
          'target', CASE c.table_name WHEN 'accounts_labels' THEN c.image ->> 'label_slug' END,
          'edge', CASE c.table_name WHEN 'accounts_labels' THEN json_build_object('role', c.image -> 'role') END
        )
        WHEN c.action = 'deleted' THEN NULL
        ELSE (SELECT row_to_json(r) FROM (SELECT t."id" AS "id", t."email" AS "email") r)
      END
    ) ORDER BY c.tx, c.id), '[]'),
    'last', (array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1],
    'read', count(*)
  )
  FROM (SELECT * FROM lib.changes c
    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('accounts', 'accounts_labels')
    ORDER BY c.tx, c.id LIMIT lim) c
  LEFT JOIN LATERAL jsonb_populate_record(NULL::"app"."accounts", CASE WHEN c.table_name = 'accounts' THEN c.image END) t ON true
$fn$;
REVOKE EXECUTE ON FUNCTION "lib"."accounts_change_records"(xid8, bigint, xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "lib"."accounts_change_records"(xid8, bigint, xid8, integer) TO authenticator;
COMMENT ON FUNCTION "lib"."accounts_change_records"(xid8, bigint, xid8, integer)
  IS 'A page of the change log of app.accounts and its links, shaped as records; for the gateway''s streams only (design 9).';

DROP FUNCTION IF EXISTS "app"."accounts_labels_change_records"(xid8, bigint, xid8, integer);
DROP FUNCTION IF EXISTS "lib"."accounts_labels_change_records"(xid8, bigint, xid8, integer);

DROP FUNCTION IF EXISTS "app"."accounts_settings_change_records"(xid8, bigint, xid8, integer);
DROP FUNCTION IF EXISTS "lib"."accounts_settings_change_records"(xid8, bigint, xid8, integer);

DROP FUNCTION IF EXISTS "app"."labels_change_records"(xid8, bigint, xid8, integer);
CREATE OR REPLACE FUNCTION "lib"."labels_change_records"(after_tx xid8, after_id bigint, before xid8, lim integer) RETURNS json
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
        ELSE (SELECT row_to_json(r) FROM (SELECT t."slug" AS "slug", t."name" AS "name") r)
      END
    ) ORDER BY c.tx, c.id), '[]'),
    'last', (array_agg(c.tx::text || '-' || c.id::text ORDER BY c.tx DESC, c.id DESC))[1],
    'read', count(*)
  )
  FROM (SELECT * FROM lib.changes c
    WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before AND c.table_name IN ('labels')
    ORDER BY c.tx, c.id LIMIT lim) c
  LEFT JOIN LATERAL jsonb_populate_record(NULL::"app"."labels", CASE WHEN c.table_name = 'labels' THEN c.image END) t ON true
$fn$;
REVOKE EXECUTE ON FUNCTION "lib"."labels_change_records"(xid8, bigint, xid8, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION "lib"."labels_change_records"(xid8, bigint, xid8, integer) TO authenticator;
COMMENT ON FUNCTION "lib"."labels_change_records"(xid8, bigint, xid8, integer)
  IS 'A page of the change log of app.labels and its links, shaped as records; for the gateway''s streams only (design 9).';

-- Identity: sign-in, refresh tokens and their revocation (api.identity) -------------------------

DROP FUNCTION IF EXISTS lib.identity_claims(text);
DROP TRIGGER IF EXISTS identity_revoke ON "app"."accounts";
DROP TRIGGER IF EXISTS identity_revoke ON "app"."labels";

-- Webhooks: the receivers of changes (api.webhooks, design 9) -----------------------------------

DELETE FROM lib.webhooks WHERE name <> ALL (ARRAY[]::text[]);  -- removed from the model, with their deliveries

-- Access: existence past the policies, failing rules, refusals (403/404) and pre-flights --------

CREATE OR REPLACE FUNCTION "app"."accounts_exists"(_key text, _parent text DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "app"."accounts" t WHERE t."id" = _key);
END $fn$;
COMMENT ON FUNCTION "app"."accounts_exists"(text, text)
  IS 'Whether Account _key exists (live, in the caller''s organization, under _parent), whatever the policies say. Definer: it says only that.';

CREATE OR REPLACE FUNCTION "app"."accounts_scenario"(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE _scenario
    WHEN 'Accounts manage themselves' THEN ARRAY['Accounts manage themselves', 'entity', 'matchResourceOwner (id)']
    WHEN 'Admins' THEN ARRAY['Admins', 'api', '']
  END
$fn$;
COMMENT ON FUNCTION "app"."accounts_scenario"(text) IS 'Label, level and data rules of each scenario of Account.';

CREATE OR REPLACE FUNCTION "app"."accounts_failing"(_scenario text, _key text)
  RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _failing text;
BEGIN
  IF _scenario = 'Accounts manage themselves' THEN
    SELECT CASE WHEN (_g.g0 AND _r.r0) THEN '' ELSE concat_ws(', ', CASE WHEN (NOT (_g.g0) OR _r.r0) IS NOT TRUE THEN 'matchResourceOwner (id)' END) END
        FROM (SELECT (SELECT auth.uid() IS NOT NULL) AS g0 OFFSET 0) _g,
        LATERAL (SELECT coalesce(CASE WHEN (_g.g0) IS NOT FALSE THEN ("id" = (SELECT auth.uid())) END, false) AS r0 FROM "app"."accounts" t
            WHERE t."id" = _key OFFSET 0) _r INTO _failing;
  ELSIF _scenario = 'Admins' THEN
    SELECT ''::text FROM "app"."accounts" t WHERE t."id" = _key INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."accounts" t WHERE t."id" = _key INTO _failing;
  END IF;
  RETURN _failing;
END $fn$;
COMMENT ON FUNCTION "app"."accounts_failing"(text, text) IS 'The data rules of a Account scenario that an existing record breaks (for 403 details).';

CREATE OR REPLACE FUNCTION "app"."accounts_deny"(_action text, _key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _winner text := "app"."accounts_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, 'Account'); END IF;
  _failing := "app"."accounts_failing"(_winner, _key);
  IF _failing <> '' THEN
    _about := "app"."accounts_scenario"(_winner);
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Account', _failing),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;
  END IF;
END $fn$;
COMMENT ON FUNCTION "app"."accounts_deny"(text, text)
  IS 'Refuses (403) when the scenario that wins _action rejects the existing Account _key, naming the rules it breaks.';

SELECT meta.drop_if_returns('"app"."accounts_refusal"(text, text, text, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."accounts_refusal"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS json LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _scenario text := "app"."accounts_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _scenario = 'Accounts manage themselves' THEN
    SELECT CASE WHEN (_g.g0 AND _r.r0) THEN '' ELSE concat_ws(', ', CASE WHEN (NOT (_g.g0) OR _r.r0) IS NOT TRUE THEN 'matchResourceOwner (id)' END) END
        FROM (SELECT (SELECT auth.uid() IS NOT NULL) AS g0 OFFSET 0) _g,
        LATERAL (SELECT coalesce(CASE WHEN (_g.g0) IS NOT FALSE THEN ("id" = (SELECT auth.uid())) END, false) AS r0 FROM "app"."accounts" t
            WHERE t."id" = _key OFFSET 0) _r INTO _failing;
  ELSIF _scenario = 'Admins' THEN
    SELECT ''::text FROM "app"."accounts" t WHERE t."id" = _key INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."accounts" t WHERE t."id" = _key INTO _failing;
  END IF;
  IF _failing IS NULL THEN
    IF _star THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT412', 'message', format('If-Match: * requires an existing %s, and there is none with %s "%s"', 'Account', 'id', _key),
          'detail', jsonb_build_object('current', NULL, 'supplied', '*')::text, 'hint',
          'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.')); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT404', 'message', format('no %s with %s "%s"', 'Account', 'id', coalesce(_key, '')), 'detail',
          jsonb_build_object('property', NULL, 'rule', NULL)::text, 'hint', NULL));
  END IF;
  IF _scenario IS NULL THEN
    IF auth.uid() IS NULL
      THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT401', 'message', format('No access scenario lets an anonymous caller %s %s: sign in.', _action, 'Account'), 'detail',
          NULL, 'hint', NULL)); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message', format('No access scenario lets you %s %s.', _action, 'Account'), 'detail', NULL, 'hint', NULL));
  END IF;
  IF _failing <> '' THEN
    _about := "app"."accounts_scenario"(_scenario);
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message',
          format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Account', _failing), 'detail',
          jsonb_build_object('scenario', _about[1], 'rules', _failing)::text, 'hint', NULL));
  END IF;
  RETURN json_build_object('refused',
      json_build_object('code', 'PT403', 'message', format('You may not %s this %s.', _action, 'Account'), 'detail', NULL, 'hint', NULL));
END $fn$;
COMMENT ON FUNCTION "app"."accounts_refusal"(text, text, text, boolean)
  IS 'Why a Account the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.';

CREATE OR REPLACE FUNCTION "app"."accounts_refuse"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS void LANGUAGE plpgsql
  AS $fn$
BEGIN
  PERFORM lib.raise_refusal("app"."accounts_refusal"(_action, _key, _parent, _star));
END $fn$;
COMMENT ON FUNCTION "app"."accounts_refuse"(text, text, text, boolean)
  IS 'A Account the caller cannot _action was asked for: 403 when it exists, else 404 (raised).';

CREATE OR REPLACE FUNCTION "app"."accounts_require"(_key text, _action text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _outer_action text := lib.action();
  _outer_scenario text := lib.scenario('accounts');
  _winner text := lib.enter('accounts', _action, "app"."accounts_access"(_action), 'Account');
  _found boolean := false;
  _set text;
BEGIN
  SELECT EXISTS (SELECT 1 FROM "app"."accounts" t WHERE t."id" = _key) INTO _found;
  IF NOT _found THEN PERFORM "app"."accounts_refuse"(_action, _key); END IF;
  _set := set_config('request.action', coalesce(_outer_action, ''), true)
    || set_config('request.scenario.accounts', coalesce(_outer_scenario, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."accounts_require"(text, text) IS 'Pre-flight: the caller must be able to _action Account _key (404 when missing, 403 when hidden).';

CREATE OR REPLACE FUNCTION "app"."accounts_within"(_key text, _above jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF jsonb_array_length(coalesce(_above, '[]')) > 0 THEN PERFORM lib.bad_request('Account has no parent'); END IF;
  PERFORM "app"."accounts_require"(_key, 'read');
END $fn$;
COMMENT ON FUNCTION "app"."accounts_within"(text, jsonb)
  IS 'Nested paths: Account _key, under the ancestors _above (outermost first), each existing, containing the next and readable.';

CREATE OR REPLACE FUNCTION "app"."labels_exists"(_key text, _parent text DEFAULT NULL)
  RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
BEGIN
  RETURN EXISTS (SELECT 1 FROM "app"."labels" t WHERE t."slug" = _key);
END $fn$;
COMMENT ON FUNCTION "app"."labels_exists"(text, text)
  IS 'Whether Label _key exists (live, in the caller''s organization, under _parent), whatever the policies say. Definer: it says only that.';

CREATE OR REPLACE FUNCTION "app"."labels_scenario"(_scenario text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $fn$
  SELECT CASE _scenario
    WHEN 'Admins' THEN ARRAY['Admins', 'api', '']
    WHEN 'Everyone reads labels' THEN ARRAY['Everyone reads labels', 'action', '']
  END
$fn$;
COMMENT ON FUNCTION "app"."labels_scenario"(text) IS 'Label, level and data rules of each scenario of Label.';

CREATE OR REPLACE FUNCTION "app"."labels_failing"(_scenario text, _key text)
  RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _failing text;
BEGIN
  IF _scenario = 'Admins' THEN
    SELECT ''::text FROM "app"."labels" t WHERE t."slug" = _key INTO _failing;
  ELSIF _scenario = 'Everyone reads labels' THEN
    SELECT ''::text FROM "app"."labels" t WHERE t."slug" = _key INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."labels" t WHERE t."slug" = _key INTO _failing;
  END IF;
  RETURN _failing;
END $fn$;
COMMENT ON FUNCTION "app"."labels_failing"(text, text) IS 'The data rules of a Label scenario that an existing record breaks (for 403 details).';

CREATE OR REPLACE FUNCTION "app"."labels_deny"(_action text, _key text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _winner text := "app"."labels_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _winner IS NULL THEN PERFORM lib.no_scenario(_action, 'Label'); END IF;
  _failing := "app"."labels_failing"(_winner, _key);
  IF _failing <> '' THEN
    _about := "app"."labels_scenario"(_winner);
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Label', _failing),
      DETAIL = jsonb_build_object('scenario', _about[1], 'rules', _failing)::text;
  END IF;
END $fn$;
COMMENT ON FUNCTION "app"."labels_deny"(text, text)
  IS 'Refuses (403) when the scenario that wins _action rejects the existing Label _key, naming the rules it breaks.';

SELECT meta.drop_if_returns('"app"."labels_refusal"(text, text, text, boolean)', 'json');
CREATE OR REPLACE FUNCTION "app"."labels_refusal"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS json LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$
DECLARE
  _scenario text := "app"."labels_access"(_action);
  _failing text;
  _about text[];
BEGIN
  IF _scenario = 'Admins' THEN
    SELECT ''::text FROM "app"."labels" t WHERE t."slug" = _key INTO _failing;
  ELSIF _scenario = 'Everyone reads labels' THEN
    SELECT ''::text FROM "app"."labels" t WHERE t."slug" = _key INTO _failing;
  ELSE
    SELECT ''::text FROM "app"."labels" t WHERE t."slug" = _key INTO _failing;
  END IF;
  IF _failing IS NULL THEN
    IF _star THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT412', 'message', format('If-Match: * requires an existing %s, and there is none with %s "%s"', 'Label', 'slug', _key),
          'detail', jsonb_build_object('current', NULL, 'supplied', '*')::text, 'hint',
          'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.')); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT404', 'message', format('no %s with %s "%s"', 'Label', 'slug', coalesce(_key, '')), 'detail',
          jsonb_build_object('property', NULL, 'rule', NULL)::text, 'hint', NULL));
  END IF;
  IF _scenario IS NULL THEN
    IF auth.uid() IS NULL
      THEN RETURN json_build_object('refused',
        json_build_object('code', 'PT401', 'message', format('No access scenario lets an anonymous caller %s %s: sign in.', _action, 'Label'), 'detail', NULL,
          'hint', NULL)); END IF;
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message', format('No access scenario lets you %s %s.', _action, 'Label'), 'detail', NULL, 'hint', NULL));
  END IF;
  IF _failing <> '' THEN
    _about := "app"."labels_scenario"(_scenario);
    RETURN json_build_object('refused',
        json_build_object('code', 'PT403', 'message',
          format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.', _about[1], _about[2], _action, 'Label', _failing), 'detail',
          jsonb_build_object('scenario', _about[1], 'rules', _failing)::text, 'hint', NULL));
  END IF;
  RETURN json_build_object('refused',
      json_build_object('code', 'PT403', 'message', format('You may not %s this %s.', _action, 'Label'), 'detail', NULL, 'hint', NULL));
END $fn$;
COMMENT ON FUNCTION "app"."labels_refusal"(text, text, text, boolean)
  IS 'Why a Label the caller cannot _action was not returned (404, 412 for If-Match: *, 401 or 403), as a refusal document.';

CREATE OR REPLACE FUNCTION "app"."labels_refuse"(_action text, _key text, _parent text DEFAULT NULL, _star boolean DEFAULT false)
  RETURNS void LANGUAGE plpgsql
  AS $fn$
BEGIN
  PERFORM lib.raise_refusal("app"."labels_refusal"(_action, _key, _parent, _star));
END $fn$;
COMMENT ON FUNCTION "app"."labels_refuse"(text, text, text, boolean)
  IS 'A Label the caller cannot _action was asked for: 403 when it exists, else 404 (raised).';

CREATE OR REPLACE FUNCTION "app"."labels_require"(_key text, _action text) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE
  _outer_action text := lib.action();
  _outer_scenario text := lib.scenario('labels');
  _winner text := lib.enter('labels', _action, "app"."labels_access"(_action), 'Label');
  _found boolean := false;
  _set text;
BEGIN
  SELECT EXISTS (SELECT 1 FROM "app"."labels" t WHERE t."slug" = _key) INTO _found;
  IF NOT _found THEN PERFORM "app"."labels_refuse"(_action, _key); END IF;
  _set := set_config('request.action', coalesce(_outer_action, ''), true)
    || set_config('request.scenario.labels', coalesce(_outer_scenario, ''), true);
END $fn$;
COMMENT ON FUNCTION "app"."labels_require"(text, text) IS 'Pre-flight: the caller must be able to _action Label _key (404 when missing, 403 when hidden).';

CREATE OR REPLACE FUNCTION "app"."labels_within"(_key text, _above jsonb) RETURNS void LANGUAGE plpgsql AS $fn$
BEGIN
  IF jsonb_array_length(coalesce(_above, '[]')) > 0 THEN PERFORM lib.bad_request('Label has no parent'); END IF;
  PERFORM "app"."labels_require"(_key, 'read');
END $fn$;
COMMENT ON FUNCTION "app"."labels_within"(text, jsonb)
  IS 'Nested paths: Label _key, under the ancestors _above (outermost first), each existing, containing the next and readable.';

-- Removed from the model ------------------------------------------------------------------------

SELECT meta.drop_stale_columns('accounts', ARRAY['id', 'email', 'password', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_columns('accounts_labels', ARRAY['account_id', 'label_slug', 'role', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_columns('accounts_settings', ARRAY['account_id', 'theme', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_columns('labels', ARRAY['slug', 'name', '_rev', '_modified_at']::text[]);

SELECT meta.drop_stale_tables(ARRAY['accounts', 'accounts_labels', 'accounts_settings', 'labels']::text[]);


