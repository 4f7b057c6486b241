-- Webhooks (design 9): the model's receivers, each with its position in the change log, and one delivery row per
-- matching change, copied from the log after commit and sent by any gateway; writes never wait on any of it.

-- The model's webhooks (its migration keeps the list: compiler/sql/webhooks.ts) and where each stands in the log.
CREATE TABLE IF NOT EXISTS lib.webhooks (
  name text PRIMARY KEY,
  url text NOT NULL,
  entities text[],
  actions text[],
  -- The log rows up to this position (tx, id), in reading order, are copied into deliveries (those it takes). A new
  -- webhook starts at the oldest writer running when the migration added it: changes before it are not sent.
  pos_tx xid8 NOT NULL DEFAULT pg_snapshot_xmin(pg_current_snapshot()),
  pos_id bigint NOT NULL DEFAULT 0
);
COMMENT ON TABLE lib.webhooks
  IS 'Webhooks of the model (api.webhooks): address (${VARIABLE} parts read by the gateway), the entities and actions it takes (NULL: all), '
  'its position in lib.changes.';
REVOKE ALL ON lib.webhooks FROM PUBLIC;

CREATE TABLE IF NOT EXISTS lib.webhook_deliveries (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  webhook text NOT NULL REFERENCES lib.webhooks (name) ON DELETE CASCADE,
  change_id bigint NOT NULL,
  -- The change as the log holds it, copied: the log is pruned after EVENTS_RETENTION_SECONDS, a delivery may retry longer.
  entity text NOT NULL,
  table_name text NOT NULL,
  record_key text NOT NULL,
  action text NOT NULL,
  etag text,
  image jsonb NOT NULL,
  sub text,
  at timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  -- When a gateway may take it next: the next retry, or the end of the lease of the gateway sending it now.
  next_at timestamptz NOT NULL DEFAULT now(),
  -- Where its retry window (WEBHOOK_RETRY_SECONDS) starts: its creation, or its redelivery.
  retry_from timestamptz NOT NULL DEFAULT now(),
  last_status integer,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  done_at timestamptz,
  UNIQUE (webhook, change_id)
);
COMMENT ON TABLE lib.webhook_deliveries
  IS 'One POST per change and webhook: pending (next_at: when a gateway may send it), delivered (a 2xx) or failed (no 2xx within WEBHOOK_RETRY_SECONDS); '
  'lib.webhook_redeliver sends failed ones again.';
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON lib.webhook_deliveries (next_at, id) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS webhook_deliveries_open ON lib.webhook_deliveries (webhook, status) WHERE status <> 'delivered';
CREATE INDEX IF NOT EXISTS webhook_deliveries_done ON lib.webhook_deliveries (done_at) WHERE status <> 'pending';
REVOKE ALL ON lib.webhook_deliveries FROM PUBLIC;

-- The webhooks a gateway sends for (it resolves each address and secret from its environment at start).
CREATE OR REPLACE FUNCTION lib.webhook_list() RETURNS TABLE (name text, url text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT w.name, w.url FROM lib.webhooks w ORDER BY w.name
$$;

-- Copies the log rows past each webhook's position, `lim` at most per webhook, below the bound (every writer below it
-- has ended, so those rows are final), into deliveries when the webhook takes their entity and action, and moves the
-- position past every row read. One gateway copies for a webhook at a time (the others skip its locked row), and a
-- change is copied once per webhook (UNIQUE). `more`: some webhook read `lim` rows, so there may be more. `behind`: the
-- webhooks whose position was below the pruning horizon (no gateway copied for them for EVENTS_RETENTION_SECONDS), which
-- may have missed changes; their position moves on, so each is named once.
CREATE OR REPLACE FUNCTION lib.webhook_enqueue(lim integer, OUT copied integer, OUT more boolean, OUT behind text[])
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  _state record := (SELECT s FROM lib.changes_state() s);
  _bound xid8 := _state.bound;
  _hook lib.webhooks;
  _read integer;
  _n integer;
  _tx xid8;
  _id bigint;
