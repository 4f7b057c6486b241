-- Files (spec 2.7, 3.3; design 6): upload intents, the claim of a file reference by the write that stores
-- it, and the outbox of storage objects to delete after commit (replaced files, temporary copies, sweeps).

CREATE TABLE IF NOT EXISTS lib.uploads (
  token text PRIMARY KEY,
  owner text NOT NULL,
  filename text NOT NULL,
  content_type text NOT NULL,
  tmp_key text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  used_tx xid8,
  location text UNIQUE
);
COMMENT ON TABLE lib.uploads
  IS 'Upload intents: a file reference (token) for its caller, its tmp/ key and, once attached, its uploads/ location. Reached only through definer functions.';
-- A caller's open intents (lib.open_intents_at_most).
CREATE INDEX IF NOT EXISTS uploads_open_by_owner ON lib.uploads (owner, expires_at) WHERE used_at IS NULL;

-- Upload intents one caller may hold open (unused, unexpired) at once: each is an address that takes a file into
-- the storage, so a caller asking for them in a loop is refused (429) rather than left to fill it.
CREATE OR REPLACE FUNCTION lib.open_intents_at_most() RETURNS integer LANGUAGE sql IMMUTABLE AS 'SELECT 100';

CREATE TABLE IF NOT EXISTS lib.file_outbox (
  id bigserial PRIMARY KEY,
  location text NOT NULL,
  token text,
  enqueued_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text
);
CREATE INDEX IF NOT EXISTS file_outbox_due ON lib.file_outbox (next_attempt_at);
CREATE INDEX IF NOT EXISTS file_outbox_token ON lib.file_outbox (token, location) WHERE token IS NOT NULL;
COMMENT ON TABLE lib.file_outbox
  IS 'Storage objects to delete after commit, with retry. A row with a token is the reserved copy target of an attach in progress: '
  'the write that attaches the token removes it, else it deletes the copy an hour later.';

-- When an intent's attach window closes: an hour after its upload address expired. Unattached, it is swept
-- then; attached, its tmp/ object is deleted again then (a PUT to the address may come until it expires,
-- and one begun before may end after).
CREATE OR REPLACE FUNCTION lib.attach_closes(expires_at timestamptz) RETURNS timestamptz
LANGUAGE sql STABLE AS $$ SELECT expires_at + interval '1 hour' $$;

-- A refusal of a file reference: 422 E_FILE_NOT_UPLOADED naming the property.
CREATE OR REPLACE FUNCTION lib.file_not_attachable(prop text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE msg text := format('The file reference given for "%s" is unknown, not yours, expired or already attached: '
  'upload the file and use the new file_reference.', prop);
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'PT422', MESSAGE = msg,
    DETAIL = jsonb_build_object('code', 'E_FILE_NOT_UPLOADED', 'property', prop, 'rule', 'file', 'message', msg)::text;
END $$;

-- POST /.well-known/upload: a new intent for the caller (anonymous callers cannot upload: 401).
CREATE OR REPLACE FUNCTION api.upload_intent(args jsonb) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  caller text := auth.uid();
  fname text := args ->> 'filename';
  mime text := lower(args ->> 'contentType');
  u lib.uploads;
BEGIN
  IF caller IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'PT401', MESSAGE = 'Sign in to upload files.';
  END IF;
  IF fname IS NULL OR length(fname) NOT BETWEEN 1 AND 255 OR fname ~ '[[:cntrl:]]' THEN
    PERFORM lib.refuse('PT422', 'filename must be 1 to 255 characters without control characters', 'filename', 'filename');
  END IF;
  IF mime IS NULL OR length(mime) > 255 OR mime !~ '^[a-z0-9!#$&^_.+-]+/[a-z0-9!#$&^_.+-]+(;.*)?$' THEN
    PERFORM lib.refuse('PT422', 'contentType must be a MIME type such as image/png', 'contentType', 'contentType');
  END IF;
  IF (SELECT count(*) FROM lib.uploads WHERE owner = caller AND used_at IS NULL AND expires_at > now()) >= lib.open_intents_at_most() THEN
    RAISE EXCEPTION USING ERRCODE = 'PT429', DETAIL = '{"retry_after": 60}',
      MESSAGE = format('This caller has %s upload intents open (unused, unexpired): attach those files, or wait for some to expire (15 minutes), first.',
          lib.open_intents_at_most());
  END IF;
  INSERT INTO lib.uploads (token, owner, filename, content_type, tmp_key, expires_at)
    VALUES (encode(extensions.gen_random_bytes(20), 'hex'), caller, fname, mime, 'tmp/' || gen_random_uuid(), now() + interval '15 minutes')
    RETURNING * INTO u;
  -- The upload address is signed for as long as the intent lasts (the gateway signs on its own clock).
  RETURN jsonb_build_object('file_reference', u.token, 'tmp_key', u.tmp_key, 'content_type', u.content_type, 'expires_at', u.expires_at,
    'lifetime_ms', (extract(epoch FROM u.expires_at - now()) * 1000)::bigint);
END $$;
COMMENT ON FUNCTION api.upload_intent(jsonb) IS 'upload intent: {filename, contentType} -> {file_reference, tmp_key, content_type, expires_at, lifetime_ms}';

-- Before an attach: the caller's unused intents among `tokens` that can still be attached (up to an hour
-- after the upload URL expired), each with a fresh copy target under uploads/ reserved in the outbox.
CREATE OR REPLACE FUNCTION api.upload_prepare(args jsonb) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  found_list jsonb := '[]';
  u lib.uploads;
  target text;
