-- Preconditions of writes (spec 2.6, 3.2, 4.4): If-Match (a list of ETags, or *), If-Unmodified-Since
-- (ignored when If-Match is present, RFC 9110 13.2.2) and the body version lock. They are conditions
-- of the write statement itself, so one statement decides; a miss is explained afterwards.

-- A row's ETag: the Version property when the entity has one, else the revision token.
CREATE OR REPLACE FUNCTION lib.etag_sql(d jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN d ->> 'version' IS NOT NULL THEN format('t.%I::text', d ->> 'version') ELSE 't._rev::text' END
$$;

-- The version the body expects (spec 4.4): absent, or a positive integer (anything else: 422).
CREATE OR REPLACE FUNCTION lib.expected_version(d jsonb, args jsonb) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  prop text := d ->> 'version';
  v jsonb;
BEGIN
  IF prop IS NULL THEN RETURN NULL; END IF;
  v := args -> 'body' -> prop;
  IF v IS NULL OR v = 'null'::jsonb THEN RETURN NULL; END IF;
  IF jsonb_typeof(v) <> 'number' OR v::numeric <> trunc(v::numeric) OR v::numeric < 1 THEN
    PERFORM lib.refuse('PT422', format('%s must be a positive integer (the version the update expects)', prop), prop, 'version');
  END IF;
  RETURN v::numeric;
END $$;

-- Extra conditions on the row for the write to apply ('true' when there are none).
CREATE OR REPLACE FUNCTION lib.precondition_sql(d jsonb, args jsonb) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  parts text[] := '{}';
BEGIN
  IF args ? 'if_match' THEN
    IF NOT (args -> 'if_match') ? '*' THEN
      parts := parts || format('%s = ANY (lib.as_text_array($1 -> ''if_match''))', lib.etag_sql(d));
    END IF;
  ELSIF args ? 'if_unmodified_since' THEN
    parts := parts || 'date_trunc(''second'', t._modified_at) <= ($1 ->> ''if_unmodified_since'')::timestamptz'::text;
  END IF;
  IF lib.expected_version(d, args) IS NOT NULL THEN
    parts := parts || format('t.%I = ($1 -> ''body'' ->> %L)::numeric', d ->> 'version', d ->> 'version');
  END IF;
  RETURN CASE WHEN cardinality(parts) = 0 THEN 'true' ELSE array_to_string(parts, ' AND ') END;
END $$;

-- A write with preconditions matched no row: says why, from the record as it is now.
CREATE OR REPLACE FUNCTION lib.explain_miss(d jsonb, args jsonb, where_sql text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  cur jsonb;
  supplied text;
  expected numeric := lib.expected_version(d, args);
BEGIN
  EXECUTE format('SELECT jsonb_build_object(''etag'', %s, ''modified'', t._modified_at) FROM app.%I t WHERE %s',
    lib.etag_sql(d), d ->> 'table', where_sql) INTO cur USING args;
  IF cur IS NULL THEN
    -- Hidden from the caller: 403 whatever the preconditions say. Absent: If-Match * is 412, else 404.
    IF lib.record_exists(d, args ->> 'id', args ->> 'parent') THEN PERFORM lib.forbidden(d, args ->> 'id', lib.action()); END IF;
    IF args -> 'if_match' ? '*' THEN
      RAISE EXCEPTION USING ERRCODE = 'PT412', MESSAGE = format('If-Match: * requires an existing %s, and there is none with %s "%s"', d ->> 'entity', d ->> 'pk', args ->> 'id'),
        DETAIL = jsonb_build_object('current', NULL, 'supplied', '*')::text,
        HINT = 'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.';
    END IF;
    PERFORM lib.not_found(d, args ->> 'id');
  END IF;
  -- Visible but not writable: the write's own policy judged the existing record (lifecycle, attributes).
  PERFORM lib.refuse_if_denied(d, args ->> 'id', lib.action());
  IF args ? 'if_match' AND NOT (args -> 'if_match') ? '*' AND NOT (cur ->> 'etag') = ANY (lib.as_text_array(args -> 'if_match')) THEN
    SELECT string_agg(format('"%s"', x), ', ') INTO supplied FROM unnest(lib.as_text_array(args -> 'if_match')) x;
    RAISE EXCEPTION USING ERRCODE = 'PT412',
      MESSAGE = format('The %s has changed: its current ETag is "%s", the request supplied %s', d ->> 'entity', cur ->> 'etag', supplied),
      DETAIL = jsonb_build_object('current', cur ->> 'etag', 'supplied', args -> 'if_match')::text,
      HINT = 'Fetch the record again, take its new ETag, and resend the request with it in If-Match.';
  END IF;
  IF NOT args ? 'if_match' AND args ? 'if_unmodified_since'
     AND date_trunc('second', (cur ->> 'modified')::timestamptz) > (args ->> 'if_unmodified_since')::timestamptz THEN
    RAISE EXCEPTION USING ERRCODE = 'PT412',
      MESSAGE = format('The %s was modified at %s, after If-Unmodified-Since %s (current ETag "%s")', d ->> 'entity',
        to_char((cur ->> 'modified')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
        to_char((args ->> 'if_unmodified_since')::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), cur ->> 'etag'),
      DETAIL = jsonb_build_object('current', cur ->> 'etag', 'modified', cur -> 'modified')::text,
      HINT = 'Fetch the record again, take its new ETag, and resend the request with it in If-Match.';
  END IF;
  -- What remains is the body version lock (or a change that landed between the write and this read).
  RAISE EXCEPTION USING ERRCODE = 'PT409',
    MESSAGE = format('The %s was modified by another user: its current version is %s, the request expected %s',
      d ->> 'entity', cur ->> 'etag', coalesce(expected::text, 'the version it read')),
    DETAIL = jsonb_build_object('current', cur ->> 'etag', 'supplied', expected)::text,
    HINT = 'Fetch the record again and resend the update with its current version.';
END $$;