BEGIN
  copied := 0;
  more := false;
  behind := '{}';
  FOR _hook IN SELECT * FROM lib.webhooks ORDER BY name FOR UPDATE SKIP LOCKED LOOP
    IF (_hook.pos_tx, _hook.pos_id) < (_state.pruned_tx, _state.pruned_id) THEN
      behind := behind || _hook.name;
      UPDATE lib.webhooks SET pos_tx = _state.pruned_tx, pos_id = _state.pruned_id WHERE name = _hook.name;
      _hook.pos_tx := _state.pruned_tx;
      _hook.pos_id := _state.pruned_id;
    END IF;
    WITH batch AS (
      SELECT c.* FROM lib.changes c
      WHERE (c.tx, c.id) > (_hook.pos_tx, _hook.pos_id) AND c.tx < _bound
      ORDER BY c.tx, c.id
      LIMIT lim
    ), taken AS (
      INSERT INTO lib.webhook_deliveries (webhook, change_id, entity, table_name, record_key, action, etag, image, sub, at)
      SELECT _hook.name, b.id, b.entity, b.table_name, b.record_key, b.action, b.etag, b.image, b.sub, b.at
      FROM batch b
      WHERE (_hook.entities IS NULL OR b.entity = ANY (_hook.entities))
        AND (_hook.actions IS NULL OR b.action = ANY (_hook.actions))
      ORDER BY b.tx, b.id
      ON CONFLICT (webhook, change_id) DO NOTHING
      RETURNING 1
    )
    SELECT count(*) OVER (), (SELECT count(*) FROM taken), b.tx, b.id INTO _read, _n, _tx, _id
    FROM batch b
    ORDER BY b.tx DESC, b.id DESC
    LIMIT 1;
    IF _read > 0 THEN
      UPDATE lib.webhooks SET pos_tx = _tx, pos_id = _id WHERE name = _hook.name;
      copied := copied + _n;
      more := more OR _read >= lim;
    END IF;
  END LOOP;
END $fn$;

