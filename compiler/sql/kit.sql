-- The fixed part of every migration: schemas, extensions, request roles, claim helpers (auth.*),
-- helpers used by CHECK constraints and indexes (lib.*), and the reconcile helpers (meta.*)
-- that let one idempotent script bring any earlier version of the schema up to the model.

CREATE SCHEMA IF NOT EXISTS extensions;
CREATE SCHEMA IF NOT EXISTS app;
COMMENT ON SCHEMA app IS 'Tables generated from the model: one per entity, join and sub-resource.';
CREATE SCHEMA IF NOT EXISTS api;
COMMENT ON SCHEMA api IS 'Functions the HTTP gateway calls, one per entity and action.';
CREATE SCHEMA IF NOT EXISTS auth;
COMMENT ON SCHEMA auth IS 'Helpers that read the caller''s claims from transaction-local settings.';
CREATE SCHEMA IF NOT EXISTS lib;
COMMENT ON SCHEMA lib IS 'Immutable helpers used by constraints, indexes and triggers.';
CREATE SCHEMA IF NOT EXISTS meta;
COMMENT ON SCHEMA meta IS 'Migration helpers that reconcile the schema with the model.';

CREATE EXTENSION IF NOT EXISTS pgcrypto WITH SCHEMA extensions;
DO $$
BEGIN
  IF (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname = 'pgcrypto') <> 'extensions' THEN
    ALTER EXTENSION pgcrypto SET SCHEMA extensions;
  END IF;
END $$;

-- Request roles: anonymous callers and callers with a verified token. The gateway's login role
-- (authenticator) can only switch into them.
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'anon') THEN CREATE ROLE anon NOLOGIN; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'authenticated') THEN CREATE ROLE authenticated NOLOGIN; END IF;
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'authenticator') THEN
    CREATE ROLE authenticator LOGIN NOINHERIT;
  END IF;
  IF NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) THEN
    EXECUTE format('GRANT anon, authenticated TO %I', current_user);
  END IF;
  IF NOT pg_has_role('authenticator', 'anon', 'MEMBER') THEN GRANT anon TO authenticator; END IF;
  IF NOT pg_has_role('authenticator', 'authenticated', 'MEMBER') THEN GRANT authenticated TO authenticator; END IF;
END $$;
GRANT USAGE ON SCHEMA app, api, auth, lib, extensions TO anon, authenticated;

-- Claims ----------------------------------------------------------------------------------------
-- The gateway sets request.jwt.claims (the verified token payload) and request.ip per transaction.

CREATE OR REPLACE FUNCTION auth.claims() RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT coalesce(nullif(current_setting('request.jwt.claims', true), '')::jsonb, '{}'::jsonb)
$$;
CREATE OR REPLACE FUNCTION auth.uid() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT auth.claims() ->> 'sub'
$$;
CREATE OR REPLACE FUNCTION auth.email() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT lower(auth.claims() ->> 'email')
$$;
CREATE OR REPLACE FUNCTION auth.text_list(claim text) RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN jsonb_typeof(auth.claims() -> claim) = 'array'
    THEN ARRAY(SELECT jsonb_array_elements_text(auth.claims() -> claim)) ELSE '{}'::text[] END
$$;
CREATE OR REPLACE FUNCTION auth.roles() RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT auth.text_list('roles')
$$;
CREATE OR REPLACE FUNCTION auth.org() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT auth.claims() ->> 'org'
$$;
CREATE OR REPLACE FUNCTION auth.org_roles() RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT auth.text_list('org_roles')
$$;
CREATE OR REPLACE FUNCTION auth.enterprise() RETURNS text LANGUAGE sql STABLE AS $$
  SELECT auth.claims() ->> 'enterprise'
$$;
CREATE OR REPLACE FUNCTION auth.enterprise_roles() RETURNS text[] LANGUAGE sql STABLE AS $$
  SELECT auth.text_list('enterprise_roles')
$$;
CREATE OR REPLACE FUNCTION auth.ip() RETURNS inet LANGUAGE sql STABLE AS $$
  SELECT nullif(current_setting('request.ip', true), '')::inet
$$;

-- Check and index helpers ------------------------------------------------------------------------

