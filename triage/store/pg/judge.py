"""What counts: the server's own record of what it served, and its pace and lock rules.

The write functions of :mod:`triage.store.pg.functions` call these (none is executable by
a team role). An annotator's label counts only when the server's state says it may:

- ``judged_seconds(...)`` → the seconds to store. A new decision needs the lease the
  server gave that session for that candidate (``claims``: served there, at
  ``served_at`` by the server's clock), and a kind the server's state allows: ``triage``
  on a candidate nobody has decided, near the head of a ranking the project serves
  (``in_rank``, :mod:`.order`); ``audit`` only when the lease was the item of the
  server's audit order due (``audit_due``: the first item of the stored order neither
  handled nor on another annotator's lease, judged when it was claimed or now);
  ``overlap`` on an item that someone else decided and that is short of its labels, of the
  stored plan or of one in force since the session started (``planned``: a desk keeps the
  plan it was opened with; items the lead's new plan dropped wait in ``plan_grace`` with
  the moment they left, as ranking orders do in :mod:`.order`); ``retest`` of the
  caller's own earlier decision from another session, once, at the project's re-test rate
  within the session (as the desk's dispatcher draws them); ``certify`` on the running
  sample's items in sample order only (every earlier item decided or on another
  annotator's lease, judged when it was served or now: her own desks' leases do not move
  her on), once per item. A second label by the same
  annotator on a candidate is a change of their own decision (``decision_kind``: it takes
  that decision's kind, whatever the desk sent), needs no lease and is not paid. Paid time is the time between serving and labelling, capped at the lease
  length (and never more than the desk says).
- ``pace(annotator, note)``: at most ``server_label_rate`` labels a second (default 5,
  counted over two seconds) and ``server_note_quota`` characters of notes (default
  200,000) per annotator (her notes' length kept in ``note_chars``, :mod:`.notes`).
- ``order_lock()``: the row lock that orders change numbers (annotators cannot lock that
  table themselves). A wait is bounded: every half second the waiter ends an annotator's
  connection that holds the lock idle in a transaction, or has held it in a transaction
  for longer than :data:`HOLD_S` without waiting for anything (the owner needs
  ``pg_signal_backend`` and ``pg_read_all_stats`` for that, or to be a superuser); after
  :data:`WAIT_S` the caller is told to try again (``lock_not_available``).
"""

from __future__ import annotations

from triage.store.pg.order import GRACE_S
from triage.store.pg.url import ServerUrl

LABEL_RATE_KEY = "server_label_rate"      # labels a second per annotator (project table)
NOTE_QUOTA_KEY = "server_note_quota"      # characters of notes per annotator
DEFAULT_LABEL_RATE = 5.0
DEFAULT_NOTE_QUOTA = 200_000
PACE_WINDOW_S = 2.0
HOLD_S = 2.0          # a transaction holding the order lock this long while not waiting
WAIT_S = 4.0          # how long a write waits for the order lock before "try again"
SESSIONS_PER_MINUTE = 10   # sessions an annotator may start a minute (2 × the label rate if more)
INTERNAL = ("order_lock", "unstall", "pace", "judged_seconds", "certify_due",
            "sample_items", "setting_number", "decided", "decision_kind", "audit_due",
            "in_sample", "note_pace", "session_pace", "retest_due", "remember_plan",
            "planned")

