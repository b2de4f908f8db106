"""Which ranking served a label: the server's word, not the desk's.

In the bandit queue modes a desk stores with each label the arm (a model's name, or
``cal`` for the learned ranking) whose ranking served it (``labels.served_by``), and
every desk and the lead rebuild the bandit's belief, which model finds positives, from
those. The desk's word alone would let an annotator credit any model with the positives
she found anywhere. A trigger on ``labels`` (:func:`served_template`) keeps an
annotator's ``served_by`` only where the server's own state confirms it, and otherwise
stores NULL (a label no arm is credited with): the label itself is judged and counted as
before (:mod:`.judge`), so a cooperative desk is never refused over the arm it names.

- A ``triage`` decision: the candidate is among the first :data:`SERVED_WINDOW` free
  candidates (:mod:`.order`'s ``rank_window``) of that arm's order among those the session
  may serve from (``session_orders``: a model's ranking ``m<id>``; for ``cal`` any cal
  snapshot ``c<id>`` or the imported ranking it falls back on before the first snapshot
  and once one is worked down); or it is served
  again after an undo and an undone label of it names the same arm (a desk serves it again
  for the same reason as before).
- Anything else serves no arm: other kinds (overlap, audit, re-test, certify, whose own
  rules apply) and a change of one's own decision (nothing new was served; the first
  decision already credited its arm once).

The lead's labels are stored as sent (the lead is trusted with every table's repair).

What is being served elsewhere: ``held_elsewhere(candidate, annotator)`` says whether
another person's transaction holds the candidate's row locked (a claim in progress, or one
kept uncommitted, which no lease shows). :mod:`.judge` counts such an item of the
certification sample or the audit order as on another annotator's lease, so one who holds
the item due locked cannot get every other desk's next certification or audit label
refused; a lock of her own connections is hers, like her own desks' leases. Like a lease,
such a lock lasts no longer than the lease length: a transaction of an annotator's that
has held it longer (her timeouts turned off) is ended when another desk meets it, so an
item due is not kept undecided for good (the lead's certificate waiting on it).
"""

from __future__ import annotations

from triage.store.pg.order import WINDOW
from triage.store.pg.url import ServerUrl

SERVED_WINDOW = 8   # free candidates of an arm's head a label crediting that arm may be among
PASSED_SPAN = 65_536   # positions before an order's frontier an undone candidate is looked for
INTERNAL = ("served_arm", "judge_served_by", "passed", "at_head", "held_elsewhere")

