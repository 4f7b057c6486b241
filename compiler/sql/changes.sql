-- The change log (design 9): every committed write appends one row per changed record in its own transaction,
-- the source of live streams, webhooks and history; a rolled-back write leaves nothing, NOTIFY only wakes gateways.
CREATE TABLE IF NOT EXISTS lib.changes (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  entity text NOT NULL,
  table_name text NOT NULL,
  record_key text NOT NULL,
  action text NOT NULL CHECK (action IN ('created', 'updated', 'deleted', 'restored', 'linked', 'unlinked')),
  etag text,
  image jsonb NOT NULL,
  sub text,
  tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
  at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE lib.changes
  IS 'Change log: one row per changed record of a committed write (entity, key, action, ETag, the row as written, the caller, the writing transaction). '
  'Read in (tx, id) order below lib.changes_state()''s bound: ids grow in insertion order, not commit order.';
COMMENT ON COLUMN lib.changes.image
  IS 'The row as stored after the write (before it, for deleted and unlinked), columns as stored, hidden columns (Password) left out.';
-- Pruning reads each table's oldest rows under that table's own keep (lib.changes_keep); replaces an index on (at).
CREATE INDEX IF NOT EXISTS changes_table_at ON lib.changes (table_name, at);
DROP INDEX IF EXISTS lib.changes_at;
-- A record's history (api.<table>_history): its rows, newest first.
CREATE INDEX IF NOT EXISTS changes_record ON lib.changes (table_name, record_key, id);
-- Readers page in (tx, id) order: every transaction below the oldest one still running has ended, so the rows
-- below that bound never change again, and a reader's position (tx, id) only moves forward.
CREATE INDEX IF NOT EXISTS changes_tx ON lib.changes (tx, id);
REVOKE ALL ON lib.changes FROM PUBLIC;

-- The highest position (tx, id) pruned so far: a reader resuming below it may have missed rows (event: reset).
CREATE TABLE IF NOT EXISTS lib.changes_horizon (
  one boolean PRIMARY KEY DEFAULT true CHECK (one)
);
ALTER TABLE lib.changes_horizon ADD COLUMN IF NOT EXISTS pruned_tx xid8 NOT NULL DEFAULT '0',
  ADD COLUMN IF NOT EXISTS pruned_id bigint NOT NULL DEFAULT 0, DROP COLUMN IF EXISTS pruned_through;
INSERT INTO lib.changes_horizon DEFAULT VALUES ON CONFLICT DO NOTHING;
REVOKE ALL ON lib.changes_horizon FROM PUBLIC;

-- Where a reader stands: `bound`, below which every writing transaction has ended (rows with tx < bound are all
-- there and final), and the pruning horizon. Readers take rows with (tx, id) past their position and tx < bound.
CREATE OR REPLACE FUNCTION lib.changes_state(OUT bound xid8, OUT pruned_tx xid8, OUT pruned_id bigint)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT pg_snapshot_xmin(pg_current_snapshot()), h.pruned_tx, h.pruned_id FROM lib.changes_horizon h
$$;

-- Whether rows past the position (after_tx, after_id) and below `before` are there: a reader with nothing new to
-- read asks no more of it.
CREATE OR REPLACE FUNCTION lib.changes_fresh(after_tx xid8, after_id bigint, before xid8) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT EXISTS (SELECT FROM lib.changes c WHERE (c.tx, c.id) > (after_tx, after_id) AND c.tx < before)
$$;

DROP TYPE IF EXISTS lib.change_page;  -- a page type of an earlier api.<table>_stream

-- The channel that wakes gateways after a commit (the payload says nothing: the log is the source).
CREATE OR REPLACE FUNCTION lib.changes_channel() RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT 'lib_changes' $$;

-- The row trigger of every app table (compiler/sql/changes.ts): its arguments are the entity, the key column,
-- the kind of table (entity or join), the ETag column (a Version, or _rev) and the hidden columns.
CREATE OR REPLACE FUNCTION lib.log_change() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  _old jsonb := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END;
  _new jsonb := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END;
  _image jsonb := coalesce(_new, _old);
  _join boolean := TG_ARGV[2] = 'join';
  _action text;
BEGIN
  IF _join THEN
    _action := CASE TG_OP WHEN 'DELETE' THEN 'unlinked' ELSE 'linked' END;
  ELSIF TG_OP = 'INSERT' THEN
    _action := 'created';
  ELSIF TG_OP = 'DELETE' THEN
    _action := 'deleted';
  ELSIF _old ? 'deleted_at' AND _old -> 'deleted_at' = 'null' AND _new -> 'deleted_at' <> 'null' THEN
    _action := 'deleted';
    _image := _old;  -- a deleted record goes to those who could read it before
  ELSIF _old ? 'deleted_at' AND _old -> 'deleted_at' <> 'null' AND _new -> 'deleted_at' = 'null' THEN
    _action := 'restored';
  ELSE
    _action := 'updated';
  END IF;
  INSERT INTO lib.changes (entity, table_name, record_key, action, etag, image, sub)
  VALUES (TG_ARGV[0], TG_TABLE_NAME, _image ->> TG_ARGV[1], _action, _image ->> TG_ARGV[3],
    _image - TG_ARGV[4]::text[], auth.uid());
  PERFORM pg_notify(lib.changes_channel(), '');  -- one per transaction: PostgreSQL folds equal notifications
  RETURN NULL;
END $fn$;
COMMENT ON FUNCTION lib.log_change() IS 'Appends the changed row to lib.changes and wakes the gateways on commit (design 9).';

-- How long each table's log rows are kept, written by the compiler for every table of the model (design 9, record
-- history): 0, the log's retention alone; an entity's history keepDays (in seconds); NULL, as long as the log lives.
-- A table the model dropped goes back to 0. Tables logged before this table existed start at 0.
DO $$ BEGIN
  IF to_regclass('lib.changes_keep') IS NULL THEN
    CREATE TABLE lib.changes_keep (table_name text PRIMARY KEY, keep_seconds bigint CHECK (keep_seconds >= 0));
    INSERT INTO lib.changes_keep (table_name, keep_seconds) SELECT DISTINCT table_name, 0 FROM lib.changes;
  END IF;
