-- Preconditions of writes (spec 2.6, 3.2, 4.4): If-Match (a list of ETags, or *), If-Unmodified-Since
-- (ignored when If-Match is present, RFC 9110 13.2.2) and the body version lock are conditions of the
-- compiled write statement itself, so one statement decides; these helpers read them and explain a miss.

-- The version the body expects (spec 4.4): absent, or a positive integer (anything else, null included: 422).
CREATE OR REPLACE FUNCTION lib.expected_version(prop text, body jsonb) RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE v jsonb := body -> prop;
BEGIN
  IF v IS NULL THEN RETURN NULL; END IF;
  IF jsonb_typeof(v) <> 'number' OR v::numeric <> trunc(v::numeric) OR v::numeric < 1 THEN
    PERFORM lib.refuse('PT422', format('%s must be a positive integer (the version the update expects)', prop), prop, 'version');
  END IF;
  RETURN v::numeric;
END $$;

-- The If-Match list of a request (NULL when absent).
CREATE OR REPLACE FUNCTION lib.if_match(args jsonb) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN args ? 'if_match' THEN lib.as_text_array(args -> 'if_match') END
$$;

-- If-Unmodified-Since of a request, unless If-Match is present (NULL when it does not apply).
CREATE OR REPLACE FUNCTION lib.if_unmodified_since(args jsonb) RETURNS timestamptz LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN NOT args ? 'if_match' THEN (args ->> 'if_unmodified_since')::timestamptz END
$$;

-- If-Match: * on a record that does not exist (RFC 9110 13.1.1): 412.
CREATE OR REPLACE FUNCTION lib.absent_for_star(entity text, pk text, id text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'PT412', MESSAGE = format('If-Match: * requires an existing %s, and there is none with %s "%s"', entity, pk, id),
    DETAIL = jsonb_build_object('current', NULL, 'supplied', '*')::text,
    HINT = 'Fetch the latest version of the resource (it may have been deleted or never created) before retrying.';
END $$;

-- If-Match on a link, which has no ETag (only * matches, and only an existing link), that does not hold: 412.
CREATE OR REPLACE FUNCTION lib.link_precondition_failed(message text, supplied jsonb) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'PT412', MESSAGE = message,
    DETAIL = jsonb_build_object('current', NULL, 'supplied', supplied)::text,
    HINT = 'Fetch the linked records again (GET on the relation), then send If-Match: * to act only on a link that exists, or no If-Match.';
END $$;

-- An If-Match entry as the client wrote it: "3", or W/"3" for a weak tag (kept as W/3).
CREATE OR REPLACE FUNCTION lib.entity_tag(tag text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN tag LIKE 'W/%' THEN format('W/"%s"', substr(tag, 3)) ELSE format('"%s"', tag) END
$$;

-- If-Match, else If-Unmodified-Since, against a record's current ETag and modification time: 412 when
-- the one that applies fails (RFC 9110 13.2.2). A read calls it on the record it found; a write whose
-- statement matched no row, through lib.precondition_failed.
CREATE OR REPLACE FUNCTION lib.precondition_check(entity text, etag text, modified timestamptz, args jsonb)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  supplied text;
  hint text := 'Fetch the record again, take its new ETag, and resend the request with it in If-Match.';
BEGIN
  IF args ? 'if_match' AND NOT (args -> 'if_match') ? '*' AND NOT etag = ANY (lib.as_text_array(args -> 'if_match')) THEN
    SELECT string_agg(lib.entity_tag(x), ', ') INTO supplied FROM unnest(lib.as_text_array(args -> 'if_match')) x;
    RAISE EXCEPTION USING ERRCODE = 'PT412',
      MESSAGE = format('The %s has changed: its current ETag is "%s", the request supplied %s', entity, etag, supplied),
      DETAIL = jsonb_build_object('current', etag, 'supplied', args -> 'if_match')::text, HINT = hint;
  END IF;
  IF date_trunc('second', modified) > lib.if_unmodified_since(args) THEN
    RAISE EXCEPTION USING ERRCODE = 'PT412',
      MESSAGE = format('The %s was modified at %s, after If-Unmodified-Since %s (current ETag "%s")', entity,
        to_char(modified AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
        to_char(lib.if_unmodified_since(args) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'), etag),
      DETAIL = jsonb_build_object('current', etag, 'modified', modified)::text, HINT = hint;
  END IF;
END $$;

-- A visible, writable record whose write matched no row: which precondition failed, from its current
-- ETag and modification time (412 If-Match, 412 If-Unmodified-Since, else 409 for the body version).
CREATE OR REPLACE FUNCTION lib.precondition_failed(entity text, etag text, modified timestamptz, args jsonb, expected numeric)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM lib.precondition_check(entity, etag, modified, args);
  -- What remains is the body version lock (or a change that landed between the write and this read).
  RAISE EXCEPTION USING ERRCODE = 'PT409',
    MESSAGE = format('The %s was modified by another user: its current version is %s, the request expected %s',
      entity, etag, coalesce(expected::text, 'the version it read')),
    DETAIL = jsonb_build_object('current', etag, 'supplied', expected)::text,
    HINT = 'Fetch the record again and resend the update with its current version.';
END $$;