BEGIN
  FOR u IN SELECT * FROM lib.uploads WHERE owner = auth.uid() AND used_at IS NULL AND now() <= lib.attach_closes(expires_at)
    AND token IN (SELECT jsonb_array_elements_text(coalesce(args -> 'tokens', '[]')))
  LOOP
    target := 'uploads/' || gen_random_uuid();
    INSERT INTO lib.file_outbox (location, token, next_attempt_at) VALUES (target, u.token, now() + interval '1 hour');
    found_list := found_list || jsonb_build_object('token', u.token, 'tmp_key', u.tmp_key, 'location', target, 'name', u.filename, 'mime', u.content_type);
  END LOOP;
  RETURN jsonb_build_object('data', found_list);
END $$;
COMMENT ON FUNCTION api.upload_prepare(jsonb) IS 'before an attach: {tokens} -> {data: [{token, tmp_key, location, name, mime}]}';

-- Called by the files trigger of a table for a new block {id, location}: the caller's intent `id`, unused,
-- attachable, with `location` reserved for it, becomes used; returns the stored block {id, location, name,
-- mime}. The temporary object is queued for deletion after commit, and again for when the attach window
-- closes: its upload address takes PUTs until it expires, and a late one makes the object again. Claiming
-- twice in one transaction is allowed (INSERT … ON CONFLICT runs the insert and the update trigger).
CREATE OR REPLACE FUNCTION lib.claim_file(prop text, block jsonb) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  u lib.uploads;
  reserved boolean;
BEGIN
  SELECT * INTO u FROM lib.uploads WHERE token = block ->> 'id' AND owner = auth.uid() FOR UPDATE;
  IF NOT FOUND THEN PERFORM lib.file_not_attachable(prop); END IF;
  IF u.used_at IS NOT NULL THEN
    IF u.used_tx <> pg_current_xact_id() OR u.location IS DISTINCT FROM block ->> 'location' THEN PERFORM lib.file_not_attachable(prop); END IF;
  ELSE
    IF now() > lib.attach_closes(u.expires_at) THEN PERFORM lib.file_not_attachable(prop); END IF;
    WITH gone AS (DELETE FROM lib.file_outbox WHERE token = u.token AND location = block ->> 'location' RETURNING 1)
      SELECT EXISTS (SELECT FROM gone) INTO reserved;
    IF NOT reserved THEN PERFORM lib.file_not_attachable(prop); END IF;
    UPDATE lib.uploads SET used_at = now(), used_tx = pg_current_xact_id(), location = block ->> 'location' WHERE token = u.token;
    INSERT INTO lib.file_outbox (location, next_attempt_at) VALUES (u.tmp_key, now()), (u.tmp_key, lib.attach_closes(u.expires_at));
    PERFORM set_config('request.outbox', 'queued', true);  -- the tmp/ copy goes after commit
  END IF;
  RETURN jsonb_build_object('id', u.token, 'location', block ->> 'location', 'name', u.filename, 'mime', u.content_type);
