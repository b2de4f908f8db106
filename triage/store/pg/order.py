"""Ranking order on the server: a ``triage`` label counts only near the head of a ranking served.

A desk serves ordinary triage from the head of a ranking: the best-ranked candidate that
nobody has handled and no other desk holds, of the active model's ranking (queue mode
``follow``), of any model's ranking or the learned one (``bandit``/``pets``), or of the
newest ``cal`` snapshot, then its fallback, the active model's ranking (``follow`` with
the active model ``cal``). The server has every one of those orders: the rankings stored
at import and each cal snapshot the lead publishes (annotators can write neither).

- ``served_orders()`` → (key, fallback, rank): the orders the settings serve from now,
  keys ``m<model id>`` and ``c<snapshot id>``. A desk keeps the settings it was opened with
  (and a desk without a live listener its cal snapshot), so before every change of the
  settings, the models or the snapshots the orders served until then go into
  ``order_grace`` with the moment they stopped; ``session_orders(session)`` adds to the
  current orders those served at any time since the session started (less
  :data:`GRACE_S`, for a desk opened a little before its session).
- ``in_rank(candidate, session)``: the candidate is unhandled and among the first
  :data:`WINDOW` free candidates (not handled, not on another annotator's live lease, and
  not locked by another transaction claiming it) of one of those orders; or it was
  labelled once and that label was undone (a desk serves it again, at the head where it
  was). ``claim`` records the answer in the lease (``in_rank``), ``add_label`` takes an
  annotator's new ``triage`` decision only on such a lease or when it holds at the label.
- ``rank_frontier``: where each order's walk starts, so a check reads a slice of the
  stored order, never all of it. Every position before ``pos`` was handled when
  ``add_label`` (under the project's order lock, which :mod:`.judge` keeps from
  stalling) last moved it, except the leased candidates kept in ``ahead``. A candidate
  before ``pos`` is unhandled again only after an undo, which ``in_rank`` allows. The
  frontier is only where walks start: stale, it costs time, never a wrong answer.
"""

from __future__ import annotations

from triage.store.pg.url import ServerUrl

WINDOW = 16       # free candidates of an order's head a triage claim may be among
GRACE_S = 120.0   # seconds a desk may have been open before its session started
CHUNK = 64        # ids read per slice of a stored order (512 bytes)
MAX_AHEAD = 64    # leased candidates a frontier steps over and remembers
MAX_ADVANCE = 4096   # positions one label moves a frontier at most
INTERNAL = ("served_orders", "session_orders", "order_id", "order_ids", "rank_window",
            "in_rank", "advance_orders", "advance_order", "remember_orders", "reset_frontier",
            "unlocked", "free_for")

