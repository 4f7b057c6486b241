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

-- Whether app.<tbl> holds a row (soft-deleted or not) whose key or unique column `col` is `key`, whatever the
-- policies say; in the caller's organization when the table has one. Definer: it sees past RLS, and says only
-- that. Nothing the caller passes becomes SQL text or a type: the table and column are quoted names, the
-- column must be a key or unique one, and its type comes from the catalog (a caller-named type ran the
-- caller's own domain CHECK as the owner). Only the request roles, whose write-rule triggers call it, may run it.
DROP FUNCTION IF EXISTS lib.row_exists(text, text, text, text, boolean, text, text, boolean);
CREATE OR REPLACE FUNCTION lib.row_exists(tbl text, col text, key text)
RETURNS boolean LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  rel regclass := format('app.%I', tbl)::regclass;
  att pg_attribute;
  org boolean;
  found boolean;
BEGIN
  SELECT * INTO att FROM pg_attribute a WHERE a.attrelid = rel AND a.attname = col AND a.attnum > 0 AND NOT a.attisdropped;
  IF NOT FOUND OR NOT EXISTS (SELECT FROM pg_index i WHERE i.indrelid = rel AND i.indisunique AND att.attnum = ANY (i.indkey)) THEN
    RAISE EXCEPTION 'lib.row_exists: app.%.% is not a key or unique column', tbl, col;
  END IF;
  org := EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = rel AND a.attname = 'organization_id' AND NOT a.attisdropped);
  -- The column's type without its length: a cast to varchar(255) would cut a longer key to one that matches.
  EXECUTE format('SELECT EXISTS (SELECT 1 FROM %s t WHERE t.%I = $1::%s%s)', rel, col, format_type(att.atttypid, NULL),
    CASE WHEN org THEN ' AND t.organization_id = auth.org()' ELSE '' END)
    INTO found USING key;
  RETURN found;
END $$;
REVOKE EXECUTE ON FUNCTION lib.row_exists(text, text, text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lib.row_exists(text, text, text) TO anon, authenticated;