_JUDGE = r"""
CREATE TABLE IF NOT EXISTS {s}.serial (id integer PRIMARY KEY CHECK (id = 1));

INSERT INTO {s}.serial VALUES (1) ON CONFLICT DO NOTHING;

ALTER TABLE {s}.claims ADD COLUMN IF NOT EXISTS served_at double precision;

ALTER TABLE {s}.claims ADD COLUMN IF NOT EXISTS claimed_in xid8;

ALTER TABLE {s}.claims ADD COLUMN IF NOT EXISTS in_order boolean;

ALTER TABLE {s}.claims ADD COLUMN IF NOT EXISTS in_audit boolean;

CREATE TABLE IF NOT EXISTS {s}.audit_order (
  id integer PRIMARY KEY CHECK (id = 1), n integer NOT NULL, ids bytea NOT NULL);

ALTER TABLE {s}.audit_order ALTER COLUMN ids SET STORAGE EXTERNAL;

CREATE OR REPLACE FUNCTION {s}.setting_number(p_key text, p_default float8) RETURNS float8
LANGUAGE sql STABLE {inner}
  SELECT coalesce((SELECT CASE WHEN value ~ '^[0-9]+(\.[0-9]+)?$' THEN value::float8 END
                   FROM project WHERE key = p_key), p_default) $fn$;

CREATE OR REPLACE FUNCTION {s}.unstall() RETURNS void LANGUAGE plpgsql {head}
DECLARE r record;
BEGIN
  FOR r IN SELECT a.pid FROM pg_locks k JOIN pg_stat_activity a ON a.pid = k.pid
    WHERE k.locktype = 'relation' AND k.relation = '{s}.serial'::regclass AND k.granted
      AND a.pid <> pg_backend_pid() AND a.wait_event_type IS DISTINCT FROM 'Lock'
      AND (a.state LIKE 'idle in transaction%' AND a.state_change < clock_timestamp() - interval '0.5 seconds'
           OR a.xact_start < clock_timestamp() - interval '{hold} seconds')
      AND pg_has_role(a.usename, '{annotator}', 'MEMBER')
      AND NOT pg_has_role(a.usename, '{lead}', 'MEMBER')
  LOOP
    BEGIN
      PERFORM pg_terminate_backend(r.pid);
    EXCEPTION WHEN insufficient_privilege THEN NULL;   -- the owner may not: wait, then say so
    END;
  END LOOP;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.order_lock() RETURNS void LANGUAGE plpgsql
SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp SET lock_timeout = '500ms' AS $fn$
DECLARE v_try integer := 0;
BEGIN
  PERFORM 1 FROM serial WHERE id = 1 FOR UPDATE SKIP LOCKED;   -- free (or ours): no wait
  IF FOUND THEN RETURN; END IF;
  LOOP
    BEGIN
      PERFORM 1 FROM serial WHERE id = 1 FOR UPDATE;
      RETURN;
    EXCEPTION WHEN lock_not_available THEN
      v_try := v_try + 1;
      IF v_try >= {tries} THEN
        RAISE EXCEPTION 'another connection has held the project''s write lock for % s; '
          'nothing was written: try again', {wait} USING ERRCODE = 'lock_not_available';
      END IF;
      PERFORM unstall();
    END;
  END LOOP;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.pace(p_annotator bigint, p_note text) RETURNS void
LANGUAGE plpgsql {inner}
DECLARE v_rate float8 := setting_number('{rate_key}', {rate}); v_at text; v_used bigint;
BEGIN
  SELECT created_at INTO v_at FROM labels WHERE annotator_id = p_annotator
    ORDER BY id DESC OFFSET greatest(ceil(v_rate * {window})::integer, 1) - 1 LIMIT 1;
  IF v_at IS NOT NULL AND v_at > to_char((clock_timestamp() - interval '{window} seconds')
      AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') THEN
    RAISE EXCEPTION 'more than % labels a second from one annotator', v_rate
      USING ERRCODE = 'configuration_limit_exceeded';
  END IF;
  IF p_note IS NOT NULL THEN
    v_used := coalesce((SELECT chars FROM note_chars WHERE annotator_id = p_annotator), 0);
    IF v_used + length(p_note) > setting_number('{quota_key}', {quota}) THEN
      PERFORM refuse('your notes have reached their quota; ask the lead');
    END IF;
  END IF;
END $fn$;

CREATE TABLE IF NOT EXISTS {s}.note_edits (
  annotator_id bigint NOT NULL, at timestamptz NOT NULL DEFAULT clock_timestamp());

CREATE INDEX IF NOT EXISTS note_edits_who ON {s}.note_edits (annotator_id, at);

CREATE OR REPLACE FUNCTION {s}.note_pace(p_annotator bigint) RETURNS void
LANGUAGE plpgsql {inner}
DECLARE v_rate float8 := setting_number('{rate_key}', {rate});
BEGIN
  DELETE FROM note_edits WHERE annotator_id = p_annotator
    AND at < clock_timestamp() - interval '{window} seconds';
  IF (SELECT count(*) FROM note_edits WHERE annotator_id = p_annotator)
      >= greatest(ceil(v_rate * {window})::integer, 1) THEN
    RAISE EXCEPTION 'more than % note edits a second from one annotator', v_rate
      USING ERRCODE = 'configuration_limit_exceeded';
  END IF;
  INSERT INTO note_edits(annotator_id) VALUES (p_annotator);
END $fn$;

CREATE OR REPLACE FUNCTION {s}.session_pace(p_annotator bigint) RETURNS void
LANGUAGE plpgsql {inner}
DECLARE v_limit integer := greatest({per_minute},
                                    ceil(2 * setting_number('{rate_key}', {rate}))::integer);
  v_at text;
BEGIN
  SELECT started_at INTO v_at FROM sessions WHERE annotator_id = p_annotator
    ORDER BY id DESC OFFSET v_limit - 1 LIMIT 1;
  IF v_at IS NOT NULL AND v_at > to_char((clock_timestamp() - interval '60 seconds')
      AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') THEN
    RAISE EXCEPTION 'more than % sessions started in a minute by one annotator', v_limit
      USING ERRCODE = 'configuration_limit_exceeded';
  END IF;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.retest_due(p_annotator bigint, p_session bigint)
  RETURNS boolean LANGUAGE sql STABLE {inner}
  SELECT count(*) FILTER (WHERE kind = 'retest') + 1 <= coalesce((
           SELECT CASE WHEN value ~ '^[0-9]+(\.[0-9]+)?$' THEN value::float8 END
           FROM settings WHERE key = 'retest_rate'), 0) * (count(*) + 1)
  FROM labels WHERE session_id = p_session AND annotator_id = p_annotator
    AND undone_at IS NULL $fn$;

CREATE OR REPLACE FUNCTION {s}.in_sample(p_candidate bigint) RETURNS boolean
LANGUAGE sql STABLE {inner}
  SELECT EXISTS (SELECT 1 FROM certifications c, sample_items(c.sample_order) i
                 WHERE c.ended_at IS NULL AND i.candidate_id = p_candidate)
    AND NOT decided(p_candidate) $fn$;

CREATE OR REPLACE FUNCTION {s}.sample_items(p_order bytea)
  RETURNS TABLE(pos integer, candidate_id bigint) LANGUAGE sql IMMUTABLE {inner}
  SELECT g, (SELECT sum(get_byte(p_order, g * 8 + k)::bigint << (8 * k))
             FROM generate_series(0, 7) k)::bigint
  FROM generate_series(0, length(p_order) / 8 - 1) g $fn$;

CREATE OR REPLACE FUNCTION {s}.decided(p_candidate bigint) RETURNS boolean
LANGUAGE sql STABLE {inner}
  SELECT EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate AND undone_at IS NULL
                 AND (value IS NOT NULL OR kind = 'certify')) $fn$;

CREATE OR REPLACE FUNCTION {s}.certify_due(p_candidate bigint, p_session bigint)
  RETURNS boolean LANGUAGE plpgsql STABLE {inner}
DECLARE v_order bytea; v_pos integer; v_now float8 := extract(epoch FROM clock_timestamp());
  v_me bigint := (SELECT annotator_id FROM sessions WHERE id = p_session);
BEGIN
  SELECT sample_order INTO v_order FROM certifications WHERE ended_at IS NULL
    ORDER BY id DESC LIMIT 1;
  IF v_order IS NULL THEN RETURN NULL; END IF;
  SELECT i.pos INTO v_pos FROM sample_items(v_order) i WHERE i.candidate_id = p_candidate;
  IF v_pos IS NULL OR decided(p_candidate) THEN RETURN NULL; END IF;
  RETURN NOT EXISTS (SELECT 1 FROM sample_items(v_order) i WHERE i.pos < v_pos
    AND NOT decided(i.candidate_id)
    AND NOT EXISTS (SELECT 1 FROM claims c JOIN sessions t ON t.id = c.session_id
                    WHERE c.candidate_id = i.candidate_id AND t.annotator_id <> v_me
                      AND c.expires_at > v_now)
    AND NOT held_elsewhere(i.candidate_id, v_me));   -- being claimed by another (.served)
END $fn$;

CREATE OR REPLACE FUNCTION {s}.audit_due(p_candidate bigint, p_session bigint)
  RETURNS boolean LANGUAGE plpgsql STABLE {inner}
DECLARE v_n integer; v_from integer := 0; v_first bigint; v_part bytea;
  v_now float8 := extract(epoch FROM clock_timestamp());
  v_me bigint := (SELECT annotator_id FROM sessions WHERE id = p_session);
BEGIN
  SELECT n INTO v_n FROM audit_order WHERE id = 1;
  IF v_n IS NULL OR EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate
                            AND undone_at IS NULL) THEN
    RETURN NULL;
  END IF;
  -- The item due: the first of the order neither handled nor on another annotator's lease,
  -- read {chunk} at a time from the start (slices of the stored order, never all of it).
  WHILE v_from < v_n LOOP
    SELECT substring(ids FROM v_from * 8 + 1 FOR {chunk} * 8) INTO v_part FROM audit_order
      WHERE id = 1;
    FOR g IN 0 .. length(v_part) / 8 - 1 LOOP
      v_first := ('x' || encode(substring(v_part FROM g * 8 + 1 FOR 8), 'hex'))::bit(64)::bigint;
      IF NOT EXISTS (SELECT 1 FROM labels l WHERE l.candidate_id = v_first
                     AND l.undone_at IS NULL)
         AND NOT EXISTS (SELECT 1 FROM claims c JOIN sessions t ON t.id = c.session_id
                         WHERE c.candidate_id = v_first AND t.annotator_id <> v_me
                           AND c.expires_at > v_now)
         AND NOT held_elsewhere(v_first, v_me) THEN   -- being claimed by another (.served)
        RETURN v_first = p_candidate;
      END IF;
    END LOOP;
    v_from := v_from + {chunk};
  END LOOP;
  RETURN false;
END $fn$;

CREATE TABLE IF NOT EXISTS {s}.plan_grace (candidate_id bigint PRIMARY KEY,
  until float8 NOT NULL);

CREATE OR REPLACE FUNCTION {s}.remember_plan() RETURNS trigger LANGUAGE plpgsql {head}
DECLARE v_now float8 := extract(epoch FROM clock_timestamp());
BEGIN
  -- Items leaving the overlap plan (the lead redrew it), and since when they are not in it:
  -- a desk keeps the plan it was opened with, so they stay due for sessions of that time.
  IF TG_OP = 'TRUNCATE' THEN
    INSERT INTO plan_grace (candidate_id, until)
      SELECT candidate_id, v_now FROM plan WHERE kind = 'overlap'
      ON CONFLICT (candidate_id) DO UPDATE SET until = excluded.until;
  ELSE
    INSERT INTO plan_grace (candidate_id, until)
      SELECT DISTINCT candidate_id, v_now FROM gone WHERE kind = 'overlap'
      ON CONFLICT (candidate_id) DO UPDATE SET until = excluded.until;
  END IF;
  RETURN NULL;
END $fn$;

CREATE OR REPLACE TRIGGER plan_deleted AFTER DELETE ON {s}.plan REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_plan();

CREATE OR REPLACE TRIGGER plan_updated AFTER UPDATE ON {s}.plan REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_plan();

CREATE OR REPLACE TRIGGER plan_truncated BEFORE TRUNCATE ON {s}.plan
  FOR EACH STATEMENT EXECUTE FUNCTION {s}.remember_plan();

CREATE OR REPLACE FUNCTION {s}.planned(p_candidate bigint, p_session bigint) RETURNS boolean
LANGUAGE sql STABLE {inner}
  -- In the overlap plan now, or in one in force since the session started (less the
  -- grace of a desk opened a little before its session), as ranking orders are.
  SELECT EXISTS (SELECT 1 FROM plan WHERE candidate_id = p_candidate AND kind = 'overlap')
    OR EXISTS (SELECT 1 FROM plan_grace g, sessions t
               WHERE g.candidate_id = p_candidate AND t.id = p_session
                 AND (t.started_at !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9:.]+([+-][0-9:]+|Z)?$'
                      OR g.until >= extract(epoch FROM t.started_at::timestamptz) - {grace}))
  $fn$;

CREATE OR REPLACE FUNCTION {s}.decision_kind(p_annotator bigint, p_candidate bigint,
  p_kind text) RETURNS text LANGUAGE sql STABLE {inner}
  SELECT CASE WHEN p_kind = 'retest' THEN p_kind ELSE coalesce((
    SELECT kind FROM labels WHERE candidate_id = p_candidate AND annotator_id = p_annotator
      AND undone_at IS NULL AND kind <> 'retest' ORDER BY id DESC LIMIT 1), p_kind) END $fn$;

CREATE OR REPLACE FUNCTION {s}.judged_seconds(p_annotator bigint, p_candidate bigint,
  p_session bigint, p_kind text, p_seconds float8) RETURNS float8 LANGUAGE plpgsql {inner}
DECLARE v_mine text; v_served float8; v_in_order boolean; v_due boolean; v_others integer;
  v_need integer; v_in_audit boolean; v_skip boolean; v_last float8; v_in_rank boolean;
  v_now float8 := extract(epoch FROM clock_timestamp());
BEGIN
  SELECT kind, value IS NULL INTO v_mine, v_skip FROM labels WHERE candidate_id = p_candidate
    AND annotator_id = p_annotator AND undone_at IS NULL AND kind <> 'retest'
    ORDER BY id DESC LIMIT 1;
  IF v_mine IS NOT NULL AND p_kind <> 'retest' THEN
    IF v_mine = 'certify' THEN
      PERFORM refuse(format('candidate %s has your certification label; undo it to change '
                            'it', p_candidate));
    END IF;
    IF p_kind <> v_mine THEN
      PERFORM refuse(format('you have decided on candidate %s (%s); a change of your '
                            'decision keeps its kind', p_candidate, v_mine));
    END IF;
    -- A skip is no pass: not while another desk holds the candidate, nor after someone
    -- else decided it (an overlap item is decided by others by design).
    IF v_skip AND EXISTS (SELECT 1 FROM claims WHERE candidate_id = p_candidate
                          AND session_id <> p_session AND expires_at > v_now) THEN
      PERFORM refuse(format('candidate %s was not served to session %s (its lease went to '
                            'another desk)', p_candidate, p_session));
    END IF;
    IF v_skip AND v_mine <> 'overlap' AND EXISTS (SELECT 1 FROM labels
        WHERE candidate_id = p_candidate AND annotator_id <> p_annotator
          AND undone_at IS NULL AND value IS NOT NULL) THEN
      PERFORM refuse(format('candidate %s has been decided by someone else', p_candidate));
    END IF;
    IF v_skip AND in_sample(p_candidate) THEN
      PERFORM refuse(format('candidate %s is in the running certification sample: it '
                            'counts only as a certification label, in sample order',
                            p_candidate));
    END IF;
    RETURN 0;   -- a change of one's own decision: nothing new was served, nothing is paid
  END IF;
  SELECT served_at, in_order, in_audit, in_rank INTO v_served, v_in_order, v_in_audit, v_in_rank
    FROM claims WHERE candidate_id = p_candidate AND session_id = p_session;
  IF v_served IS NULL THEN
    PERFORM refuse(format('candidate %s was not served to session %s (or its lease went '
                          'to another desk)', p_candidate, p_session));
  END IF;
  SELECT count(DISTINCT annotator_id) INTO v_others FROM labels
    WHERE candidate_id = p_candidate AND undone_at IS NULL AND annotator_id <> p_annotator
      AND kind IN ('triage', 'overlap', 'audit', 'certify');
  IF p_kind = 'certify' THEN
    v_due := certify_due(p_candidate, p_session);
    IF v_due IS NULL OR NOT (v_due OR coalesce(v_in_order, false)) THEN
      PERFORM refuse(format('candidate %s is not the next item of the certification sample '
                            'for this session', p_candidate));
    END IF;
  ELSIF p_kind = 'retest' THEN
    IF v_mine IS NULL OR EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate
        AND annotator_id = p_annotator AND undone_at IS NULL AND kind = 'retest')
      OR NOT EXISTS (SELECT 1 FROM labels WHERE candidate_id = p_candidate
        AND annotator_id = p_annotator AND undone_at IS NULL AND session_id <> p_session
        AND kind IN ('triage', 'overlap', 'audit') AND value IS NOT NULL)
      OR NOT retest_due(p_annotator, p_session) THEN
      PERFORM refuse(format('no re-test of candidate %s is due', p_candidate));
    END IF;
  ELSIF p_kind = 'overlap' THEN
    SELECT CASE WHEN value ~ '^[0-9]+$' THEN value::integer END INTO v_need FROM settings
      WHERE key = 'labels_per_overlap_item';
    IF v_others = 0 OR v_others >= coalesce(v_need, 2) OR NOT planned(p_candidate, p_session)
    THEN
      PERFORM refuse(format('candidate %s is not an overlap item due', p_candidate));
    END IF;
  ELSIF v_others > 0 THEN
    PERFORM refuse(format('candidate %s has been decided by someone else', p_candidate));
  ELSIF in_sample(p_candidate) THEN
    PERFORM refuse(format('candidate %s is in the running certification sample: it counts '
                          'only as a certification label, in sample order', p_candidate));
  ELSIF p_kind = 'audit' AND NOT (coalesce(v_in_audit, false)
                                  OR coalesce(audit_due(p_candidate, p_session), false)) THEN
    PERFORM refuse(format('candidate %s is not the next item of the audit sample for this '
                          'session', p_candidate));
  ELSIF p_kind = 'triage' AND NOT (coalesce(v_in_rank, false)
                                   OR in_rank(p_candidate, p_session)) THEN
    PERFORM refuse(format('candidate %s is not among the next candidates of a ranking this '
                          'project serves: a triage label counts in ranking order',
                          p_candidate));
  END IF;
  -- One person's time is paid once: from serving or her previous label, the later.
  SELECT extract(epoch FROM created_at::timestamptz) INTO v_last FROM labels
    WHERE annotator_id = p_annotator ORDER BY id DESC LIMIT 1;
  RETURN least(p_seconds, greatest(v_now - greatest(v_served, v_last), 0), lease_seconds());
END $fn$;
"""


def judge_template(url: ServerUrl) -> str:
    """The checks above with their limits filled in (the project's names are filled later)."""
    text = _JUDGE
    for name, value in {"{annotator}": url.annotator_role, "{hold}": str(HOLD_S),
                        "{tries}": str(int(WAIT_S / 0.5)), "{wait}": str(int(WAIT_S)),
                        "{rate_key}": LABEL_RATE_KEY, "{rate}": str(DEFAULT_LABEL_RATE),
                        "{quota_key}": NOTE_QUOTA_KEY, "{quota}": str(DEFAULT_NOTE_QUOTA),
                        "{window}": str(PACE_WINDOW_S), "{chunk}": "64",
                        "{per_minute}": str(SESSIONS_PER_MINUTE),
                        "{grace}": str(GRACE_S)}.items():
        text = text.replace(name, value)
    return text


__all__ = ["DEFAULT_LABEL_RATE", "DEFAULT_NOTE_QUOTA", "HOLD_S", "INTERNAL", "LABEL_RATE_KEY",
           "NOTE_QUOTA_KEY", "WAIT_S", "judge_template"]
