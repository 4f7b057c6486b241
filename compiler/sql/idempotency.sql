-- Idempotent writes (Idempotency-Key): the first successful result of a caller's key is kept in the
-- write's own transaction, so a retry replays it instead of writing again; every gateway shares it.
CREATE TABLE IF NOT EXISTS lib.idempotency (
  caller text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  result json NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (caller, key)
);
-- json, not jsonb: a replay answers the text first sent, its records in the model's order (earlier versions: jsonb).
DO $$ BEGIN
  IF (SELECT atttypid FROM pg_attribute WHERE attrelid = 'lib.idempotency'::regclass AND attname = 'result') = 'jsonb'::regtype THEN
    ALTER TABLE lib.idempotency ALTER COLUMN result TYPE json USING result::json;
    DROP FUNCTION IF EXISTS lib.idempotency_kept(text, text);
  END IF;
END $$;
DROP FUNCTION IF EXISTS lib.idempotency_keep(text, text, text, jsonb, integer);
CREATE INDEX IF NOT EXISTS idempotency_expires ON lib.idempotency (expires_at);
REVOKE ALL ON lib.idempotency FROM PUBLIC;

-- Holds the key for this transaction: false while another request with the same key runs (409).
CREATE OR REPLACE FUNCTION lib.idempotency_claim(_caller text, _key text) RETURNS boolean
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT pg_try_advisory_xact_lock(hashtextextended('idempotency ' || _caller || ' ' || _key, 0))
$$;

-- The kept, unexpired answer of a key (no row when there is none).
CREATE OR REPLACE FUNCTION lib.idempotency_kept(_caller text, _key text) RETURNS TABLE (fingerprint text, result json)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT i.fingerprint, i.result
  FROM lib.idempotency i WHERE i.caller = _caller AND i.key = _key AND i.expires_at > now()
$$;

-- Keeps a result for `ttl_seconds` (replacing an expired one) and removes a few expired keys of anyone.
CREATE OR REPLACE FUNCTION lib.idempotency_keep(_caller text, _key text, _fingerprint text, _result json, ttl_seconds integer)
RETURNS void LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  DELETE FROM lib.idempotency WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM lib.idempotency WHERE expires_at <= now() ORDER BY expires_at LIMIT 100 FOR UPDATE SKIP LOCKED));
  INSERT INTO lib.idempotency (caller, key, fingerprint, result, expires_at)
  VALUES (_caller, _key, _fingerprint, _result, now() + make_interval(secs => ttl_seconds))
  ON CONFLICT (caller, key) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, result = EXCLUDED.result,
    expires_at = EXCLUDED.expires_at;
$$;

REVOKE EXECUTE ON FUNCTION lib.idempotency_claim(text, text), lib.idempotency_kept(text, text),
  lib.idempotency_keep(text, text, text, json, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lib.idempotency_claim(text, text), lib.idempotency_kept(text, text),
  lib.idempotency_keep(text, text, text, json, integer) TO authenticator;