_SERVED = r"""
CREATE OR REPLACE FUNCTION {s}.passed(p_candidate bigint, p_key text) RETURNS boolean
LANGUAGE plpgsql {head}
DECLARE v_pos integer; v_start integer; v_ids bytea; v_id bytea := '\x'::bytea; v_at integer;
  v_from integer := 0;
BEGIN
  -- Whether the order's walk has passed the candidate (it lies before the frontier, where
  -- everything was handled when the frontier moved): taken back by an undo, it is at the
  -- head of that order again. Its 8 bytes (little-endian) are looked for in the last
  -- {span} positions before the frontier (a label passed is undone soon after: a deeper
  -- one credits no arm), never the whole prefix a crafted label would have read each time.
  SELECT pos INTO v_pos FROM rank_frontier WHERE key = p_key;
  IF coalesce(v_pos, 0) = 0 THEN RETURN false; END IF;
  v_start := greatest(v_pos - {span}, 0);
  IF p_key ~ '^m[0-9]+$' THEN
    SELECT substring(candidate_ids FROM v_start * 8 + 1 FOR (v_pos - v_start) * 8) INTO v_ids
      FROM rankings WHERE model_id = substr(p_key, 2)::bigint;
  ELSIF p_key ~ '^c[0-9]+$' THEN
    SELECT substring(candidate_ids FROM v_start * 8 + 1 FOR (v_pos - v_start) * 8) INTO v_ids
      FROM cal_snapshots WHERE id = substr(p_key, 2)::bigint;
  END IF;
  FOR k IN 0 .. 7 LOOP
    v_id := v_id || substring(int8send(p_candidate) FROM 8 - k FOR 1);
  END LOOP;
  LOOP
    v_at := position(v_id IN substring(v_ids FROM v_from + 1));
    IF coalesce(v_at, 0) = 0 THEN RETURN false; END IF;
    IF (v_from + v_at - 1) % 8 = 0 THEN RETURN true; END IF;
    v_from := v_from + v_at;   -- a match across two ids: look on
  END LOOP;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.at_head(p_candidate bigint, p_session bigint, p_key text,
  p_undone boolean, p_seen integer) RETURNS integer LANGUAGE plpgsql {head}
DECLARE v_seen integer;
BEGIN
  -- -1 when the candidate is at the head of the order for this session (among its first
  -- free candidates after p_seen, or passed by its walk and taken back by an undo);
  -- otherwise how many free candidates the order had (rank_window's count).
  v_seen := rank_window(p_candidate, p_session, p_key, p_seen);
  IF v_seen <> -1 AND p_undone AND passed(p_candidate, p_key) THEN RETURN -1; END IF;
  RETURN v_seen;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.served_arm(p_candidate bigint, p_session bigint,
  p_annotator bigint, p_kind text, p_served_by text) RETURNS text LANGUAGE plpgsql {head}
DECLARE r record; v_seen integer; v_model text; v_undone boolean;
BEGIN
  IF p_served_by IS NULL OR p_kind IS DISTINCT FROM 'triage' THEN RETURN NULL; END IF;
  IF EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate
             AND annotator_id = p_annotator AND undone_at IS NULL AND kind <> 'retest') THEN
    -- A change of her own decision: nothing new was served. A skip credited no arm, so
    -- the first decision after it credits the arm that served the skip; later ones none.
    IF EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate
               AND annotator_id = p_annotator AND undone_at IS NULL AND kind <> 'retest'
               AND served_by = p_served_by)
       AND NOT EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate
                       AND annotator_id = p_annotator AND undone_at IS NULL
                       AND served_by IS NOT NULL AND value IS NOT NULL) THEN
      RETURN p_served_by;
    END IF;
    RETURN NULL;
  END IF;
  IF EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate AND undone_at IS NOT NULL
             AND served_by = p_served_by) THEN
    RETURN p_served_by;   -- served again after an undo, for the same reason as before
  END IF;
  v_undone := EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate
                      AND undone_at IS NOT NULL);
  v_model := (SELECT 'm' || id FROM models WHERE name = p_served_by);
  FOR r IN SELECT o.key, o.fallback, o.rank FROM session_orders(p_session) o
    ORDER BY o.rank, o.key
  LOOP
    IF p_served_by = 'cal' AND r.key LIKE 'c%' THEN
      v_seen := at_head(p_candidate, p_session, r.key, v_undone, {skip});
      IF v_seen = -1 OR r.fallback IS NOT NULL AND {skip} + v_seen < {window}
         AND at_head(p_candidate, p_session, r.fallback, v_undone, {skip} + v_seen) = -1 THEN
        RETURN p_served_by;
      END IF;
    -- cal without a snapshot (or the desk's worked down) serves the ranking it falls back
    -- on: the one followed now (rank 1) or one served since the session started (rank 3).
    ELSIF (r.key = v_model OR p_served_by = 'cal' AND r.rank <> 2)
          AND at_head(p_candidate, p_session, r.key, v_undone, {skip}) = -1 THEN
      RETURN p_served_by;
    END IF;
  END LOOP;
  RETURN NULL;   -- not where that arm would serve from: no arm is credited
END $fn$;

CREATE OR REPLACE FUNCTION {s}.held_elsewhere(p_candidate bigint, p_me bigint)
  RETURNS boolean LANGUAGE plpgsql {head}
DECLARE v_free boolean; v_xmax xid; v_name text := (SELECT name FROM annotators WHERE id = p_me);
BEGIN
  -- Whether a transaction of someone else's holds the candidate's row locked (a claim in
  -- progress, or one kept uncommitted): a weak lock taken and released at once (a
  -- subtransaction rolled back) tells whether it is locked, the locking transaction's
  -- backend whose. A lock of one of her own backends is hers: it moves her on no further.
  BEGIN
    v_free := EXISTS (SELECT 1 FROM candidates WHERE id = p_candidate FOR KEY SHARE SKIP LOCKED);
    RAISE EXCEPTION USING ERRCODE = 'P0004';
  EXCEPTION WHEN assert_failure THEN NULL;
  END;
  IF v_free THEN RETURN false; END IF;
  SELECT xmax INTO v_xmax FROM candidates WHERE id = p_candidate;
  BEGIN   -- a lock lasts no longer than a lease: an annotator's transaction that has held
    -- it longer (her timeouts turned off) is ended, as the order lock's holders are
    PERFORM pg_terminate_backend(a.pid) FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid
      WHERE k.locktype = 'transactionid' AND k.transactionid = v_xmax AND k.granted
        AND a.usename <> v_name AND a.xact_start < clock_timestamp() - make_interval(
          secs => lease_seconds())
        AND pg_has_role(a.usename, '{annotator}', 'MEMBER')
        AND NOT pg_has_role(a.usename, '{lead}', 'MEMBER');
  EXCEPTION WHEN OTHERS THEN NULL;   -- the owner may not: it counts as held, as before
  END;
  BEGIN
    IF EXISTS (SELECT 1 FROM pg_locks k WHERE k.locktype = 'transactionid'
               AND k.transactionid = v_xmax) THEN
      RETURN NOT EXISTS (SELECT 1 FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid
                         WHERE k.locktype = 'transactionid' AND k.transactionid = v_xmax
                           AND a.usename = v_name);
    END IF;
    -- several lockers: the row's xmax names a multixact
    RETURN NOT EXISTS (SELECT 1 FROM pg_get_multixact_members(v_xmax) m
                       JOIN pg_locks k ON k.locktype = 'transactionid' AND k.transactionid = m.xid
                       JOIN pg_stat_activity a ON a.pid = k.pid WHERE a.usename = v_name);
  EXCEPTION WHEN OTHERS THEN   -- pg_locks revoked from the owner too: nobody is refused
    RETURN true;
  END;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.judge_served_by() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  IF NEW.served_by IS NOT NULL AND NOT is_lead() THEN
    NEW.served_by := served_arm(NEW.candidate_id, NEW.session_id, NEW.annotator_id,
                                NEW.kind, NEW.served_by);
  END IF;
  RETURN NEW;
END $fn$;

CREATE OR REPLACE TRIGGER labels_served_by BEFORE INSERT ON {s}.labels
  FOR EACH ROW EXECUTE FUNCTION {s}.judge_served_by()
"""


def served_template(url: ServerUrl) -> str:
    """The trigger above with its window filled in (the project's names are filled later)."""
    return (_SERVED.replace("{annotator}", url.annotator_role)
            .replace("{skip}", str(max(WINDOW - SERVED_WINDOW, 0)))
            .replace("{window}", str(WINDOW)).replace("{span}", str(PASSED_SPAN)))


__all__ = ["INTERNAL", "PASSED_SPAN", "SERVED_WINDOW", "served_template"]
