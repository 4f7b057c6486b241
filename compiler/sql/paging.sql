-- Paging of lists and searches (issue: keyset paging and count modes): the sort keys of a request, the
-- ORDER BY and the keyset condition built from them, opaque cursors, and the total in three modes.

-- The sort keys: [{expr, type, desc, pk}] for each requested sort field up to the primary key, then the
-- key ascending unless it was sorted on (the tie-break that makes every order total, so pages and cursors are stable).
CREATE OR REPLACE FUNCTION lib.sort_keys(d jsonb, sort jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  pk text := format('t.%I', d ->> 'pk');
  keys jsonb := '[]';
  k jsonb;
  f jsonb;
BEGIN
  FOR k IN SELECT * FROM jsonb_array_elements(coalesce(sort, '[]'::jsonb)) LOOP
    f := lib.field_expr(d, k ->> 'field', 'sort');
    IF (f ->> 'json')::boolean THEN
      PERFORM lib.bad_request(format('sort by a JSON property needs a path, e.g. %s.key', k ->> 'field'), k ->> 'field', 'sort');
    END IF;
    keys := keys || jsonb_build_object('expr', f ->> 'expr', 'type', f ->> 'type', 'desc', coalesce((k ->> 'desc')::boolean, false),
      'pk', f ->> 'expr' = pk);
    -- Nothing orders rows the key already ordered.
    IF f ->> 'expr' = pk THEN RETURN keys; END IF;
  END LOOP;
  RETURN keys || jsonb_build_object('expr', pk, 'type', d -> 'columns' -> (d ->> 'pk') ->> 'type', 'desc', false, 'pk', true);
END $$;

-- ORDER BY of the keys, NULLS LAST; `reverse` flips every direction (a page read backwards from `before`).
DROP FUNCTION IF EXISTS lib.order_sql(jsonb, jsonb);
CREATE OR REPLACE FUNCTION lib.order_sql(keys jsonb, reverse boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT string_agg(format('%s %s', k ->> 'expr',
    CASE WHEN (k ->> 'desc')::boolean <> reverse THEN 'DESC' ELSE 'ASC' END || CASE WHEN reverse THEN ' NULLS FIRST' ELSE ' NULLS LAST' END), ', ' ORDER BY n)
  FROM jsonb_array_elements(keys) WITH ORDINALITY AS x(k, n)
$$;

CREATE OR REPLACE FUNCTION lib.jsonb_reverse(a jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_agg(e ORDER BY n DESC), '[]') FROM jsonb_array_elements(a) WITH ORDINALITY AS x(e, n)
$$;
CREATE OR REPLACE FUNCTION lib.json_reverse(a json) RETURNS json LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(json_agg(e ORDER BY n DESC), '[]') FROM json_array_elements(a) WITH ORDINALITY AS x(e, n)
$$;

-- The row values of the keys, as a JSON array: the cursor of a row.
CREATE OR REPLACE FUNCTION lib.keys_sql(keys jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'jsonb_build_array(' || string_agg(k ->> 'expr', ', ' ORDER BY n) || ')' FROM jsonb_array_elements(keys) WITH ORDINALITY AS x(k, n)
$$;

-- The rows strictly after (or before) the cursor in the order of the keys, NULLS LAST: for each key, the
-- earlier keys equal and this one past. The cursor's values are read from $1 (args -> 'cursor'); which of
-- them are null shapes the text (a null has nothing after it but nulls), so the statement stays sargable.
CREATE OR REPLACE FUNCTION lib.keyset_sql(keys jsonb, cursor jsonb, before boolean) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  ors text[] := '{}';
  eqs text[] := '{}';
  i int;
  k jsonb;
  e text;
  v text;
  past text;
  greater boolean;
BEGIN
  FOR i IN 0 .. jsonb_array_length(keys) - 1 LOOP
    k := keys -> i;
    e := k ->> 'expr';
    v := format('($1 #>> %L::text[])::%s', ARRAY['cursor', i::text]::text, k ->> 'type');
    greater := (k ->> 'desc')::boolean = before;  -- moving towards greater values
    IF jsonb_typeof(cursor -> i) = 'null' THEN
      past := CASE WHEN before THEN format('%s IS NOT NULL', e) END;
      IF past IS NOT NULL THEN ors := ors || array_to_string(eqs || past, ' AND '); END IF;
      eqs := eqs || format('%s IS NULL', e);
    ELSE
      past := format('%s %s %s', e, CASE WHEN greater THEN '>' ELSE '<' END, v);
      IF NOT before AND NOT coalesce((k ->> 'pk')::boolean, false) THEN past := format('(%s OR %s IS NULL)', past, e); END IF;
      ors := ors || array_to_string(eqs || past, ' AND ');
      eqs := eqs || format('%s = %s', e, v);
    END IF;
  END LOOP;
  IF cardinality(ors) = 0 THEN RETURN 'false'; END IF;
  -- One parenthesised condition: the list ANDs it to its filters, and AND binds tighter than OR.
  RETURN '((' || array_to_string(ors, ') OR (') || '))';
END $$;

-- A cursor: base64url of {"k": the row's key values, "s": the sort it belongs to}. Opaque to clients;
-- checked on the way back (lib.cursor_keys), never trusted: it only says where to start, under the policies.
CREATE OR REPLACE FUNCTION lib.cursor_text(keys jsonb, sort jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT rtrim(translate(encode(convert_to(jsonb_build_object('k', keys, 's', coalesce(sort, '[]'::jsonb))::text, 'UTF8'), 'base64'), E'+/\n', '-_'), '=')
$$;

-- The key values of a cursor given back, checked against the request's sort keys: 400 when it is not one
-- of ours, belongs to another sort, or holds a value its key's type cannot take.
CREATE OR REPLACE FUNCTION lib.cursor_keys(cursor text, keys jsonb, sort jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  raw text := translate(cursor, '-_', '+/');
  doc jsonb;
  i int;
BEGIN
  BEGIN
    doc := convert_from(decode(raw || repeat('=', (4 - length(raw) % 4) % 4), 'base64'), 'UTF8')::jsonb;
  EXCEPTION WHEN OTHERS THEN
    PERFORM lib.bad_request('the cursor is not one this API gave out', 'cursor', 'cursor');
  END;
  IF jsonb_typeof(doc) IS DISTINCT FROM 'object' OR jsonb_typeof(doc -> 'k') IS DISTINCT FROM 'array'
     OR jsonb_array_length(doc -> 'k') <> jsonb_array_length(keys) THEN
    PERFORM lib.bad_request('the cursor is not one this API gave out', 'cursor', 'cursor');
  END IF;
  IF doc -> 's' IS DISTINCT FROM coalesce(sort, '[]'::jsonb) THEN
    PERFORM lib.bad_request('the cursor belongs to another sort: send the sort it was given with', 'cursor', 'cursor');
  END IF;
  FOR i IN 0 .. jsonb_array_length(keys) - 1 LOOP
    IF jsonb_typeof(doc -> 'k' -> i) IN ('object', 'array')
       OR NOT lib.castable(doc -> 'k' ->> i, keys -> i ->> 'type')
       OR (coalesce((keys -> i ->> 'pk')::boolean, false) AND jsonb_typeof(doc -> 'k' -> i) = 'null') THEN
      PERFORM lib.bad_request('the cursor is not one this API gave out', 'cursor', 'cursor');
    END IF;
  END LOOP;
  RETURN doc -> 'k';
END $$;

-- The rows of `tbl` the caller's organization holds, by the planner's statistics of organization_id (its share
-- in the most common values, else an even share of the rest); 0 before the table was first analyzed. Definer:
-- pg_stats shows a request role nothing of a table under row-level security; it says only the caller's share.
CREATE OR REPLACE FUNCTION lib.organization_rows(tbl regclass, table_rows real) RETURNS real
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT coalesce((
    SELECT CASE WHEN p.i IS NOT NULL THEN s.most_common_freqs[p.i] * table_rows
      ELSE (1 - coalesce((SELECT sum(f) FROM unnest(s.most_common_freqs) f), 0)) * table_rows
        / greatest(1, CASE WHEN s.n_distinct < 0 THEN -s.n_distinct * table_rows ELSE s.n_distinct END
          - coalesce(array_length(s.most_common_freqs, 1), 0)) END
    FROM pg_catalog.pg_class c
    JOIN pg_catalog.pg_stats s ON s.schemaname = 'app' AND s.tablename = c.relname AND s.attname = 'organization_id'
    CROSS JOIN LATERAL (SELECT array_position(s.most_common_vals::text::text[], auth.org()) AS i) p
    WHERE c.oid = tbl AND c.relnamespace = 'app'::regnamespace), 0)
$$;
REVOKE EXECUTE ON FUNCTION lib.organization_rows(regclass, real) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lib.organization_rows(regclass, real) TO anon, authenticated;

-- The page's total by count mode: exact (count every match), none (no count), or estimated: on a table of
-- at least 100 x `exact_below` rows, the matches in a block sample of about 20 x `exact_below` rows, scaled
-- up, counted under the caller's policies like the exact count; counted exactly when that is under
-- `exact_below` or the table is smaller. Under the organization strategies "the table" is the caller's
-- organization's rows (lib.organization_rows): whether and how a list is estimated never follows other
-- organizations' volume. (The planner's own estimate under the OR of several policies is far too low to
-- report: 157 for 26,600 matches in the publishing example.) Returns {total, count}.
DROP FUNCTION IF EXISTS lib.page_total(text, text, bigint);
CREATE OR REPLACE FUNCTION lib.page_total(mode text, count_sql text, sample_sql text, tbl regclass, exact_below bigint)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  table_rows real;
  pct real;
  sampled bigint;
  estimate bigint;
  total bigint;
BEGIN
  IF mode = 'none' THEN RETURN jsonb_build_object('count', 'none'); END IF;
  IF mode = 'estimated' THEN
    SELECT c.reltuples INTO table_rows FROM pg_class c WHERE c.oid = tbl;
    IF EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = tbl AND a.attname = 'organization_id' AND NOT a.attisdropped) THEN
      table_rows := lib.organization_rows(tbl, table_rows);
    END IF;
    IF table_rows >= 100 * exact_below THEN
      pct := least(100, 100.0 * 20 * exact_below / table_rows);
      PERFORM set_config('request.q.sample', pct::text, true);
      sampled := lib.query_prepared(sample_sql, NULL::bigint);
      estimate := round(sampled * 100.0 / pct);
      IF estimate >= exact_below THEN RETURN jsonb_build_object('total', estimate, 'count', 'estimated'); END IF;
    END IF;
  END IF;
  total := lib.query_prepared(count_sql, NULL::bigint);
  RETURN jsonb_build_object('total', total, 'count', 'exact');
END $$;