END $$;
COMMENT ON TABLE lib.changes_keep IS 'Seconds each table''s change-log rows are kept at least (history keepDays; NULL: for ever, 0: the retention alone).';
REVOKE ALL ON lib.changes_keep FROM PUBLIC;

-- Removes log rows older than `retention_seconds`, or than their table's keep when longer (lib.changes_keep; none
-- of a table kept for ever), `batch` at most, in reading order, and moves the horizon past the highest removed; one
-- gateway prunes at a time (the others skip), and writes never wait on it (they only insert new rows). Each table's
-- oldest rows are read from changes_table_at, so rows kept for their history are never walked through.
CREATE OR REPLACE FUNCTION lib.changes_prune(retention_seconds integer, batch integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
DECLARE
  _n integer;
  _tx xid8;
  _id bigint;
BEGIN
  IF NOT pg_try_advisory_xact_lock(hashtextextended('lib.changes_prune', 0)) THEN RETURN 0; END IF;
  WITH gone AS (
    DELETE FROM lib.changes WHERE id = ANY (ARRAY(
      SELECT old.id
      FROM lib.changes_keep k
      CROSS JOIN LATERAL (
        SELECT c.tx, c.id FROM lib.changes c
        WHERE c.table_name = k.table_name AND c.at < now() - make_interval(secs => greatest(retention_seconds, k.keep_seconds))
        ORDER BY c.at, c.tx, c.id
        LIMIT batch) old
      WHERE k.keep_seconds IS NOT NULL
      ORDER BY old.tx, old.id
      LIMIT batch))
    RETURNING tx, id
  ) SELECT count(*) OVER (), g.tx, g.id INTO _n, _tx, _id FROM gone g ORDER BY g.tx DESC, g.id DESC LIMIT 1;
  IF _n > 0 THEN
    UPDATE lib.changes_horizon SET pruned_tx = _tx, pruned_id = _id WHERE (pruned_tx, pruned_id) < (_tx, _id);
  END IF;
  RETURN coalesce(_n, 0);
END $fn$;

REVOKE EXECUTE ON FUNCTION lib.log_change(), lib.changes_prune(integer, integer), lib.changes_state(),
  lib.changes_fresh(xid8, bigint, xid8) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION lib.changes_prune(integer, integer), lib.changes_state(),
  lib.changes_fresh(xid8, bigint, xid8) TO authenticator;