END $$;

-- A stored file no record holds any more (replaced, cleared, record deleted): delete it after commit.
CREATE OR REPLACE FUNCTION lib.discard_file(loc text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF loc IS NULL THEN RETURN; END IF;
  INSERT INTO lib.file_outbox (location) VALUES (loc);
  DELETE FROM lib.uploads u WHERE u.location = loc;
  -- api.dispatch tells the gateway, which drains the outbox after commit only when this happened.
  PERFORM set_config('request.outbox', 'queued', true);
END $$;

-- A stored block as a record's history shows it (app.<table>_versions, a definer, calls it as the owner): as it is
-- while some record still holds its file (its upload is attached there), else without its location, so the gateway
-- signs no link to a deleted object.
CREATE OR REPLACE FUNCTION lib.held_file(block jsonb) RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN block ? 'location' AND NOT EXISTS (SELECT FROM lib.uploads u WHERE u.location = block ->> 'location')
    THEN block - 'location' ELSE block END
$$;
REVOKE EXECUTE ON FUNCTION lib.held_file(jsonb) FROM PUBLIC;

-- For the gateway's worker (its login role only): take due deletions, put failed ones back with backoff,
-- and sweep intents never attached (their tmp/ object; a reserved copy target goes on its own). What the
-- database's clock says is due always is; the worker's clock may run ahead of it (tests skip backoff so).
-- The outbox is worked by any number of gateways: each claims due rows (FOR UPDATE SKIP LOCKED, so two never
-- take the same row) for a lease of five minutes, deletes the objects, and only then removes the rows
-- (lib.files_done). A gateway that dies mid-way leaves its rows to the next drain after the lease: an object
-- is never forgotten, and deleting one twice is harmless.
DROP FUNCTION IF EXISTS lib.files_due(timestamptz, integer);
CREATE FUNCTION lib.files_due(due_at timestamptz, n integer) RETURNS TABLE (id bigint, location text, attempts integer)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  UPDATE lib.file_outbox o SET attempts = o.attempts + 1, next_attempt_at = greatest(due_at, now()) + interval '5 minutes'
  WHERE o.id IN (
    SELECT x.id FROM lib.file_outbox x WHERE x.next_attempt_at <= greatest(due_at, now()) ORDER BY x.next_attempt_at LIMIT n FOR UPDATE SKIP LOCKED)
  RETURNING o.id, o.location, o.attempts
$$;

CREATE OR REPLACE FUNCTION lib.files_done(done bigint[]) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  DELETE FROM lib.file_outbox WHERE id = ANY (done)
$$;

DROP FUNCTION IF EXISTS lib.files_retry(text, integer, text, timestamptz);
CREATE OR REPLACE FUNCTION lib.files_retry(failed bigint, failure text, failed_at timestamptz) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  UPDATE lib.file_outbox SET last_error = left(failure, 500),
    next_attempt_at = greatest(failed_at, now()) + least(interval '1 second' * power(2, least(attempts, 12)), interval '1 hour')
  WHERE id = failed
$$;

CREATE OR REPLACE FUNCTION lib.files_sweep() RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH gone AS (DELETE FROM lib.uploads WHERE used_at IS NULL AND now() > lib.attach_closes(expires_at) RETURNING tmp_key),
    queued AS (INSERT INTO lib.file_outbox (location) SELECT tmp_key FROM gone RETURNING 1)
  SELECT count(*)::integer FROM queued
$$;

-- The outbox's depth, for the gateway's /metrics.
CREATE OR REPLACE FUNCTION lib.files_pending() RETURNS bigint
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT count(*) FROM lib.file_outbox
$$;

REVOKE EXECUTE ON FUNCTION lib.claim_file(text, jsonb), lib.discard_file(text), lib.files_due(timestamptz, integer),
  lib.files_done(bigint[]), lib.files_retry(bigint, text, timestamptz), lib.files_sweep(), lib.files_pending() FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lib.files_due(timestamptz, integer), lib.files_done(bigint[]), lib.files_retry(bigint, text, timestamptz), lib.files_sweep(),
  lib.files_pending() TO authenticator;