-- Strict address syntax (RFC 5321 dot-atom local part, LDH domain labels, length limits).
CREATE OR REPLACE FUNCTION lib.is_email(v text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT length(v) <= 254
    AND length(split_part(v, '@', 1)) <= 64
    AND v ~ '^[a-z0-9!#$%&''*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&''*+/=?^_`{|}~-]+)*@([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$'
$$;

-- The stored block of a file property (spec 2.7): {id, location, name, mime}, location under uploads/.
CREATE OR REPLACE FUNCTION lib.is_file_block(v jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT jsonb_typeof(v) = 'object'
    AND jsonb_typeof(v -> 'id') = 'string'
    AND jsonb_typeof(v -> 'location') = 'string' AND (v ->> 'location') LIKE 'uploads/%'
    AND jsonb_typeof(v -> 'name') = 'string'
    AND jsonb_typeof(v -> 'mime') = 'string'
$$;

CREATE OR REPLACE FUNCTION lib.all_match(arr text[], pattern text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(bool_and(x ~ pattern), true) FROM unnest(arr) AS x
$$;
CREATE OR REPLACE FUNCTION lib.all_multiple_of(arr numeric[], step numeric) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(bool_and(x % step = 0), true) FROM unnest(arr) AS x
$$;

-- JSON values cast for Tier B indexes, sorting and range filters: NULL when the value has another
-- JSON type, so a document never fails to save because of an index.
CREATE OR REPLACE FUNCTION lib.jsonb_numeric(v jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' THEN v::numeric END
$$;
CREATE OR REPLACE FUNCTION lib.jsonb_integer(v jsonb) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'number' AND v::numeric = trunc(v::numeric)
    AND abs(v::numeric) <= 9223372036854775807 THEN v::numeric::bigint END
$$;
CREATE OR REPLACE FUNCTION lib.jsonb_boolean(v jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN jsonb_typeof(v) = 'boolean' THEN v::boolean END
$$;

-- Raises a refusal the gateway maps to an HTTP status: SQLSTATE PTnnn carries the status, the
-- message is the problem detail, DETAIL is {"property": …, "rule": …} for the errors list.
CREATE OR REPLACE FUNCTION lib.refuse(code text, message text, property text, rule text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = code, MESSAGE = message,
    DETAIL = jsonb_build_object('property', property, 'rule', rule)::text;
END $$;

-- A place to hash a password in: at most `lib.password_hashes_at_once` bcrypt hashes (a database setting,
-- `ALTER DATABASE … SET lib.password_hashes_at_once = 4`; default 2) run at once in the whole database, whichever
-- gateway sent them. Each takes about 50 ms of a core, so a flood of sign-ups or sign-ins takes that share of the
-- CPU rather than all of it. The place is an advisory lock of the transaction (a transaction that has one keeps
-- it); waiting for one is bounded by the request's lock timeout (503 with Retry-After).
CREATE OR REPLACE FUNCTION lib.hash_slot() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  setting text := current_setting('lib.password_hashes_at_once', true);
  slots int := CASE WHEN setting ~ '^[1-9][0-9]{0,3}$' THEN setting::int ELSE 2 END;
BEGIN
  FOR i IN 0 .. slots - 1 LOOP
    IF pg_try_advisory_xact_lock(1835102313, i) THEN RETURN; END IF;  -- 1835102313: 'mapi', this product's locks
  END LOOP;
  PERFORM pg_advisory_xact_lock(1835102313, floor(random() * slots)::int);
END $$;

-- Reconcile helpers ------------------------------------------------------------------------------
-- Every managed constraint and index carries a COMMENT holding JSON with the property, the rule and
-- a fingerprint of its definition: unchanged ones are skipped, changed ones rebuilt, stale ones dropped.

CREATE OR REPLACE FUNCTION meta.managed(comment text) RETURNS jsonb LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN CASE WHEN comment LIKE '{%' THEN comment::jsonb END;
EXCEPTION WHEN others THEN RETURN NULL;
END $$;

-- What a table is for, in a refusal's message, when its name alone does not say: a join or sub-resource table's
-- comment (' (manyToMany Customer.tags -> Tag)'); nothing for an entity's table.
CREATE OR REPLACE FUNCTION meta.about(rel regclass) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN d LIKE 'manyToMany %' OR d LIKE 'oneToOne %' THEN ' (' || rtrim(d, '.') || ')' ELSE '' END
  FROM (SELECT obj_description(rel, 'pg_class') AS d) c
$$;

CREATE OR REPLACE FUNCTION meta.ensure_column(tbl text, col text, typ text, not_null boolean,
  default_expr text, is_identity boolean) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  rel regclass := format('app.%I', tbl)::regclass;
  cur record;
  n bigint;
BEGIN
  SELECT format_type(a.atttypid, a.atttypmod) AS typ, a.attnotnull, a.attidentity <> '' AS ident
    INTO cur FROM pg_attribute a WHERE a.attrelid = rel AND a.attname = col AND NOT a.attisdropped;
  IF NOT FOUND THEN
    IF not_null AND default_expr IS NULL AND NOT is_identity THEN
      EXECUTE format('SELECT count(*) FROM %s', rel) INTO n;
      IF n > 0 AND col = 'organization_id' THEN
        RAISE EXCEPTION 'Refused: the model''s strategy now keeps every row of app.% in an organization, and its % rows have none', tbl, n
          USING HINT = format('Give each row its organization first (ALTER TABLE %s ADD COLUMN organization_id character varying(255); '
            'UPDATE %s SET organization_id = …;), then migrate again.', rel, rel);
      END IF;
      IF n > 0 THEN
        RAISE EXCEPTION 'Refused: cannot add required property %.% without a defaultValue: the table already holds % rows', tbl, col || meta.about(rel), n
          USING HINT = 'Give the property a defaultValue, or add it as optional, fill it, then make it required. If it is an '
            || 'existing property under a new name, say so in the model: "renamedFrom": "<its earlier name>".';
      END IF;
    END IF;
    EXECUTE format('ALTER TABLE %s ADD COLUMN %I %s%s%s%s', rel, col, typ,
      CASE WHEN is_identity THEN ' GENERATED ALWAYS AS IDENTITY' ELSE '' END,
      CASE WHEN default_expr IS NOT NULL THEN ' DEFAULT ' || default_expr ELSE '' END,
      CASE WHEN not_null THEN ' NOT NULL' ELSE '' END);
    RETURN;
  END IF;
  IF cur.typ <> typ THEN
    PERFORM meta.change_type(rel, tbl, col, cur.typ, typ);
  END IF;
  IF cur.ident <> is_identity THEN
    RAISE EXCEPTION 'Refused: %.% % a server-generated identity in the model', tbl, col,
      CASE WHEN is_identity THEN 'became' ELSE 'is no longer' END
      USING HINT = 'Change the identity by hand (ALTER TABLE … ALTER COLUMN … ADD/DROP IDENTITY), then migrate again.';
  END IF;
  IF NOT is_identity THEN
    IF default_expr IS NULL THEN
      EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP DEFAULT', rel, col);
    ELSE
      EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET DEFAULT %s', rel, col, default_expr);
    END IF;
  END IF;
  IF not_null AND NOT cur.attnotnull THEN
    EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NULL', rel, col) INTO n;
    IF n > 0 AND default_expr IS NULL THEN
      RAISE EXCEPTION 'Refused: cannot make %.% required: % rows have no value and the property has no defaultValue', tbl, col || meta.about(rel), n
        USING HINT = 'Fill the missing values first, or give the property a defaultValue.';
    END IF;
    IF n > 0 THEN
      -- Backfill with the default; write-rule triggers stay out of it (nobody is editing these rows).
      EXECUTE format('ALTER TABLE %s DISABLE TRIGGER USER', rel);
      EXECUTE format('UPDATE %s SET %I = DEFAULT, _rev = gen_random_uuid() WHERE %I IS NULL', rel, col, col);
      EXECUTE format('ALTER TABLE %s ENABLE TRIGGER USER', rel);
    END IF;
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I SET NOT NULL', rel, col);
  ELSIF NOT not_null AND cur.attnotnull THEN
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP NOT NULL', rel, col);
  END IF;
END $$;

-- A join or sub-resource table's organization_id (the organization strategies): the caller's by default; rows
-- made before the table had it take their owner's (write-rule triggers off: nobody is editing them).
CREATE OR REPLACE FUNCTION meta.ensure_owned_organization(tbl text, owner_tbl text, owner_key text, owner_col text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  rel regclass := format('app.%I', tbl)::regclass;
BEGIN
  IF NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = rel AND attname = 'organization_id' AND NOT attisdropped) THEN
    EXECUTE format('ALTER TABLE %s ADD COLUMN organization_id character varying(255)', rel);
    EXECUTE format('ALTER TABLE %s DISABLE TRIGGER USER', rel);
    EXECUTE format('UPDATE %s x SET organization_id = o.organization_id FROM app.%I o WHERE o.%I = x.%I', rel, owner_tbl, owner_key, owner_col);
    EXECUTE format('ALTER TABLE %s ENABLE TRIGGER USER', rel);
    EXECUTE format('ALTER TABLE %s ALTER COLUMN organization_id SET NOT NULL', rel);
  END IF;
  EXECUTE format('ALTER TABLE %s ALTER COLUMN organization_id SET DEFAULT auth.org()', rel);
END $$;

-- Type changes: widenings apply, a narrowing applies only when every stored value fits,
-- anything else is refused rather than risk changing data.
CREATE OR REPLACE FUNCTION meta.change_type(rel regclass, tbl text, col text, from_type text, to_type text)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
  pair text := from_type || ' -> ' || to_type;
BEGIN
  -- Nothing stored, nothing to change: any type goes (the old default, which may not cast, goes first;
  -- ensure_column sets the model's after).
  EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NOT NULL', rel, col) INTO n;
  IF n = 0 THEN
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I DROP DEFAULT', rel, col);
    EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE %s USING NULL', rel, col, to_type);
    RETURN;
  END IF;
  IF pair IN ('character varying(255) -> text', 'character varying(255)[] -> text[]',
              'integer -> bigint', 'integer -> numeric', 'bigint -> numeric', 'integer -> double precision',
              'integer[] -> bigint[]', 'integer[] -> numeric[]', 'bigint[] -> numeric[]') THEN
    NULL;
  ELSIF pair IN ('bigint -> integer', 'numeric -> integer', 'numeric -> bigint') THEN
    -- A narrowing applies when every value is whole and within the new type's range (a model going back a version).
    EXECUTE format('SELECT count(*) FROM %s WHERE %I <> trunc(%I) OR %I NOT BETWEEN %s', rel, col, col, col,
      CASE WHEN to_type = 'integer' THEN '-2147483648 AND 2147483647' ELSE '-9223372036854775808 AND 9223372036854775807' END) INTO n;
    IF n > 0 THEN
      RAISE EXCEPTION 'Refused: %.% cannot become %: % rows hold a value it cannot (a fraction, or out of its range)', tbl, col || meta.about(rel), to_type, n
        USING HINT = 'Keep the wider format, or change those values first.';
    END IF;
  ELSIF pair = 'text -> character varying(255)' THEN
    EXECUTE format('SELECT count(*) FROM %s WHERE length(%I) > 255', rel, col) INTO n;
    IF n > 0 THEN
      RAISE EXCEPTION 'Refused: %.% cannot become a short String (255 characters): % rows hold longer text', tbl, col, n
        USING HINT = 'Keep "long": true, or shorten those values first.';
    END IF;
  ELSE
    RAISE EXCEPTION 'Refused: %.% would change type from % to %, which could change the % values it holds', tbl, col || meta.about(rel), from_type, to_type, n
      USING HINT = format('Convert it by hand (ALTER TABLE %s ALTER COLUMN %I TYPE %s USING …), then migrate again.', rel, col, to_type);
  END IF;
  EXECUTE format('ALTER TABLE %s ALTER COLUMN %I TYPE %s', rel, col, to_type);
END $$;

CREATE OR REPLACE FUNCTION meta.ensure_constraint(tbl text, name text, def text, info jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  rel regclass := format('app.%I', tbl)::regclass;
  fp text := md5(def);
  cid oid;
  why text;
BEGIN
  SELECT oid INTO cid FROM pg_constraint WHERE conrelid = rel AND conname = name;
  IF FOUND THEN
    IF meta.managed(obj_description(cid, 'pg_constraint')) ->> 'fingerprint' = fp THEN RETURN; END IF;
    -- A key or unique constraint other tables' foreign keys rest on takes them along; they are managed too, and
    -- the script's foreign-key section, after this one, makes them again (their text changes with the key's).
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I CASCADE', rel, name);
  END IF;
  BEGIN
    EXECUTE format('ALTER TABLE %s ADD CONSTRAINT %I %s', rel, name, def);
  EXCEPTION WHEN check_violation OR unique_violation OR foreign_key_violation OR not_null_violation THEN
    -- PostgreSQL's detail names a row that breaks it (the duplicated key, the failing row).
    GET STACKED DIAGNOSTICS why = PG_EXCEPTION_DETAIL;
    RAISE EXCEPTION 'Refused: the rule % (%) cannot be applied to app.%: existing rows break it', name, def, tbl
      USING DETAIL = SQLERRM || coalesce(': ' || nullif(why, ''), ''),
        HINT = coalesce(info ->> 'hint', 'Fix or remove those rows, or relax the rule in the model, then migrate again.');
  END;
  EXECUTE format('COMMENT ON CONSTRAINT %I ON %s IS %L', name, rel, (info - 'hint' || jsonb_build_object('fingerprint', fp))::text);
END $$;

CREATE OR REPLACE FUNCTION meta.ensure_index(tbl text, name text, def text, info jsonb) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  fp text := md5(def);
  idx oid := to_regclass(format('app.%I', name));
BEGIN
  IF idx IS NOT NULL THEN
    IF meta.managed(obj_description(idx, 'pg_class')) ->> 'fingerprint' = fp THEN RETURN; END IF;
    -- Built beforehand under the model's name without blocking writes (CREATE INDEX CONCURRENTLY, in a committed
    -- migration of its own or by hand): taken over when valid and on the table, not built again.
    IF meta.managed(obj_description(idx, 'pg_class')) IS NULL
      AND EXISTS (SELECT FROM pg_index WHERE indexrelid = idx AND indisvalid AND indrelid = format('app.%I', tbl)::regclass) THEN
      EXECUTE format('COMMENT ON INDEX app.%I IS %L', name, (info || jsonb_build_object('fingerprint', fp))::text);
      RETURN;
    END IF;
    EXECUTE format('DROP INDEX app.%I', name);
  END IF;
  EXECUTE def;
  EXECUTE format('COMMENT ON INDEX app.%I IS %L', name, (info || jsonb_build_object('fingerprint', fp))::text);
END $$;

-- Before a table's columns are reconciled: drops its managed constraints and indexes that the model no longer
-- has or has changed (ensure_constraint and ensure_index make the model's afterwards), so a key moving to another
-- column, or a column changing type, meets none of the old rules. A key or unique constraint takes along the other
-- tables' foreign keys resting on it (CASCADE): a reference the model keeps is made again in the foreign-key section,
-- and one it dropped goes with it. A password column (rule Password) that stops being one while it holds hashes is
-- refused: they would become readable, and no longer checked at sign-in.
DROP FUNCTION IF EXISTS meta.drop_stale(text, text[], text[]);
CREATE OR REPLACE FUNCTION meta.drop_replaced(tbl text, constraint_names text[], constraint_defs text[],
  index_names text[], index_defs text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  rel regclass := to_regclass(format('app.%I', tbl));
  r record;
  n bigint;
BEGIN
  IF rel IS NULL THEN RETURN; END IF;
  FOR r IN SELECT k.conname, i.info, d.def FROM pg_constraint k
      CROSS JOIN LATERAL meta.managed(obj_description(k.oid, 'pg_constraint')) AS i(info)
      LEFT JOIN unnest(constraint_names, constraint_defs) AS d(name, def) ON d.name = k.conname
    WHERE k.conrelid = rel AND i.info ? 'fingerprint' AND (d.def IS NULL OR md5(d.def) <> i.info ->> 'fingerprint')
  LOOP
    IF r.def IS NULL AND r.info ->> 'rule' = 'Password' AND EXISTS (SELECT FROM pg_attribute
        WHERE attrelid = rel AND attname = r.info ->> 'property' AND NOT attisdropped) THEN
      EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NOT NULL', rel, r.info ->> 'property') INTO n;
      IF n > 0 THEN
        RAISE EXCEPTION 'Refused: app.%.% is no longer a Password in the model, but % rows hold password hashes in it', tbl, r.info ->> 'property', n
          USING DETAIL = 'Without the module the hashes would be readable by whoever may read the property, and sign-in would no longer check them.',
            HINT = format('Keep the Password module, or remove the hashes first: UPDATE %s SET %I = NULL;', rel, r.info ->> 'property');
      END IF;
    END IF;
    EXECUTE format('ALTER TABLE %s DROP CONSTRAINT IF EXISTS %I CASCADE', rel, r.conname);
  END LOOP;
  FOR r IN SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
      CROSS JOIN LATERAL meta.managed(obj_description(c.oid, 'pg_class')) AS i(info)
      LEFT JOIN unnest(index_names, index_defs) AS d(name, def) ON d.name = c.relname
    WHERE x.indrelid = rel AND i.info ? 'fingerprint' AND (d.def IS NULL OR md5(d.def) <> i.info ->> 'fingerprint')
  LOOP
    EXECUTE format('DROP INDEX IF EXISTS app.%I', r.relname);
  END LOOP;
END $$;

-- Columns no longer in the model: dropped when they hold no value, otherwise the migration stops.
CREATE OR REPLACE FUNCTION meta.drop_stale_columns(tbl text, keep text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  rel regclass := format('app.%I', tbl)::regclass;
  r record;
  n bigint;
BEGIN
  FOR r IN SELECT attname FROM pg_attribute
    WHERE attrelid = rel AND attnum > 0 AND NOT attisdropped AND attname <> ALL (keep)
  LOOP
    EXECUTE format('SELECT count(*) FROM %s WHERE %I IS NOT NULL', rel, r.attname) INTO n;
    -- The columns modules and strategies add say what dropping them would mean; a property's say how to rename it.
    IF n > 0 AND r.attname = 'deleted_at' THEN
      RAISE EXCEPTION 'Refused: app.% no longer soft-deletes, but % of its records are soft-deleted (deleted_at): without the column they would be live again',
        tbl, n
        USING HINT = format('Keep softDelete, or delete them for good first (DELETE FROM %s WHERE deleted_at IS NOT NULL;), then migrate again.', rel);
    ELSIF n > 0 AND r.attname = 'organization_id' THEN
      RAISE EXCEPTION 'Refused: the model''s strategy no longer keeps app.% by organization, but its % rows belong to organizations: '
        'without organization_id every organization would see every row', tbl, n
        USING HINT = format('Keep an organization strategy; if one shared space is what you want: ALTER TABLE %s DROP COLUMN organization_id;', rel);
    ELSIF n > 0 THEN
      RAISE EXCEPTION 'Refused: app.%.% is no longer in the model but % rows hold a value in it', tbl, r.attname || meta.about(rel), n
        USING HINT = format('Put the property back; if it was renamed, say so on its new name in the model ("renamedFrom": %s), '
          || 'and the migration renames the column; or drop the data yourself: ALTER TABLE %s DROP COLUMN %I;', to_json(r.attname), rel, r.attname);
    END IF;
    EXECUTE format('ALTER TABLE %s DROP COLUMN %I', rel, r.attname);
  END LOOP;
END $$;

-- Tables no longer in the model: dropped when empty, otherwise the migration stops.
CREATE OR REPLACE FUNCTION meta.drop_stale_tables(keep text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r record;
  n bigint;
BEGIN
  FOR r IN SELECT c.relname FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace
    WHERE s.nspname = 'app' AND c.relkind IN ('r', 'p') AND c.relname <> ALL (keep)
  LOOP
    EXECUTE format('SELECT count(*) FROM app.%I', r.relname) INTO n;
    IF n > 0 THEN
      RAISE EXCEPTION 'Refused: table app.% is no longer in the model but holds % rows', r.relname || meta.about(format('app.%I', r.relname)::regclass), n
        USING HINT = format('Put the entity back; if it (or its collection) was renamed, say so on the entity in the model '
          || '("renamedFrom": {"entity": "<its earlier name>", "collection": %s}), and the migration renames the table; '
          || 'or drop the data yourself: DROP TABLE app.%I;', to_json(r.relname), r.relname);
    END IF;
    EXECUTE format('DROP TABLE app.%I CASCADE', r.relname);
  END LOOP;
END $$;

-- Renames said in the model (renamedFrom). Each applies once: while the earlier name exists and the new one does
-- not. Rows keep their values, and the change log (history, streams, webhooks) follows the new names.
CREATE OR REPLACE FUNCTION meta.rename_table(old text, new text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  r record;
BEGIN
  IF to_regclass(format('app.%I', old)) IS NULL OR to_regclass(format('app.%I', new)) IS NOT NULL THEN RETURN; END IF;
  EXECUTE format('ALTER TABLE app.%I RENAME TO %I', old, new);
  -- Constraints and indexes named after the table take its new name (a key's index goes with its constraint).
  FOR r IN SELECT conname FROM pg_constraint WHERE conrelid = format('app.%I', new)::regclass AND starts_with(conname, old || '_') LOOP
    EXECUTE format('ALTER TABLE app.%I RENAME CONSTRAINT %I TO %I', new, r.conname, new || substr(r.conname, length(old) + 1));
  END LOOP;
  FOR r IN SELECT c.relname FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
    WHERE x.indrelid = format('app.%I', new)::regclass AND starts_with(c.relname, old || '_') LOOP
    EXECUTE format('ALTER INDEX app.%I RENAME TO %I', r.relname, new || substr(r.relname, length(old) + 1));
  END LOOP;
  UPDATE lib.changes SET table_name = new WHERE table_name = old;
  DELETE FROM lib.changes_keep WHERE table_name = old;
  DELETE FROM lib.fields WHERE tbl = old;
END $$;

CREATE OR REPLACE FUNCTION meta.rename_column(tbl text, old text, new text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  rel regclass := to_regclass(format('app.%I', tbl));
BEGIN
  IF rel IS NULL OR NOT EXISTS (SELECT FROM pg_attribute WHERE attrelid = rel AND attname = old AND NOT attisdropped)
    OR EXISTS (SELECT FROM pg_attribute WHERE attrelid = rel AND attname = new AND NOT attisdropped) THEN
    RETURN;
  END IF;
  EXECUTE format('ALTER TABLE %s RENAME COLUMN %I TO %I', rel, old, new);
  -- PostgreSQL 18 names a NOT NULL constraint after its column: it takes the new name.
  IF EXISTS (SELECT FROM pg_constraint WHERE conrelid = rel AND conname = format('%s_%s_not_null', tbl, old)) THEN
    EXECUTE format('ALTER TABLE %s RENAME CONSTRAINT %I TO %I', rel, format('%s_%s_not_null', tbl, old), format('%s_%s_not_null', tbl, new));
  END IF;
  UPDATE lib.changes SET image = (image - old) || jsonb_build_object(new, image -> old)
  WHERE table_name = tbl AND image ? old;
END $$;

-- An entity's name in the change log (lib.changes.entity), after a rename.
CREATE OR REPLACE FUNCTION meta.rename_entity(old text, new text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE lib.changes SET entity = new WHERE entity = old;
END $$;

-- Drops function `sig` when it returns another type than `returns`, so that CREATE OR REPLACE can follow.
CREATE OR REPLACE FUNCTION meta.drop_if_returns(sig text, returns regtype) RETURNS void LANGUAGE plpgsql AS $$
DECLARE f regprocedure := to_regprocedure(sig);
BEGIN
  IF f IS NOT NULL AND (SELECT p.prorettype FROM pg_proc p WHERE p.oid = f) <> returns THEN
    EXECUTE format('DROP FUNCTION %s', f);
  END IF;
END $$;

-- api.* functions the model no longer has (dispatch, dispatch_each, manifest and the upload functions stay).
CREATE OR REPLACE FUNCTION meta.drop_stale_functions(keep text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT p.oid::regprocedure AS sig, p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = 'api' AND p.proname NOT IN ('dispatch', 'dispatch_each', 'manifest', 'upload_intent', 'upload_prepare') AND p.proname <> ALL (keep)
  LOOP
    EXECUTE format('DROP FUNCTION %s', r.sig);
  END LOOP;
END $$;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA meta FROM PUBLIC;