-- Takes up to `lim` due pending deliveries of `hooks` for one gateway to send: each attempt is counted and the
-- delivery leased for `lease_ms` (past the POST's timeout), so no other gateway takes it meanwhile; should this one
-- stop before it records an outcome, another sends it again once the lease ends (at least once).
CREATE OR REPLACE FUNCTION lib.webhook_claim(hooks text[], now_at timestamptz, lim integer, lease_ms integer)
RETURNS TABLE (id bigint, webhook text, change_id bigint, entity text, table_name text, record_key text, action text,
  etag text, image jsonb, sub text, at timestamptz, attempts integer, retry_from timestamptz)
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  UPDATE lib.webhook_deliveries d
  SET attempts = d.attempts + 1, next_at = now_at + make_interval(secs => lease_ms / 1000.0)
  WHERE d.id = ANY (ARRAY(
    SELECT x.id FROM lib.webhook_deliveries x
    WHERE x.status = 'pending' AND x.next_at <= now_at AND x.webhook = ANY (hooks)
    ORDER BY x.next_at, x.id
    LIMIT lim
    FOR UPDATE SKIP LOCKED))
  RETURNING d.id, d.webhook, d.change_id, d.entity, d.table_name, d.record_key, d.action, d.etag, d.image, d.sub, d.at,
    d.attempts, d.retry_from
$$;

-- Records the outcome of a claimed attempt: the new status (delivered, pending with its next_at, failed), the receiver's
-- HTTP status or the error. An attempt another gateway took over (its lease ran out, so `attempts` moved on) records
-- nothing: false.
CREATE OR REPLACE FUNCTION lib.webhook_record(delivery bigint, attempt integer, new_status text, code integer, error text,
  retry_at timestamptz, now_at timestamptz) RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH done AS (
    UPDATE lib.webhook_deliveries d
    SET status = new_status, last_status = code, last_error = error, next_at = coalesce(retry_at, d.next_at),
      done_at = CASE WHEN new_status = 'pending' THEN NULL ELSE now_at END
    WHERE d.id = delivery AND d.attempts = attempt AND d.status = 'pending'
    RETURNING 1
  ) SELECT EXISTS (SELECT FROM done)
$$;

-- Pending and failed deliveries of each webhook, for the gateway's /metrics.
CREATE OR REPLACE FUNCTION lib.webhook_counts() RETURNS TABLE (webhook text, pending bigint, failed bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT w.name, count(d.id) FILTER (WHERE d.status = 'pending'), count(d.id) FILTER (WHERE d.status = 'failed')
  FROM lib.webhooks w LEFT JOIN lib.webhook_deliveries d ON d.webhook = w.name AND d.status <> 'delivered'
  GROUP BY w.name
$$;

-- Removes delivered and failed deliveries older than `keep_seconds`, `batch` at most (rows another gateway is
-- removing are skipped); pending ones stay until they end.
CREATE OR REPLACE FUNCTION lib.webhook_sweep(keep_seconds integer, batch integer) RETURNS integer
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  WITH gone AS (
    DELETE FROM lib.webhook_deliveries WHERE id = ANY (ARRAY(
      SELECT x.id FROM lib.webhook_deliveries x
      WHERE x.status <> 'pending' AND x.done_at < now() - make_interval(secs => keep_seconds)
      LIMIT batch
      FOR UPDATE SKIP LOCKED))
    RETURNING 1
  ) SELECT count(*)::integer FROM gone
$$;

-- For operators (README "Webhooks"): sends the deliveries of `webhook_name` created since `since` again, the failed
-- ones (or those of `statuses`): pending from now, attempts and retry window anew; wakes the gateways.
CREATE OR REPLACE FUNCTION lib.webhook_redeliver(webhook_name text, since timestamptz, statuses text[] DEFAULT '{failed}')
RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  _n integer;
BEGIN
  IF NOT EXISTS (SELECT FROM lib.webhooks WHERE name = webhook_name) THEN
    RAISE EXCEPTION 'no webhook named "%"', webhook_name USING HINT = 'SELECT name FROM lib.webhooks lists them.';
  END IF;
  UPDATE lib.webhook_deliveries
  SET status = 'pending', attempts = 0, next_at = now(), retry_from = now(), done_at = NULL
  WHERE webhook = webhook_name AND created_at >= since AND status = ANY (statuses) AND status <> 'pending';
  GET DIAGNOSTICS _n = ROW_COUNT;
  PERFORM pg_notify(lib.changes_channel(), '');
  RETURN _n;
END $fn$;

-- The same by delivery ids (lib.webhook_deliveries.id), whatever their webhook and status but pending.
CREATE OR REPLACE FUNCTION lib.webhook_redeliver(ids bigint[]) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  _n integer;
BEGIN
  UPDATE lib.webhook_deliveries
  SET status = 'pending', attempts = 0, next_at = now(), retry_from = now(), done_at = NULL
  WHERE id = ANY (ids) AND status <> 'pending';
  GET DIAGNOSTICS _n = ROW_COUNT;
  PERFORM pg_notify(lib.changes_channel(), '');
  RETURN _n;
END $fn$;
COMMENT ON FUNCTION lib.webhook_redeliver(text, timestamptz, text[])
  IS 'Sends the failed deliveries (or those of `statuses`) of a webhook created since a time again, from now (README "Webhooks").';
COMMENT ON FUNCTION lib.webhook_redeliver(bigint[]) IS 'Sends the deliveries of these ids again, from now (README "Webhooks").';

REVOKE EXECUTE ON FUNCTION lib.webhook_list(), lib.webhook_enqueue(integer), lib.webhook_claim(text[], timestamptz, integer, integer),
  lib.webhook_record(bigint, integer, text, integer, text, timestamptz, timestamptz), lib.webhook_counts(),
  lib.webhook_sweep(integer, integer), lib.webhook_redeliver(text, timestamptz, text[]), lib.webhook_redeliver(bigint[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lib.webhook_list(), lib.webhook_enqueue(integer), lib.webhook_claim(text[], timestamptz, integer, integer),
  lib.webhook_record(bigint, integer, text, integer, text, timestamptz, timestamptz), lib.webhook_counts(),
  lib.webhook_sweep(integer, integer) TO authenticator;
