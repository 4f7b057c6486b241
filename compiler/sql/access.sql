-- Access control helpers shared by every table (spec 5.2). PRE_FETCH, the policies and the 403/404 split
-- are compiled per table (app.<table>_access, _exists, _failing, _refuse); these are the generic parts.

-- Drops every policy of app.<tbl>; the migration then creates the model's policies afresh.
CREATE OR REPLACE FUNCTION meta.drop_policies(tbl text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE r record;
BEGIN
  FOR r IN SELECT policyname FROM pg_policies WHERE schemaname = 'app' AND tablename = tbl LOOP
    EXECUTE format('DROP POLICY %I ON app.%I', r.policyname, tbl);
  END LOOP;
END $$;
-- As kit.sql does for the other meta functions (created after its blanket REVOKE): the same privileges on a
-- first install and on an upgrade, which `npm run commit` compares.
REVOKE EXECUTE ON FUNCTION meta.drop_policies(text) FROM PUBLIC;

-- Whether the row exists at all (under `parent_key` on a nested path), whatever the policies say.
-- Definer: it sees past RLS, and says only that. `pk_type` is read as a type name (regtype), never as SQL
-- text, and only the request roles (whose triggers call it) may execute it.
CREATE OR REPLACE FUNCTION lib.row_exists(tbl text, pk text, pk_type text, key text, soft_delete boolean,
  parent_col text DEFAULT NULL, parent_key text DEFAULT NULL, org boolean DEFAULT false)
RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE found boolean;
BEGIN
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM app.%I t WHERE t.%I = $1::%s%s%s%s)', tbl, pk, pk_type::regtype,
    CASE WHEN soft_delete THEN ' AND t.deleted_at IS NULL' ELSE '' END,
    CASE WHEN parent_col IS NOT NULL AND parent_key IS NOT NULL THEN format(' AND t.%I::text = $2', parent_col) ELSE '' END,
    -- Another organization's record does not exist for this caller.
    CASE WHEN org THEN ' AND t.organization_id = auth.org()' ELSE '' END)
    INTO found USING key, parent_key;
  RETURN found;
END $$;
REVOKE EXECUTE ON FUNCTION lib.row_exists(text, text, text, text, boolean, text, text, boolean) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lib.row_exists(text, text, text, text, boolean, text, text, boolean) TO anon, authenticated;