_ORDER = r"""
CREATE TABLE IF NOT EXISTS {s}.rank_frontier (
  key text PRIMARY KEY, pos integer NOT NULL, ahead bigint[] NOT NULL DEFAULT '{}');

CREATE TABLE IF NOT EXISTS {s}.order_grace (key text PRIMARY KEY, fallback text,
  until float8 NOT NULL);

ALTER TABLE {s}.claims ADD COLUMN IF NOT EXISTS in_rank boolean;

CREATE INDEX IF NOT EXISTS labels_undone_by_candidate ON {s}.labels (candidate_id)
  WHERE undone_at IS NOT NULL;

CREATE OR REPLACE FUNCTION {s}.served_orders()
  RETURNS TABLE(key text, fallback text, rank integer) LANGUAGE sql STABLE {inner}
  WITH t AS (SELECT
      coalesce((SELECT value FROM settings WHERE key = 'queue_mode'), '"follow"') <> '"follow"'
        AS many,
      (SELECT CASE WHEN value ~ '^".*"$' THEN value::jsonb #>> '{}' END
       FROM settings WHERE key = 'active_model') AS active,
      coalesce((SELECT value FROM settings WHERE key = 'learn'), 'false') = 'true' AS learn),
  f AS (SELECT coalesce((SELECT m.id FROM models m, t WHERE m.name = t.active),
                        (SELECT min(id) FROM models)) AS id),
  c AS (SELECT max(id) AS id FROM cal_snapshots)
  SELECT 'c' || c.id, 'm' || f.id, 0 FROM c, f, t
    WHERE c.id IS NOT NULL AND (t.active = 'cal' OR t.learn AND t.many)
  UNION ALL   -- followed cal serves its fallback only once the snapshot is worked down
  SELECT 'm' || m.id, NULL, CASE WHEN m.id = f.id THEN 1 ELSE 2 END FROM models m, f, t, c
    WHERE t.many OR m.id = f.id AND (c.id IS NULL OR t.active IS DISTINCT FROM 'cal') $fn$;

CREATE TABLE IF NOT EXISTS {s}.served_now (key text PRIMARY KEY, fallback text,
  rank integer NOT NULL);

CREATE OR REPLACE FUNCTION {s}.remember_orders() RETURNS trigger LANGUAGE plpgsql {head}
DECLARE v_now float8 := extract(epoch FROM clock_timestamp());
BEGIN
  -- One change to what is served at a time (only the lead writes these tables; the desks'
  -- checks only read served_now and never wait for this lock).
  LOCK TABLE served_now IN EXCLUSIVE MODE;
  IF TG_WHEN = 'BEFORE' THEN   -- the orders served until now, and since when not
    INSERT INTO order_grace (key, fallback, until)
      SELECT o.key, o.fallback, v_now FROM served_orders() o
      ON CONFLICT (key) DO UPDATE SET fallback = excluded.fallback, until = excluded.until;
  ELSE                         -- what is served from now on, read by every check
    DELETE FROM served_now;
    INSERT INTO served_now (key, fallback, rank) SELECT * FROM served_orders();
  END IF;
  RETURN NULL;
END $fn$;

CREATE OR REPLACE TRIGGER settings_orders BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON {s}.settings FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_orders();

CREATE OR REPLACE TRIGGER settings_served AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON {s}.settings FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_orders();

CREATE OR REPLACE TRIGGER cal_snapshots_orders BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON {s}.cal_snapshots FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_orders();

CREATE OR REPLACE TRIGGER cal_snapshots_served AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON {s}.cal_snapshots FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_orders();

CREATE OR REPLACE TRIGGER models_orders BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON {s}.models FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_orders();

CREATE OR REPLACE TRIGGER models_served AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON {s}.models FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_orders();

CREATE OR REPLACE FUNCTION {s}.session_orders(p_session bigint)
  RETURNS TABLE(key text, fallback text, rank integer) LANGUAGE sql STABLE {inner}
  -- What a desk of this session may serve from: a desk keeps the settings it opened with
  -- (and a headless one its snapshot), so also every order served since it started. The
  -- orders served now are kept in served_now by the triggers above (worked out here only
  -- for a project whose served_now was never filled).
  WITH n AS (SELECT v.key, v.fallback, v.rank FROM served_now v)
  SELECT DISTINCT ON (a.key) a.key, a.fallback, a.rank FROM (
    SELECT n.key, n.fallback, n.rank FROM n
    UNION ALL
    SELECT o.key, o.fallback, o.rank FROM served_orders() o WHERE NOT EXISTS (SELECT 1 FROM n)
    UNION ALL
    SELECT g.key, g.fallback, 3 FROM order_grace g, sessions t
    WHERE t.id = p_session
      AND (t.started_at !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9:.]+([+-][0-9:]+|Z)?$'
           OR g.until >= extract(epoch FROM t.started_at::timestamptz) - {grace})) a
  ORDER BY a.key, a.rank $fn$;

CREATE OR REPLACE FUNCTION {s}.reset_frontier() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  -- Rankings replaced or labels deleted (the lead's repairs): walks start from the top.
  PERFORM order_lock();   -- the lock add_label holds before it moves a frontier
  DELETE FROM rank_frontier;
  RETURN NULL;
END $fn$;

CREATE OR REPLACE TRIGGER rankings_frontier AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
  ON {s}.rankings FOR EACH STATEMENT EXECUTE FUNCTION {s}.reset_frontier();

CREATE OR REPLACE TRIGGER labels_frontier AFTER DELETE OR TRUNCATE
  ON {s}.labels FOR EACH STATEMENT EXECUTE FUNCTION {s}.reset_frontier();

CREATE OR REPLACE FUNCTION {s}.order_id(p_ids bytea, p_at integer) RETURNS bigint
  LANGUAGE sql IMMUTABLE AS $fn$   -- inlined where it is used: no SECURITY DEFINER, no SET
  SELECT get_byte(p_ids, 8 * p_at)::bigint
         | (get_byte(p_ids, 8 * p_at + 1)::bigint << 8)
         | (get_byte(p_ids, 8 * p_at + 2)::bigint << 16)
         | (get_byte(p_ids, 8 * p_at + 3)::bigint << 24)
         | (get_byte(p_ids, 8 * p_at + 4)::bigint << 32)
         | (get_byte(p_ids, 8 * p_at + 5)::bigint << 40)
         | (get_byte(p_ids, 8 * p_at + 6)::bigint << 48)
         | (get_byte(p_ids, 8 * p_at + 7)::bigint << 56) $fn$;

CREATE OR REPLACE FUNCTION {s}.order_ids(p_key text, p_from integer)
  RETURNS bytea LANGUAGE sql STABLE {inner}
  SELECT CASE WHEN p_key ~ '^m[0-9]+$' THEN
      (SELECT substring(r.candidate_ids FROM p_from * 8 + 1 FOR {chunk} * 8) FROM rankings r
       WHERE r.model_id = substr(p_key, 2)::bigint)
    WHEN p_key ~ '^c[0-9]+$' THEN
      (SELECT substring(c.candidate_ids FROM p_from * 8 + 1 FOR {chunk} * 8)
       FROM cal_snapshots c WHERE c.id = substr(p_key, 2)::bigint) END $fn$;

CREATE OR REPLACE FUNCTION {s}.unlocked(p_ids bigint[]) RETURNS bigint[]
LANGUAGE plpgsql {inner}
DECLARE v_free bigint[] := '{}';
BEGIN
  -- Candidates another transaction is claiming (their row locked) are not free: a weak
  -- lock taken and released at once (a subtransaction rolled back) tells which.
  BEGIN
    v_free := ARRAY(SELECT id FROM candidates WHERE id = ANY(p_ids) FOR KEY SHARE SKIP LOCKED);
    RAISE EXCEPTION USING ERRCODE = 'P0004';
  EXCEPTION WHEN assert_failure THEN NULL;
  END;
  RETURN ARRAY(SELECT x FROM unnest(p_ids) WITH ORDINALITY u(x, i) WHERE x = ANY(v_free)
               ORDER BY i);
END $fn$;

CREATE OR REPLACE FUNCTION {s}.free_for(p_candidate bigint, p_annotator bigint,
  p_now float8) RETURNS boolean LANGUAGE sql STABLE {inner}
  -- Free for her: no active label, no live lease of another annotator's (her own desks'
  -- leases count as free: holding the head on them moves her on no further).
  SELECT NOT EXISTS (SELECT 1 FROM labels l WHERE l.candidate_id = p_candidate
                     AND l.undone_at IS NULL)
     AND NOT EXISTS (SELECT 1 FROM claims c JOIN sessions t ON t.id = c.session_id
                     WHERE c.candidate_id = p_candidate AND c.expires_at > p_now
                       AND t.annotator_id <> p_annotator) $fn$;

CREATE OR REPLACE FUNCTION {s}.rank_window(p_candidate bigint, p_session bigint, p_key text,
  p_seen integer) RETURNS integer LANGUAGE plpgsql {inner}
DECLARE v_pos integer; v_ahead bigint[]; v_free bigint[] := '{}'; v_part bytea; x bigint;
  v_now float8 := extract(epoch FROM clock_timestamp());
  v_me bigint := (SELECT annotator_id FROM sessions WHERE id = p_session);
BEGIN
  -- -1: the candidate is among the first {window} free ones (p_seen of them counted in
  -- an order before); otherwise how many free ones this order had before it ended.
  -- Position by position (a desk's candidate is nearly always the first one looked at).
  -- Her own desks' leases count as free: holding the head on them moves her on no further.
  SELECT pos, ahead INTO v_pos, v_ahead FROM rank_frontier WHERE key = p_key;
  FOREACH x IN ARRAY coalesce(v_ahead, '{}') LOOP
    IF x = p_candidate THEN RETURN -1; END IF;
    IF free_for(x, v_me, v_now) THEN v_free := v_free || x; END IF;
  END LOOP;
  v_pos := coalesce(v_pos, 0);
  LOOP
    v_part := order_ids(p_key, v_pos);
    IF v_part IS NULL OR length(v_part) < 8 THEN RETURN cardinality(v_free); END IF;
    FOR g IN 0 .. length(v_part) / 8 - 1 LOOP
      IF p_seen + cardinality(v_free) >= {window} THEN
        v_free := unlocked(v_free);
        IF p_seen + cardinality(v_free) >= {window} THEN RETURN cardinality(v_free); END IF;
      END IF;
      x := order_id(v_part, g);
      IF x = p_candidate THEN RETURN -1; END IF;
      IF free_for(x, v_me, v_now) THEN v_free := v_free || x; END IF;
    END LOOP;
    v_pos := v_pos + length(v_part) / 8;
  END LOOP;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.in_rank(p_candidate bigint, p_session bigint)
  RETURNS boolean LANGUAGE plpgsql {inner}
DECLARE r record; v_seen integer;
BEGIN
  IF EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate AND undone_at IS NULL) THEN
    RETURN false;
  END IF;
  IF EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate
             AND undone_at IS NOT NULL) THEN
    RETURN true;   -- served before and undone: a desk serves it again where it was
  END IF;
  FOR r IN SELECT o.key, o.fallback FROM session_orders(p_session) o ORDER BY o.rank, o.key
  LOOP
    v_seen := rank_window(p_candidate, p_session, r.key, 0);
    IF v_seen = -1 THEN RETURN true; END IF;
    IF r.fallback IS NOT NULL AND v_seen < {window}
       AND rank_window(p_candidate, p_session, r.fallback, v_seen) = -1 THEN
      RETURN true;   -- a snapshot worked down: its desks serve the fallback ranking
    END IF;
  END LOOP;
  RETURN false;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.advance_order(p_key text) RETURNS void LANGUAGE plpgsql {inner}
DECLARE v_pos integer; v_ahead bigint[]; v_new bigint[] := '{}'; v_start integer;
  v_part bytea; x bigint; v_now float8 := extract(epoch FROM clock_timestamp());
BEGIN
  SELECT pos, ahead INTO v_pos, v_ahead FROM rank_frontier WHERE key = p_key;
  v_pos := coalesce(v_pos, 0);
  v_start := v_pos;
  FOREACH x IN ARRAY coalesce(v_ahead, '{}') LOOP   -- stepped over: still unhandled?
    IF NOT EXISTS (SELECT 1 FROM labels l WHERE l.candidate_id = x AND l.undone_at IS NULL) THEN
      v_new := v_new || x;
    END IF;
  END LOOP;
  <<walk>>
  WHILE v_pos < v_start + {max_advance} LOOP
    v_part := order_ids(p_key, v_pos);
    EXIT WHEN v_part IS NULL OR length(v_part) < 8;
    FOR g IN 0 .. length(v_part) / 8 - 1 LOOP
      x := order_id(v_part, g);
      IF EXISTS (SELECT 1 FROM labels l WHERE l.candidate_id = x AND l.undone_at IS NULL) THEN
        v_pos := v_pos + 1;
      ELSIF cardinality(v_new) < {max_ahead} AND EXISTS (SELECT 1 FROM claims c
          WHERE c.candidate_id = x AND c.expires_at > v_now) THEN
        v_new := v_new || x;   -- on a desk's screen: stepped over, remembered
        v_pos := v_pos + 1;
      ELSE
        EXIT walk;
      END IF;
    END LOOP;
  END LOOP;
  IF v_pos <> v_start OR v_new IS DISTINCT FROM coalesce(v_ahead, '{}') THEN
    INSERT INTO rank_frontier (key, pos, ahead) VALUES (p_key, v_pos, v_new)
      ON CONFLICT (key) DO UPDATE SET pos = excluded.pos, ahead = excluded.ahead;
  END IF;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.advance_orders(p_session bigint) RETURNS void
LANGUAGE plpgsql {inner}
DECLARE k text;
BEGIN
  -- Called by add_label under the order lock: frontiers move one writer at a time, those
  -- of the orders the labelling desk may serve from (so the ones desks use stay current).
  FOR k IN SELECT DISTINCT v.k FROM session_orders(p_session) o,
             LATERAL (VALUES (o.key), (o.fallback)) v(k) WHERE v.k IS NOT NULL ORDER BY 1 LOOP
    PERFORM advance_order(k);
  END LOOP;
END $fn$;

DO $do$
DECLARE k text; v_before integer; v_after integer;
  v_path text := pg_catalog.current_setting('search_path');
BEGIN
  -- The helpers below resolve names as their SECURITY DEFINER callers do.
  PERFORM pg_catalog.set_config('search_path', '{s}, pg_catalog, pg_temp', true);
  -- Run by server init: what is served now, for a project set up before served_now was kept.
  LOCK TABLE {s}.served_now IN EXCLUSIVE MODE;
  DELETE FROM {s}.served_now;
  INSERT INTO {s}.served_now (key, fallback, rank) SELECT * FROM {s}.served_orders();
  -- Run by server init: a project that has labels but no frontiers yet (one set up by an
  -- earlier version) gets them now, not in its first desks' leases.
  FOR k IN SELECT DISTINCT v.k FROM {s}.served_orders() o,
             LATERAL (VALUES (o.key), (o.fallback)) v(k) WHERE v.k IS NOT NULL LOOP
    LOOP
      SELECT pos INTO v_before FROM {s}.rank_frontier WHERE key = k;
      PERFORM {s}.advance_order(k);
      SELECT pos INTO v_after FROM {s}.rank_frontier WHERE key = k;
      EXIT WHEN v_after IS NOT DISTINCT FROM v_before;
    END LOOP;
  END LOOP;
  PERFORM pg_catalog.set_config('search_path', v_path, true);
END $do$
"""


def order_template(url: ServerUrl) -> str:
    """The functions above with their limits filled in (the project's names are filled later)."""
    del url   # the same for every project
    text = _ORDER
    for name, value in {"{window}": str(WINDOW), "{grace}": str(GRACE_S),
                        "{chunk}": str(CHUNK), "{max_ahead}": str(MAX_AHEAD),
                        "{max_advance}": str(MAX_ADVANCE)}.items():
        text = text.replace(name, value)
    return text


__all__ = ["GRACE_S", "INTERNAL", "WINDOW", "order_template"]
