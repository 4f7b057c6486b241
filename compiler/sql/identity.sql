-- Sign-in from the model (api.identity; design 8): refresh tokens, stored only as SHA-256 hashes and
-- grouped in families for reuse detection, and sign-in attempts per email and per IP, kept here so that
-- every gateway shares them. The compiled api.auth_* functions (SECURITY DEFINER) are their only users.

CREATE TABLE IF NOT EXISTS lib.refresh_tokens (
  hash bytea PRIMARY KEY,
  family uuid NOT NULL,
  sub text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX IF NOT EXISTS refresh_tokens_family ON lib.refresh_tokens (family);
CREATE INDEX IF NOT EXISTS refresh_tokens_sub ON lib.refresh_tokens (sub) WHERE revoked_at IS NULL;
CREATE INDEX IF NOT EXISTS refresh_tokens_expires ON lib.refresh_tokens (expires_at);
COMMENT ON TABLE lib.refresh_tokens
  IS 'Refresh tokens by SHA-256 hash: one family per sign-in, a used token (rotated) presented again revokes its family. '
  'Reached only through definer functions.';

CREATE TABLE IF NOT EXISTS lib.sign_in_attempts (
  key text PRIMARY KEY,
  attempts integer NOT NULL,
  window_ends timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS sign_in_attempts_window ON lib.sign_in_attempts (window_ends);
COMMENT ON TABLE lib.sign_in_attempts
  IS 'Failed sign-ins per key (email:<sha256 of the address>, ip:<address or IPv6 /64>, or both: the email from one address) in a fixed window. '
  'Reached only through definer functions.';

-- Counts one attempt against `k` in its window (a new window once the last one ended): NULL while
-- within `max_attempts`, else the seconds until the window ends (Retry-After). One upsert, so gateways
-- racing on the same key count every attempt.
CREATE OR REPLACE FUNCTION lib.sign_in_attempt(k text, max_attempts integer, window_seconds integer) RETURNS integer
LANGUAGE sql AS $$
  INSERT INTO lib.sign_in_attempts AS a (key, attempts, window_ends)
    VALUES (k, 1, now() + make_interval(secs => window_seconds))
  ON CONFLICT (key) DO UPDATE SET
    attempts = CASE WHEN a.window_ends <= now() THEN 1 ELSE a.attempts + 1 END,
    window_ends = CASE WHEN a.window_ends <= now() THEN EXCLUDED.window_ends ELSE a.window_ends END
  RETURNING CASE WHEN attempts > max_attempts THEN greatest(1, ceil(extract(epoch FROM window_ends - now())))::integer END
$$;

-- A sign-in succeeded: its email starts afresh (from every address and from this one), and the IP's count
-- keeps only failures. A few ended windows of other keys are cleared on the way, so the table holds about the
-- keys of the current windows.
CREATE OR REPLACE FUNCTION lib.sign_in_succeeded(email_key text, ip_key text) RETURNS void
LANGUAGE sql AS $$
  DELETE FROM lib.sign_in_attempts WHERE key IN (email_key, email_key || ' ' || ip_key);
  UPDATE lib.sign_in_attempts SET attempts = attempts - 1 WHERE key = ip_key AND attempts > 0;
  DELETE FROM lib.sign_in_attempts WHERE key IN
    (SELECT key FROM lib.sign_in_attempts WHERE window_ends < now() ORDER BY window_ends LIMIT 20);
$$;

-- A new refresh token of `fam` for `sub`, valid `ttl_seconds`: 32 random bytes (base64url), its hash
-- stored. Tokens expired for a day are cleared a few at a time.
CREATE OR REPLACE FUNCTION lib.issue_refresh_token(sub text, fam uuid, ttl_seconds integer) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE token text := rtrim(translate(encode(extensions.gen_random_bytes(32), 'base64'), '+/', '-_'), '=');
BEGIN
  INSERT INTO lib.refresh_tokens (hash, family, sub, expires_at)
    VALUES (extensions.digest(token, 'sha256'), fam, sub, now() + make_interval(secs => ttl_seconds));
  DELETE FROM lib.refresh_tokens WHERE hash IN
    (SELECT hash FROM lib.refresh_tokens WHERE expires_at < now() - interval '1 day' ORDER BY expires_at LIMIT 20);
  RETURN token;
END $$;

-- Rotation: a live token is marked used and replaced by a new one of its family ({sub, refresh_token});
-- an unknown, expired or revoked one is {"error": "invalid"}; a used one presented again means it was
-- stolen or replayed: its whole family is revoked ({"error": "reused"}). Returned, never raised, so the
-- revocation commits.
CREATE OR REPLACE FUNCTION lib.rotate_refresh_token(token text, ttl_seconds integer) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE r lib.refresh_tokens;
BEGIN
  SELECT * INTO r FROM lib.refresh_tokens WHERE hash = extensions.digest(coalesce(token, ''), 'sha256') FOR UPDATE;
  IF NOT FOUND OR r.revoked_at IS NOT NULL OR r.expires_at <= now() THEN
    RETURN '{"error": "invalid"}';
  END IF;
  IF r.used_at IS NOT NULL THEN
    UPDATE lib.refresh_tokens SET revoked_at = now() WHERE family = r.family AND revoked_at IS NULL;
    RETURN '{"error": "reused"}';
  END IF;
  UPDATE lib.refresh_tokens SET used_at = now() WHERE hash = r.hash;
  RETURN jsonb_build_object('sub', r.sub, 'refresh_token', lib.issue_refresh_token(r.sub, r.family, ttl_seconds));
END $$;

-- Sign-out: the family of the token given is revoked (an unknown token changes nothing).
CREATE OR REPLACE FUNCTION lib.revoke_refresh_family(token text) RETURNS void
LANGUAGE sql AS $$
  UPDATE lib.refresh_tokens SET revoked_at = now()
  WHERE revoked_at IS NULL AND family IN
    (SELECT family FROM lib.refresh_tokens WHERE hash = extensions.digest(coalesce(token, ''), 'sha256'));
$$;

-- Trigger of the user table (TG_ARGV: key column, password column): a password change, a deletion or a
-- soft deletion revokes every refresh token of the user. Definer: the request role cannot touch lib's tables.
CREATE OR REPLACE FUNCTION lib.identity_revoke() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  old_row jsonb := to_jsonb(OLD);
  new_row jsonb := CASE WHEN TG_OP = 'UPDATE' THEN to_jsonb(NEW) END;
BEGIN
  IF TG_OP = 'DELETE'
     OR new_row -> TG_ARGV[1] IS DISTINCT FROM old_row -> TG_ARGV[1]
     OR (new_row ->> 'deleted_at' IS NOT NULL AND old_row ->> 'deleted_at' IS NULL) THEN
    UPDATE lib.refresh_tokens SET revoked_at = now() WHERE sub = old_row ->> TG_ARGV[0] AND revoked_at IS NULL;
  END IF;
  RETURN NULL;
END $$;
REVOKE EXECUTE ON FUNCTION lib.sign_in_attempt(text, integer, integer), lib.sign_in_succeeded(text, text),
  lib.issue_refresh_token(text, uuid, integer), lib.rotate_refresh_token(text, integer), lib.revoke_refresh_family(text),
  lib.identity_revoke() FROM PUBLIC;
