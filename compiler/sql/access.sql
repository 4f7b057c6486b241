-- Access control in the engine (spec 5.2): PRE_FETCH picks the winning scenario before any row is read
-- (none: 401 anonymous, 403 otherwise); RLS policies do FETCH and POST_FETCH; a record the policies hide
-- is told apart from a missing one (403 vs 404) by a narrow definer check, only when no row came back.

-- Drops every policy of app.<tbl>; the migration then creates the model's policies afresh.
CREATE OR REPLACE FUNCTION meta.drop_policies(tbl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT policyname FROM pg_policies WHERE schemaname = 'app' AND tablename = tbl LOOP
    EXECUTE format('DROP POLICY %I ON app.%I', r.policyname, tbl);
  END LOOP;
END $$;

-- PRE_FETCH: the key of the scenario that wins `action` on the entity `d`; none is 401 for an anonymous
-- caller and 403 otherwise, before any row is read.
CREATE OR REPLACE FUNCTION lib.winner(d jsonb, action text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE winner text;
BEGIN
  EXECUTE format('SELECT app.%I($1)', d ->> 'table' || '_access') INTO winner USING action;
  IF winner IS NULL THEN
    IF auth.uid() IS NULL THEN
      RAISE EXCEPTION USING ERRCODE = 'PT401', MESSAGE = format('No access scenario lets an anonymous caller %s %s: sign in.', action, d ->> 'entity');
    END IF;
    RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('No access scenario lets you %s %s.', action, d ->> 'entity');
  END IF;
  RETURN winner;
END $$;

-- Runs `op` of the engine on `resource` as `action` of the entity `owner` (the entity itself, or the owner
-- of a join or sub-resource table), after PRE_FETCH. The result carries the winning scenario's key.
CREATE OR REPLACE FUNCTION lib.run(owner text, action text, op text, resource text, args jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  o jsonb := lib.resource(owner);
  winner text;
  result jsonb;
BEGIN
  PERFORM set_config('request.action', action, true);
  winner := lib.winner(o, action);
  PERFORM set_config('request.scenario', winner, true);
  result := CASE op
    WHEN 'list' THEN lib.list(resource, args)
    WHEN 'read' THEN lib.read(resource, args)
    WHEN 'create' THEN lib.create(resource, args)
    WHEN 'replace' THEN lib.update(resource, args, false)
    WHEN 'patch' THEN lib.update(resource, args, true)
    WHEN 'delete' THEN lib.delete(resource, args)
    WHEN 'restore' THEN lib.restore(resource, args)
    WHEN 'linked' THEN lib.linked(resource, args)
    WHEN 'link' THEN lib.link(resource, args)
    WHEN 'unlink' THEN lib.unlink(resource, args)
    WHEN 'sub_read' THEN lib.sub_read(resource, args)
    WHEN 'sub_replace' THEN lib.sub_replace(resource, args)
  END;
  RETURN result || jsonb_build_object('scenario', (o -> 'scenarios' -> winner) ->> 'label');
END $$;

-- Runs `sql` (a query of the engine) with request.action set to `action`, then restores it: a parent or
-- a link target is looked up as its `read`, whatever the request does to the child.
CREATE OR REPLACE FUNCTION lib.exists_as(action text, sql text, key text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  before text := lib.action();
  found boolean;
BEGIN
  PERFORM set_config('request.action', action, true);
  EXECUTE sql INTO found USING key;
  PERFORM set_config('request.action', coalesce(before, ''), true);
  RETURN found;
END $$;

-- Whether the row exists at all (under `parent_key` on a nested path), whatever the policies say.
-- Definer: it sees past RLS, and says only that.
CREATE OR REPLACE FUNCTION lib.row_exists(tbl text, pk text, pk_type text, key text, soft_delete boolean,
  parent_col text DEFAULT NULL, parent_key text DEFAULT NULL, org boolean DEFAULT false)
RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE found boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM app.%I t WHERE t.%I = $1::%s%s%s%s)', tbl, pk, pk_type,
    CASE WHEN soft_delete THEN ' AND t.deleted_at IS NULL' ELSE '' END,
    CASE WHEN parent_col IS NOT NULL AND parent_key IS NOT NULL THEN format(' AND t.%I::text = $2', parent_col) ELSE '' END,
    -- Another organization's record does not exist for this caller.
    CASE WHEN org THEN ' AND t.organization_id = auth.org()' ELSE '' END)
    INTO found USING key, parent_key;
  RETURN found;
END $$;

-- The data rules of the winning scenario that the row breaks (definer: evaluates compiled rule SQL).
CREATE OR REPLACE FUNCTION lib.failing_rules(tbl text, pk text, pk_type text, key text, rules jsonb)
RETURNS text LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
  r jsonb;
  ok boolean;
  failed text[] := '{}';
BEGIN
  FOR r IN SELECT * FROM jsonb_array_elements(coalesce(rules, '[]'::jsonb)) LOOP
    EXECUTE format('SELECT NOT (%s) OR coalesce(%s, false) FROM app.%I WHERE %I = $1::%s', coalesce(r ->> 'guard', 'true'), r ->> 'sql', tbl, pk, pk_type)
      INTO ok USING key;
    IF ok IS NOT TRUE THEN failed := failed || (r ->> 'rule'); END IF;
  END LOOP;
  RETURN array_to_string(failed, ', ');
END $$;

-- Refuses with 403 (401 for an anonymous caller no scenario admits) when the winning scenario of
-- `action` rejects the existing record `id`, naming the scenario, its level and the failing data rules.
CREATE OR REPLACE FUNCTION lib.refuse_if_denied(d jsonb, id text, action text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  winner text;
  s jsonb;
  failing text;
BEGIN
  winner := lib.winner(d, action);
  s := d -> 'scenarios' -> winner;
  failing := lib.failing_rules(d ->> 'table', d ->> 'pk', d ->> 'pk_type', id, s -> 'rules');
  IF coalesce(failing, '') <> '' THEN
    RAISE EXCEPTION USING ERRCODE = 'PT403',
      MESSAGE = format('Scenario "%s" (%s level) does not allow you to %s this %s: %s does not hold.',
        coalesce(s ->> 'label', winner), coalesce(s ->> 'level', 'unknown'), action, d ->> 'entity', failing),
      DETAIL = jsonb_build_object('scenario', s ->> 'label', 'rules', failing)::text;
  END IF;
END $$;

-- Whether record `id` exists for the caller's API: live (softDelete), inside the caller's organization
-- (organization strategies) and under the parent of a nested path, whatever the policies say.
CREATE OR REPLACE FUNCTION lib.record_exists(d jsonb, id text, parent_key text DEFAULT NULL) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  IF NOT lib.castable(id, d ->> 'pk_type') THEN RETURN false; END IF;  -- not a key: no such record
  RETURN lib.row_exists(d ->> 'table', d ->> 'pk', d ->> 'pk_type', id,
    coalesce((d ->> 'soft_delete')::boolean, false), d -> 'parent' ->> 'column', parent_key, coalesce((d ->> 'org')::boolean, false));
END $$;

-- An existing record the caller may not `action`: 403 naming the failing rules where there are any.
CREATE OR REPLACE FUNCTION lib.forbidden(d jsonb, id text, action text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lib.refuse_if_denied(d, id, action);
  RAISE EXCEPTION USING ERRCODE = 'PT403', MESSAGE = format('You may not %s this %s.', action, d ->> 'entity');
END $$;

-- A record the caller cannot see as `action`: 403 when it exists, else 404.
CREATE OR REPLACE FUNCTION lib.missing(d jsonb, id text, action text DEFAULT lib.action(), parent_key text DEFAULT NULL)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF lib.record_exists(d, id, parent_key) THEN PERFORM lib.forbidden(d, id, action); END IF;
  PERFORM lib.not_found(d, id);
END $$;
