-- Record actions of the request engine: list/search, read, create, replace, patch, delete, restore.
-- Each takes the resource name and the jsonb argument of the api.* protocol (compiler/manifest/types.ts).

-- t.<col>, … for the readable columns, plus the revision token and last-modified time.
CREATE OR REPLACE FUNCTION lib.select_list(d jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(format('t.%I', c), ', ') || ', t._rev, t._modified_at'
  FROM jsonb_array_elements_text(d -> 'output') AS c
$$;

-- {data, id, etag, last_modified} from a row selected with lib.select_list.
CREATE OR REPLACE FUNCTION lib.single(d jsonb, r jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object(
    'data', r - '_rev' - '_modified_at',
    'id', r ->> (d ->> 'pk'),
    'etag', coalesce(r ->> (d ->> 'version'), r ->> '_rev'),
    'last_modified', r -> '_modified_at')
$$;

-- The key of a record from its text form; a value that cannot be a key finds no record (404).
CREATE OR REPLACE FUNCTION lib.require_key(d jsonb, id text, what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF id IS NULL OR NOT lib.castable(id, d ->> 'pk_type') THEN
    PERFORM lib.refuse('PT404', format('no %s with %s "%s"', what, d ->> 'pk', coalesce(id, '')), NULL, NULL);
  END IF;
END $$;

CREATE OR REPLACE FUNCTION lib.not_found(d jsonb, id text) RETURNS void LANGUAGE sql AS $$
  SELECT lib.refuse('PT404', format('no %s with %s "%s"', d ->> 'entity', d ->> 'pk', id), NULL, NULL)
$$;

-- For nested paths: the parent must exist; returns the condition tying rows to it.
CREATE OR REPLACE FUNCTION lib.parent_sql(d jsonb, args jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  IF args ->> 'parent' IS NULL THEN RETURN 'true'; END IF;
  IF d -> 'parent' IS NULL OR d -> 'parent' = 'null'::jsonb THEN
    PERFORM lib.bad_request(format('%s has no parent', d ->> 'entity'));
  END IF;
  -- Parent pre-flight: the caller must be able to read the parent (404 missing, 403 hidden).
  PERFORM lib.require_owner(d -> 'parent' ->> 'resource', args ->> 'parent', 'read');
  RETURN format('t.%I = ($1 ->> ''parent'')::%s', d -> 'parent' ->> 'column', (d -> 'columns' -> (d -> 'parent' ->> 'column')) ->> 'type');
END $$;

-- Key, parent and soft-delete condition of a single-record action; `rows` is live, deleted or any.
CREATE OR REPLACE FUNCTION lib.record_sql(d jsonb, args jsonb, rows text DEFAULT 'live') RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lib.require_key(d, args ->> 'id', d ->> 'entity');
  RETURN format('t.%I = ($1 ->> ''id'')::%s AND %s%s', d ->> 'pk', d ->> 'pk_type', lib.parent_sql(d, args),
    CASE WHEN NOT (d ->> 'soft_delete')::boolean OR rows = 'any' THEN ''
      WHEN rows = 'deleted' THEN ' AND t.deleted_at IS NOT NULL' ELSE ' AND t.deleted_at IS NULL' END);
END $$;

-- Paging of lists: page from 1, per_page 1 to 100 (defaults 1 and 25).
CREATE OR REPLACE FUNCTION lib.page(args jsonb) RETURNS int LANGUAGE plpgsql AS $$
DECLARE page int := coalesce((args ->> 'page')::int, 1);
BEGIN
  IF page < 1 THEN PERFORM lib.bad_request('page must be 1 or more'); END IF;
  RETURN page;
END $$;

CREATE OR REPLACE FUNCTION lib.per_page(args jsonb) RETURNS int LANGUAGE plpgsql AS $$
DECLARE per_page int := coalesce((args ->> 'per_page')::int, 25);
BEGIN
  IF per_page < 1 OR per_page > 100 THEN PERFORM lib.bad_request('per_page must be between 1 and 100'); END IF;
  RETURN per_page;
END $$;

CREATE OR REPLACE FUNCTION lib.list(resource text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  d jsonb := lib.resource(resource);
  page int := lib.page(args);
  per_page int := lib.per_page(args);
  cond text;
  total bigint;
  rows jsonb;
BEGIN
  cond := lib.parent_sql(d, args) || ' AND ' || lib.filter_sql(d, args -> 'filter', '{filter}')
    || CASE WHEN (d ->> 'soft_delete')::boolean THEN ' AND t.deleted_at IS NULL' ELSE '' END;
  EXECUTE format('SELECT count(*) FROM app.%I t WHERE %s', d ->> 'table', cond) INTO total USING args;
  EXECUTE format('SELECT coalesce(jsonb_agg(to_jsonb(s) - ''_rev'' - ''_modified_at''), ''[]'') FROM (SELECT %s FROM app.%I t WHERE %s ORDER BY %s LIMIT %s OFFSET %s) s',
    lib.select_list(d), d ->> 'table', cond, lib.order_sql(d, args -> 'sort'), per_page, (page - 1)::bigint * per_page)
    INTO rows USING args;
  RETURN jsonb_build_object('data', rows, 'meta', jsonb_build_object('total', total, 'page', page, 'per_page', per_page));
END $$;

CREATE OR REPLACE FUNCTION lib.read(resource text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  d jsonb := lib.resource(resource);
  r jsonb;
BEGIN
  EXECUTE format('SELECT to_jsonb(s) FROM (SELECT %s FROM app.%I t WHERE %s) s', lib.select_list(d), d ->> 'table', lib.record_sql(d, args))
    INTO r USING args;
  IF r IS NULL THEN PERFORM lib.missing(d, args ->> 'id', lib.action(), args ->> 'parent'); END IF;
  RETURN lib.single(d, r);
END $$;

-- Checks a body's keys: each must be a property, and never a readOnly one (spec 2.2: 400).
CREATE OR REPLACE FUNCTION lib.check_body(d jsonb, body jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k text;
  c jsonb;
BEGIN
  IF jsonb_typeof(body) IS DISTINCT FROM 'object' THEN PERFORM lib.bad_request('the body must be a JSON object'); END IF;
  FOR k IN SELECT jsonb_object_keys(body) LOOP
    c := d -> 'columns' -> k;
    IF c IS NULL THEN PERFORM lib.bad_request(format('unknown property "%s"', k), k, 'unknown'); END IF;
    IF (c ->> 'read_only')::boolean THEN
      PERFORM lib.bad_request(format('readOnly property "%s" cannot be supplied', k), k, 'readOnly');
    END IF;
  END LOOP;
END $$;

-- The body with the parent key of a nested path filled in (a different one in the body is refused).
CREATE OR REPLACE FUNCTION lib.with_parent(d jsonb, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  col text := d -> 'parent' ->> 'column';
  body jsonb := args -> 'body';
BEGIN
  IF args ->> 'parent' IS NULL THEN RETURN body; END IF;
  IF body ? col AND body ->> col IS DISTINCT FROM args ->> 'parent' THEN
    PERFORM lib.bad_request(format('"%s" must be the parent''s key "%s" on this path', col, args ->> 'parent'), col, 'parent');
  END IF;
  RETURN body || jsonb_build_object(col, args ->> 'parent');
END $$;

CREATE OR REPLACE FUNCTION lib.create(resource text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  d jsonb := lib.resource(resource);
  body jsonb;
  cols text;
  r jsonb;
BEGIN
  PERFORM lib.check_body(d, args -> 'body');
  PERFORM lib.parent_sql(d, args);
  body := lib.with_parent(d, args);
  SELECT string_agg(format('%I', k), ', ') INTO cols FROM jsonb_object_keys(body) k;
  BEGIN
  EXECUTE format('WITH ins AS (INSERT INTO app.%I AS t %s RETURNING %s) SELECT to_jsonb(ins) FROM ins', d ->> 'table',
    CASE WHEN cols IS NULL THEN 'DEFAULT VALUES'
      ELSE format('(%s) SELECT %s FROM jsonb_populate_record(NULL::app.%I, $1) r', cols,
        (SELECT string_agg(format('r.%I', k), ', ') FROM jsonb_object_keys(body) k), d ->> 'table') END,
    lib.select_list(d))
    INTO r USING body;
  EXCEPTION WHEN insufficient_privilege THEN
    -- The row-level policy's WITH CHECK: the new record does not satisfy the winning scenario.
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" does not allow you to create this %s.',
        coalesce(d -> 'scenarios' -> lib.scenario() ->> 'label', lib.scenario()), d ->> 'entity'),
      DETAIL = jsonb_build_object('scenario', d -> 'scenarios' -> lib.scenario() ->> 'label',
        'rules', (SELECT string_agg(x ->> 'rule', ', ') FROM jsonb_array_elements(d -> 'scenarios' -> lib.scenario() -> 'rules') x))::text;
  END;
  RETURN lib.single(d, r);
END $$;

-- replace (PUT) and patch: `patch` sets only the body's properties and merges JSON ones (RFC 7396);
-- replace resets every omitted writable property to its default (or null).
CREATE OR REPLACE FUNCTION lib.update(resource text, args jsonb, patch boolean) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  d jsonb := lib.resource(resource);
  body jsonb := args -> 'body';
  sets text[] := '{}';
  k text;
  c jsonb;
  r jsonb;
  where_sql text;
BEGIN
  PERFORM lib.check_body(d, body);
  where_sql := lib.record_sql(d, args);
  FOR k, c IN SELECT * FROM jsonb_each(d -> 'columns') LOOP
    IF (c ->> 'read_only')::boolean OR (c ->> 'managed')::boolean THEN CONTINUE; END IF;
    IF body ? k THEN
      IF (c ->> 'primary')::boolean THEN
        IF body ->> k IS DISTINCT FROM args ->> 'id' THEN
          PERFORM lib.bad_request(format('primary key "%s" cannot be changed', k), k, 'primary');
        END IF;
        CONTINUE;
      END IF;
      sets := sets || CASE
        WHEN patch AND (c ->> 'json')::boolean AND jsonb_typeof(body -> k) = 'object'
          THEN format('%I = lib.merge_patch(t.%I, $1 -> ''body'' -> %L)', k, k, k)
        ELSE format('%I = r.%I', k, k) END;
    ELSIF NOT patch AND NOT (c ->> 'primary')::boolean AND NOT (c ->> 'immutable')::boolean THEN
      sets := sets || format('%I = %s', k, CASE WHEN (c ->> 'has_default')::boolean THEN 'DEFAULT' ELSE 'NULL' END);
    END IF;
  END LOOP;
  -- An empty PATCH still counts as a write (new revision, version + 1), like any other update.
  IF cardinality(sets) = 0 THEN sets := ARRAY[format('%I = t.%I', d ->> 'pk', d ->> 'pk')]; END IF;
  EXECUTE format('WITH upd AS (UPDATE app.%I t SET %s FROM jsonb_populate_record(NULL::app.%I, $1 -> ''body'') r WHERE %s RETURNING %s) SELECT to_jsonb(upd) FROM upd',
    d ->> 'table', array_to_string(sets, ', '), d ->> 'table', where_sql || ' AND ' || lib.precondition_sql(d, args), lib.select_list(d))
    INTO r USING args;
  IF r IS NULL THEN PERFORM lib.explain_miss(d, args, where_sql); END IF;
  RETURN lib.single(d, r);
END $$;

CREATE OR REPLACE FUNCTION lib.delete(resource text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  d jsonb := lib.resource(resource);
  soft boolean := (d ->> 'soft_delete')::boolean AND NOT coalesce((args ->> 'permanent')::boolean, false);
  -- A permanent delete also removes a record that is already soft-deleted.
  where_sql text := lib.record_sql(d, args, CASE WHEN soft THEN 'live' ELSE 'any' END);
  n bigint;
BEGIN
  EXECUTE format(CASE WHEN soft THEN 'UPDATE app.%I t SET deleted_at = now() WHERE %s' ELSE 'DELETE FROM app.%I t WHERE %s' END,
    d ->> 'table', where_sql || ' AND ' || lib.precondition_sql(d, args)) USING args;
  GET DIAGNOSTICS n = ROW_COUNT;
  IF n = 0 THEN PERFORM lib.explain_miss(d, args, where_sql); END IF;
  RETURN '{}'::jsonb;
END $$;

-- Restore a soft-deleted record; restoring one that is not deleted returns it unchanged.
CREATE OR REPLACE FUNCTION lib.restore(resource text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  d jsonb := lib.resource(resource);
  r jsonb;
BEGIN
  IF NOT (d ->> 'soft_delete')::boolean THEN PERFORM lib.bad_request(format('%s has no soft delete', d ->> 'entity')); END IF;
  EXECUTE format('WITH upd AS (UPDATE app.%I t SET deleted_at = NULL WHERE %s RETURNING %s) SELECT to_jsonb(upd) FROM upd',
    d ->> 'table', lib.record_sql(d, args, 'deleted'), lib.select_list(d)) INTO r USING args;
  IF r IS NULL THEN RETURN lib.read(resource, args); END IF;
  RETURN lib.single(d, r);
END $$;
