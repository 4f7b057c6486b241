-- Relation actions of the request engine: list linked records, link and unlink (manyToMany), and
-- read and replace a oneToOne sub-resource. The owning record must exist (else 404).

-- The record a relation hangs off (or links to) must be visible to the caller as `action` (the request's
-- own, or `read` for a link target): 404 when missing, 403 when hidden. Returns its descriptor.
CREATE OR REPLACE FUNCTION lib.require_owner(resource text, id text, action text DEFAULT lib.action()) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  d jsonb := lib.resource(resource);
  found boolean;
BEGIN
  PERFORM lib.require_key(d, id, d ->> 'entity');
  found := lib.exists_as(action, format('SELECT EXISTS (SELECT 1 FROM app.%I t WHERE t.%I = $1::%s%s)', d ->> 'table', d ->> 'pk', d ->> 'pk_type',
    CASE WHEN (d ->> 'soft_delete')::boolean THEN ' AND t.deleted_at IS NULL' ELSE '' END), id);
  IF NOT found THEN PERFORM lib.missing(d, id, action); END IF;
  RETURN d;
END $$;

CREATE OR REPLACE FUNCTION lib.edge_sql(j jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT 'jsonb_build_object(' || coalesce(string_agg(format('%L, j.%I', e, e), ', '), '') || ')'
  FROM jsonb_array_elements_text(j -> 'edge') AS e
$$;

-- GET /<collection>/<id>/<relation>: the linked records, each with its `edge` properties.
CREATE OR REPLACE FUNCTION lib.linked(relation text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  j jsonb := lib.resource(relation);
  src jsonb := lib.require_owner(j -> 'source' ->> 'resource', args ->> 'id');
  d jsonb := lib.resource(j -> 'target' ->> 'resource');
  page int := lib.page(args);
  per_page int := lib.per_page(args);
  joined text;
  total bigint;
  rows jsonb;
BEGIN
  joined := format('app.%I j JOIN app.%I t ON t.%I = j.%I WHERE j.%I = ($1 ->> ''id'')::%s%s', j ->> 'table', d ->> 'table',
    d ->> 'pk', j -> 'target' ->> 'column', j -> 'source' ->> 'column', src ->> 'pk_type',
    CASE WHEN (d ->> 'soft_delete')::boolean THEN ' AND t.deleted_at IS NULL' ELSE '' END);
  EXECUTE format('SELECT count(*) FROM %s', joined) INTO total USING args;
  EXECUTE format('SELECT coalesce(jsonb_agg(to_jsonb(s) - ''_rev'' - ''_modified_at''), ''[]'') FROM (SELECT %s, %s AS edge FROM %s ORDER BY t.%I LIMIT %s OFFSET %s) s',
    lib.select_list(d), lib.edge_sql(j), joined, d ->> 'pk', per_page, (page - 1)::bigint * per_page) INTO rows USING args;
  RETURN jsonb_build_object('data', rows, 'meta', jsonb_build_object('total', total, 'page', page, 'per_page', per_page));
END $$;

-- PUT /<collection>/<id>/<relation>/<target>: creates the link or replaces its edge properties.
CREATE OR REPLACE FUNCTION lib.link(relation text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  j jsonb := lib.resource(relation);
  src jsonb := lib.require_owner(j -> 'source' ->> 'resource', args ->> 'id');
  tgt jsonb := lib.require_owner(j -> 'target' ->> 'resource', args ->> 'target', 'read');
  body jsonb := coalesce(args -> 'body', '{}'::jsonb);
  edge text[] := ARRAY(SELECT jsonb_array_elements_text(j -> 'edge'));
  k text;
  r jsonb;
  created boolean;
BEGIN
  IF jsonb_typeof(body) <> 'object' THEN PERFORM lib.bad_request('the body must be a JSON object'); END IF;
  FOR k IN SELECT jsonb_object_keys(body) LOOP
    IF NOT k = ANY (edge) THEN PERFORM lib.bad_request(format('unknown edge property "%s"', k), k, 'unknown'); END IF;
    IF jsonb_typeof(body -> k) NOT IN ('string', 'null') THEN
      PERFORM lib.refuse('PT422', format('edge property "%s" must be a string', k), k, 'type');
    END IF;
  END LOOP;
  EXECUTE format('SELECT NOT EXISTS (SELECT 1 FROM app.%I j WHERE j.%I = ($1 ->> ''id'')::%s AND j.%I = ($1 ->> ''target'')::%s)',
    j ->> 'table', j -> 'source' ->> 'column', src ->> 'pk_type', j -> 'target' ->> 'column', tgt ->> 'pk_type') INTO created USING args;
  EXECUTE format('INSERT INTO app.%I AS j (%I, %I%s) VALUES (($1 ->> ''id'')::%s, ($1 ->> ''target'')::%s%s) '
    'ON CONFLICT (%I, %I) DO UPDATE SET _rev = gen_random_uuid()%s RETURNING %s',
    j ->> 'table', j -> 'source' ->> 'column', j -> 'target' ->> 'column',
    (SELECT coalesce(string_agg(format(', %I', e), ''), '') FROM unnest(edge) e),
    src ->> 'pk_type', tgt ->> 'pk_type',
    (SELECT coalesce(string_agg(format(', $1 -> ''body'' ->> %L', e), ''), '') FROM unnest(edge) e),
    j -> 'source' ->> 'column', j -> 'target' ->> 'column',
    (SELECT coalesce(string_agg(format(', %I = EXCLUDED.%I', e, e), ''), '') FROM unnest(edge) e),
    lib.edge_sql(j)) INTO r USING jsonb_set(args, '{body}', body);
  RETURN jsonb_build_object('data', jsonb_build_object(j -> 'source' ->> 'column', args ->> 'id', j -> 'target' ->> 'column', args ->> 'target')
    || r, 'created', created);
END $$;

CREATE OR REPLACE FUNCTION lib.unlink(relation text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  j jsonb := lib.resource(relation);
  src jsonb := lib.require_owner(j -> 'source' ->> 'resource', args ->> 'id');
  tgt jsonb := lib.resource(j -> 'target' ->> 'resource');
  n bigint;
BEGIN
  PERFORM lib.require_key(tgt, args ->> 'target', tgt ->> 'entity');
  EXECUTE format('DELETE FROM app.%I j WHERE j.%I = ($1 ->> ''id'')::%s AND j.%I = ($1 ->> ''target'')::%s', j ->> 'table',
    j -> 'source' ->> 'column', src ->> 'pk_type', j -> 'target' ->> 'column', tgt ->> 'pk_type') USING args;
  GET DIAGNOSTICS n = ROW_COUNT;
  IF n = 0 THEN
    PERFORM lib.refuse('PT404', format('%s "%s" is not linked to %s "%s"', tgt ->> 'entity', args ->> 'target', src ->> 'entity', args ->> 'id'), NULL, NULL);
  END IF;
  RETURN '{}'::jsonb;
END $$;

-- A sub-resource is part of its owner: its responses carry the owner's ETag and Last-Modified.
CREATE OR REPLACE FUNCTION lib.owner_single(s jsonb, owner jsonb, r jsonb, id text) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE state jsonb;
BEGIN
  EXECUTE format('SELECT jsonb_build_object(''etag'', %s, ''modified'', t._modified_at) FROM app.%I t WHERE t.%I = $1::%s',
    lib.etag_sql(owner), owner ->> 'table', owner ->> 'pk', owner ->> 'pk_type') INTO state USING id;
  RETURN jsonb_build_object('data', r - '_rev' - '_modified_at', 'id', id, 'etag', state ->> 'etag', 'last_modified', state -> 'modified');
END $$;

-- GET /<collection>/<id>/<relation> (oneToOne): the sub-resource; every property null until written.
CREATE OR REPLACE FUNCTION lib.sub_read(relation text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  s jsonb := lib.resource(relation);
  owner jsonb := lib.require_owner(s ->> 'owner', args ->> 'id');
  r jsonb;
BEGIN
  EXECUTE format('SELECT to_jsonb(x) FROM (SELECT %s FROM app.%I t WHERE t.%I = ($1 ->> ''id'')::%s) x',
    lib.select_list(s), s ->> 'table', s ->> 'pk', owner ->> 'pk_type') INTO r USING args;
  IF r IS NULL THEN
    r := (SELECT jsonb_object_agg(c, NULL) FROM jsonb_array_elements_text(s -> 'output') c)
      || jsonb_build_object(s ->> 'pk', args ->> 'id');
  END IF;
  RETURN lib.owner_single(s, owner, r, args ->> 'id');
END $$;

-- PUT /<collection>/<id>/<relation> (oneToOne): creates or replaces the sub-resource.
CREATE OR REPLACE FUNCTION lib.sub_replace(relation text, args jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  s jsonb := lib.resource(relation);
  owner jsonb := lib.require_owner(s ->> 'owner', args ->> 'id');
  body jsonb := args -> 'body';
  cols text[];
  given text[];
  owner_where text;
  locked boolean;
  r jsonb;
BEGIN
  PERFORM lib.check_body(s, body);
  IF body ? (s ->> 'pk') AND body ->> (s ->> 'pk') IS DISTINCT FROM args ->> 'id' THEN
    PERFORM lib.bad_request(format('"%s" is the owner''s key and cannot differ from the path', s ->> 'pk'), s ->> 'pk', 'primary');
  END IF;
  body := body || jsonb_build_object(s ->> 'pk', args ->> 'id');
  -- Preconditions apply to the owner's ETag; its row stays locked until the write commits.
  owner_where := lib.record_sql(owner, args - 'body');
  EXECUTE format('SELECT true FROM app.%I t WHERE %s AND %s FOR UPDATE', owner ->> 'table', owner_where,
    lib.precondition_sql(owner, args - 'body')) INTO locked USING args - 'body';
  IF locked IS NULL THEN PERFORM lib.explain_miss(owner, args - 'body', owner_where); END IF;
  cols := ARRAY(SELECT k FROM jsonb_each(s -> 'columns') AS c(k, v) WHERE NOT (v ->> 'read_only')::boolean);
  -- Omitted properties go back to their default: left out of the insert, set to DEFAULT on update.
  given := ARRAY(SELECT c FROM unnest(cols) c WHERE body ? c OR NOT ((s -> 'columns' -> c ->> 'has_default')::boolean));
  EXECUTE format('WITH up AS (INSERT INTO app.%I AS t (%s) SELECT %s FROM jsonb_populate_record(NULL::app.%I, $1) r '
    'ON CONFLICT (%I) DO UPDATE SET %s RETURNING %s) SELECT to_jsonb(up) FROM up',
    s ->> 'table', (SELECT string_agg(format('%I', c), ', ') FROM unnest(given) c),
    (SELECT string_agg(format('r.%I', c), ', ') FROM unnest(given) c),
    s ->> 'table', s ->> 'pk',
    (SELECT string_agg(CASE WHEN c = ANY (given) THEN format('%I = EXCLUDED.%I', c, c) ELSE format('%I = DEFAULT', c) END, ', ')
      FROM unnest(cols) c WHERE c <> s ->> 'pk'),
    lib.select_list(s)) INTO r USING body;
  RETURN lib.owner_single(s, owner, r, args ->> 'id');
END $$;
