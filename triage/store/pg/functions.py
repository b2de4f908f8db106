"""The server-side write functions of a project: the server is the judge of every write.

Annotators hold no INSERT, UPDATE or DELETE on any table; they write only through these
SECURITY DEFINER functions (search_path pinned), which run as the schema's owner and
check every argument the way a client would. The caller is ``session_user`` (the login
role), never ``current_user`` (inside the function that is the owner). Ids come from
identities, times from ``now()``, lease expiry from the server's setting and undo order
from a sequence: never from arguments.

- ``start_session(host, version) → bigint``: a session of the caller; at most
  :data:`MAX_OPEN_SESSIONS` stay open per annotator (opening one more ends the oldest).
- ``end_session(session)``: end one of the caller's sessions and its lease.
- ``claim(candidate, session, seconds = NULL) → boolean``: lease a candidate for one of
  the caller's open sessions, for the server's lease length (``seconds`` may only shorten
  it). The candidate row is locked ``FOR UPDATE SKIP LOCKED``; refused while another
  session holds a live lease; one lease per session (its other leases go). The lease
  records whether it was the certification sample's or the audit order's item due, or
  near the head of a ranking the project serves (:mod:`.order`).
- ``release(session, candidate | NULL)``: drop a session's lease.
- ``add_label(uid, candidate, session, value, kind, seconds, note, served_by) → bigint``:
  value in the scheme (or NULL, a skip), kind allowed for the caller's role, seconds
  finite in [0, 86400], candidate exists, session the caller's and open, note at most
  10,000 characters; idempotent by ``uid`` (a retry returns the first row's id). For an
  annotator, what counts and the seconds paid are judged by :mod:`.judge` (served lease,
  plan, sample order, pace).
- ``undo(label, session | NULL) → bigint``: mark one of the caller's labels undone (the
  lead: anyone's); ``set_note(label, note)``: replace one of the caller's notes.

The lead keeps table privileges for settings, plan, guidelines, certifications, hourly
rates and project facts; adjudication is ``add_label`` with kind ``adjudication``, which
only a member of the lead group may write. Every change to ``labels``, ``sessions`` and
``annotators`` gets a ``seq`` from one sequence (trigger, under the project's order lock,
:mod:`.judge`, so numbers become visible in increasing order): replicas pull ``WHERE seq > last``,
so a row the lead repairs reaches them too. The read side is :mod:`.feeds`.
"""

from __future__ import annotations

import zlib

from triage.store.pg import judge, notes, order, served
from triage.store.pg.plpgsql import cached_plans
from triage.store.pg.url import ServerUrl
from triage.store.schema import LABEL_KINDS

NOW_TEXT = ("to_char(clock_timestamp() AT TIME ZONE 'UTC', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')")
NOTIFIED = ("labels", "settings", "plan", "sessions", "annotators", "guidelines",
            "certifications", "project", "cal_snapshots")
CHANGED = ("labels", "sessions", "annotators")   # tables whose rows carry a change ``seq``
MAX_OPEN_SESSIONS = 4
MAX_SECONDS = 86400.0
MAX_NOTE = 10_000
LEASE_KEY = "server_lease_seconds"               # in the project table; the lead may set it
DEFAULT_LEASE_S = 900.0
MAX_LEASE_S = 3600.0
ANNOTATOR_KINDS = tuple(k for k in LABEL_KINDS if k != "adjudication")
HEAD = "SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp AS $fn$"
# Whether the caller is the lead (or the schema's owner), and her annotator id, in place.
IS_LEAD = ("(pg_catalog.pg_has_role(session_user, '{lead}', 'MEMBER') OR session_user "
           "OPERATOR(pg_catalog.=) (SELECT pg_catalog.pg_get_userbyid(n.nspowner) "
           "FROM pg_catalog.pg_namespace n WHERE n.nspname OPERATOR(pg_catalog.=) '{s}'))")
MY_ID = "(SELECT a.id FROM {s}.annotators a WHERE a.name = session_user)"
# The judge's own helpers (no team role may execute them) run inside a SECURITY DEFINER
# function or trigger, as the owner with search_path pinned: setting it again costs more.
INNER = "SECURITY INVOKER AS $fn$"


def lock_key(project: str) -> int:
    """The advisory-lock key of ``server init`` (two owners creating one project at once).

    Nothing a desk does waits on it: change numbers are ordered by the ``serial`` row lock
    (:mod:`.judge`), which no team role can take by itself."""
    return zlib.crc32(f"triage_{project}".encode())


def channel(url: ServerUrl) -> str:
    """The LISTEN/NOTIFY channel of ``url``'s project."""
    return url.schema


_FUNCTIONS = r"""
CREATE SEQUENCE IF NOT EXISTS {s}.change_seq;

CREATE SEQUENCE IF NOT EXISTS {s}.undo_order;

CREATE OR REPLACE FUNCTION {s}.is_lead() RETURNS boolean LANGUAGE plpgsql STABLE AS $fn$
BEGIN
  -- No SECURITY DEFINER nor SET (they cost more than the check); every name qualified.
  RETURN {is_lead};
END $fn$;

CREATE OR REPLACE FUNCTION {s}.my_id() RETURNS bigint LANGUAGE sql STABLE {head}
  SELECT id FROM annotators WHERE name = session_user $fn$;

CREATE OR REPLACE FUNCTION {s}.refuse(p_message text) RETURNS void LANGUAGE plpgsql {inner}
BEGIN
  RAISE EXCEPTION USING ERRCODE = 'check_violation', MESSAGE = p_message;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.lease_seconds() RETURNS float8 LANGUAGE plpgsql STABLE {head}
DECLARE v float8;
BEGIN
  SELECT CASE WHEN value ~ '^[0-9]+(\.[0-9]+)?$' THEN value::float8 END INTO v
    FROM project WHERE key = '{lease_key}';
  RETURN least(greatest(coalesce(v, {default_lease}), 1), {max_lease});
END $fn$;

CREATE OR REPLACE FUNCTION {s}.ensure_annotator() RETURNS bigint LANGUAGE plpgsql {head}
BEGIN
  INSERT INTO annotators(name, created_at) VALUES (session_user, {now})
    ON CONFLICT (name) DO NOTHING;
  RETURN (SELECT id FROM annotators WHERE name = session_user);
END $fn$;

CREATE OR REPLACE FUNCTION {s}.own_session(p_session bigint) RETURNS bigint
LANGUAGE plpgsql STABLE {inner}
DECLARE v_id bigint; v_name text; v_ended text;
BEGIN
  SELECT a.id, a.name, t.ended_at INTO v_id, v_name, v_ended
    FROM sessions t JOIN annotators a ON a.id = t.annotator_id WHERE t.id = p_session;
  IF v_id IS NULL THEN
    RAISE EXCEPTION 'there is no session %', p_session USING ERRCODE = 'no_data_found';
  END IF;
  IF v_name IS DISTINCT FROM session_user THEN
    RAISE EXCEPTION 'session % belongs to another annotator', p_session
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF v_ended IS NOT NULL THEN
    PERFORM refuse(format('session %s has ended; start a new one', p_session));
  END IF;
  RETURN v_id;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.start_session(p_host text, p_version text) RETURNS bigint
LANGUAGE plpgsql {head}
DECLARE v_me bigint; v_id bigint;
BEGIN
  IF length(p_host) > 255 OR length(p_version) > 64 THEN
    PERFORM refuse('host name or version too long');
  END IF;
  v_me := ensure_annotator();
  IF NOT is_lead() THEN PERFORM session_pace(v_me); END IF;
  -- A person has a few desks; more open sessions are desks that died: end the oldest.
  WITH old AS (SELECT id FROM sessions WHERE annotator_id = v_me AND ended_at IS NULL
               ORDER BY id DESC OFFSET {max_open} - 1),
       gone AS (DELETE FROM claims WHERE session_id IN (SELECT id FROM old))
  UPDATE sessions SET ended_at = {now} WHERE id IN (SELECT id FROM old);
  INSERT INTO sessions(uid, annotator_id, started_at, host, app_version)
    VALUES (gen_random_uuid()::text, v_me, {now}, p_host, p_version) RETURNING id INTO v_id;
  RETURN v_id;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.end_session(p_session bigint) RETURNS void
LANGUAGE plpgsql {head}
BEGIN
  IF NOT EXISTS (SELECT 1 FROM sessions t JOIN annotators a ON a.id = t.annotator_id
                 WHERE t.id = p_session AND a.name = session_user) THEN
    RAISE EXCEPTION 'session % is not yours', p_session USING ERRCODE = 'insufficient_privilege';
  END IF;
  DELETE FROM claims WHERE session_id = p_session;
  UPDATE sessions SET ended_at = {now} WHERE id = p_session AND ended_at IS NULL;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.claim(p_candidate bigint, p_session bigint,
  p_seconds float8 DEFAULT NULL) RETURNS boolean LANGUAGE plpgsql {head}
DECLARE v_len float8 := lease_seconds(); v_now float8 := extract(epoch FROM clock_timestamp());
  v_order boolean; v_audit boolean; v_rank boolean;
BEGIN
  PERFORM own_session(p_session);
  IF p_seconds IS NOT NULL AND p_seconds = p_seconds AND p_seconds < v_len THEN
    v_len := greatest(p_seconds, 1);   -- a desk may ask for less, never for more
  END IF;
  -- One candidate row locked per session and transaction: nobody can lock the pool.
  IF EXISTS (SELECT 1 FROM claims WHERE session_id = p_session
             AND claimed_in = pg_current_xact_id() AND candidate_id <> p_candidate) THEN
    PERFORM refuse('one claim per session in a transaction');
  END IF;
  PERFORM 1 FROM candidates WHERE id = p_candidate FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN RETURN false; END IF;
  IF EXISTS (SELECT 1 FROM claims WHERE candidate_id = p_candidate
             AND session_id <> p_session AND expires_at > v_now) THEN
    RETURN false;
  END IF;
  DELETE FROM claims WHERE session_id = p_session AND candidate_id <> p_candidate;
  v_order := coalesce(certify_due(p_candidate, p_session), false);
  v_audit := coalesce(audit_due(p_candidate, p_session), false);
  IF NOT (v_order OR v_audit OR {is_lead}) THEN   -- a triage label needs ranking order
    v_rank := in_rank(p_candidate, p_session);
  END IF;
  INSERT INTO claims(candidate_id, session_id, expires_at, served_at, claimed_in, in_order,
                     in_audit, in_rank)
    VALUES (p_candidate, p_session, v_now + v_len, v_now, pg_current_xact_id(), v_order,
            v_audit, coalesce(v_rank, false))
    ON CONFLICT (candidate_id) DO UPDATE
    SET session_id = excluded.session_id, expires_at = excluded.expires_at,
        claimed_in = excluded.claimed_in,
        served_at = CASE WHEN claims.session_id = excluded.session_id
                         THEN coalesce(claims.served_at, excluded.served_at)
                         ELSE excluded.served_at END,
        in_order = excluded.in_order OR (claims.session_id = excluded.session_id
                                         AND coalesce(claims.in_order, false)),
        in_audit = excluded.in_audit OR (claims.session_id = excluded.session_id
                                         AND coalesce(claims.in_audit, false)),
        in_rank = excluded.in_rank OR (claims.session_id = excluded.session_id
                                       AND coalesce(claims.in_rank, false));
  RETURN true;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.release(p_session bigint, p_candidate bigint DEFAULT NULL)
  RETURNS void LANGUAGE plpgsql {head}
BEGIN
  IF NOT EXISTS (SELECT 1 FROM sessions t JOIN annotators a ON a.id = t.annotator_id
                 WHERE t.id = p_session AND a.name = session_user) THEN
    RAISE EXCEPTION 'session % is not yours', p_session USING ERRCODE = 'insufficient_privilege';
  END IF;
  DELETE FROM claims WHERE session_id = p_session
    AND (p_candidate IS NULL OR candidate_id = p_candidate);
END $fn$;

CREATE OR REPLACE FUNCTION {s}.check_label(p_candidate bigint, p_value text, p_kind text,
  p_seconds float8, p_note text, p_served_by text) RETURNS void LANGUAGE plpgsql STABLE {inner}
BEGIN
  IF p_kind IS NULL OR NOT p_kind = ANY('{{{kinds}}}'::text[]) THEN
    PERFORM refuse(format('%L is not a kind of label', left(p_kind, 40)));
  END IF;
  IF p_kind = 'adjudication' AND NOT is_lead() THEN
    RAISE EXCEPTION 'only the lead (role {lead}) may adjudicate'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF p_kind = 'certify' AND NOT EXISTS (SELECT 1 FROM certifications WHERE ended_at IS NULL) THEN
    PERFORM refuse('no certification sample is running');
  END IF;
  IF p_value IS NOT NULL AND NOT EXISTS (
      SELECT 1 FROM settings s, jsonb_array_elements(s.value::jsonb) o
      WHERE s.key = 'labels' AND o->>'value' = p_value) THEN
    PERFORM refuse(format('%L is not a label of this project', left(p_value, 40)));
  END IF;
  IF p_seconds IS NULL OR NOT (p_seconds >= 0 AND p_seconds <= {max_seconds}) THEN
    PERFORM refuse('seconds must be a number from 0 to {max_seconds}');
  END IF;
  IF length(p_note) > {max_note} THEN
    PERFORM refuse('a note holds at most {max_note} characters');
  END IF;
  IF p_served_by IS NOT NULL AND p_served_by <> 'cal'
     AND NOT EXISTS (SELECT 1 FROM models WHERE name = p_served_by) THEN
    PERFORM refuse('served_by must name a model or cal (the learned ranking)');
  END IF;
  IF NOT EXISTS (SELECT 1 FROM candidates WHERE id = p_candidate) THEN
    PERFORM refuse(format('there is no candidate %s', p_candidate));
  END IF;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.add_label(p_uid text, p_candidate bigint, p_session bigint,
  p_value text, p_kind text, p_seconds float8, p_note text, p_served_by text)
  RETURNS bigint LANGUAGE plpgsql {head}
DECLARE v_annotator bigint; v_id bigint; v_owner bigint; v_seconds float8 := p_seconds;
  v_kind text := p_kind;
BEGIN
  IF p_uid IS NULL OR length(p_uid) NOT BETWEEN 8 AND 64 THEN
    PERFORM refuse('a label id (uid) has 8 to 64 characters');
  END IF;
  SELECT id, annotator_id INTO v_id, v_owner FROM labels WHERE uid = p_uid;
  IF v_id IS NOT NULL THEN   -- a retry after a lost acknowledgement
    IF v_owner IS DISTINCT FROM my_id() THEN
      PERFORM refuse('this label could not be stored; the desk makes a new label id');
    END IF;
    RETURN v_id;
  END IF;
  v_annotator := own_session(p_session);
  PERFORM check_label(p_candidate, p_value, p_kind, p_seconds, p_note, p_served_by);
  -- Before the id is drawn: label ids then become visible in increasing order.
  PERFORM order_lock();
  IF NOT {is_lead} THEN   -- what counts is judged on the server's own state
    PERFORM pace(v_annotator, p_note);
    v_kind := decision_kind(v_annotator, p_candidate, p_kind);   -- a change keeps its kind
    v_seconds := judged_seconds(v_annotator, p_candidate, p_session, v_kind, p_seconds);
  END IF;
  DELETE FROM claims WHERE candidate_id = p_candidate AND session_id = p_session;
  INSERT INTO labels(uid, candidate_id, annotator_id, session_id, value, kind, created_at,
                     seconds, note, served_by)
    VALUES (p_uid, p_candidate, v_annotator, p_session, p_value, v_kind, {now},
            v_seconds, p_note, p_served_by)
    RETURNING id INTO v_id;
  PERFORM advance_orders(p_session);   -- where the next ranking-order checks start
  RETURN v_id;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.undo(p_label bigint, p_session bigint DEFAULT NULL)
  RETURNS bigint LANGUAGE plpgsql {head}
DECLARE v_owner text; v_seq bigint;
BEGIN
  IF p_session IS NOT NULL THEN
    PERFORM own_session(p_session);
    DELETE FROM claims WHERE session_id = p_session;
  END IF;
  SELECT a.name INTO v_owner FROM labels l JOIN annotators a ON a.id = l.annotator_id
    WHERE l.id = p_label;
  IF v_owner IS NULL THEN RETURN NULL; END IF;
  IF v_owner <> session_user AND NOT is_lead() THEN
    RAISE EXCEPTION 'label % belongs to another annotator', p_label
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  PERFORM order_lock();   -- undo_order numbers commit in order
  UPDATE labels SET undone_at = {now}, undo_seq = nextval('undo_order')
    WHERE id = p_label AND undone_at IS NULL RETURNING undo_seq INTO v_seq;
  RETURN v_seq;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.set_note(p_label bigint, p_note text) RETURNS void
LANGUAGE plpgsql {head}
BEGIN
  IF length(p_note) > {max_note} THEN
    PERFORM refuse('a note holds at most {max_note} characters');
  END IF;
  IF NOT EXISTS (SELECT 1 FROM labels l JOIN annotators a ON a.id = l.annotator_id
                 WHERE l.id = p_label AND a.name = session_user) THEN
    RAISE EXCEPTION 'label % is not yours', p_label USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF NOT is_lead() THEN
    PERFORM note_pace(my_id());
    PERFORM pace(my_id(), left(p_note, greatest(length(p_note) - coalesce(
      (SELECT length(note) FROM labels WHERE id = p_label), 0), 0)));
  END IF;
  UPDATE labels SET note = p_note WHERE id = p_label;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.label_guideline() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  IF NEW.guideline_version IS NULL THEN
    NEW.guideline_version := (SELECT max(version) FROM guidelines);
  END IF;
  RETURN NEW;
END $fn$;

CREATE OR REPLACE TRIGGER labels_guideline_version BEFORE INSERT ON {s}.labels
  FOR EACH ROW EXECUTE FUNCTION {s}.label_guideline();

CREATE OR REPLACE FUNCTION {s}.stamp_change() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  -- Held to the commit: change numbers become visible in the order they were drawn.
  PERFORM order_lock();
  NEW.seq := nextval('change_seq');
  RETURN NEW;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.notify_change() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  PERFORM pg_notify('{channel}', TG_TABLE_NAME);
  RETURN NULL;
END $fn$;
"""

# Functions only triggers call: nobody gets EXECUTE on them.
TRIGGER_FUNCTIONS = ("label_guideline", "stamp_change", "notify_change", "refuse",
                     "own_session", "check_label", *judge.INTERNAL, *order.INTERNAL,
                     *notes.INTERNAL, *served.INTERNAL)


def render(template: str, url: ServerUrl) -> list[str]:
    """The statements of a template (one per paragraph) with the project's names filled in."""
    values = {   # the first two hold names filled in by the later ones
        "{is_lead}": IS_LEAD, "{my_id}": MY_ID, "{head}": HEAD, "{inner}": INNER,
        "{s}": url.schema, "{lead}": url.lead_role, "{now}": NOW_TEXT,
        "{key}": str(lock_key(url.project)), "{channel}": channel(url),
        "{lease_key}": LEASE_KEY, "{default_lease}": str(DEFAULT_LEASE_S),
        "{max_lease}": str(MAX_LEASE_S), "{max_open}": str(MAX_OPEN_SESSIONS),
        "{max_seconds}": str(MAX_SECONDS), "{max_note}": str(MAX_NOTE),
        "{{{kinds}}}": "{" + ",".join(LABEL_KINDS) + "}",
    }
    text = template
    for name, value in values.items():
        text = text.replace(name, value)
    return [cached_plans(part.strip().rstrip(";")) for part in text.split("\n\n")
            if part.strip()]


def function_statements(url: ServerUrl) -> list[str]:
    """CREATE OR REPLACE statements for the write functions and triggers above."""
    s = url.schema
    out = [f"ALTER TABLE {s}.{name} ADD COLUMN IF NOT EXISTS seq bigint" for name in CHANGED]
    out += [f"CREATE INDEX IF NOT EXISTS {name}_seq ON {s}.{name} (seq)" for name in CHANGED]
    out += render(_FUNCTIONS, url)
    out += render(judge.judge_template(url), url)
    out += render(order.order_template(url), url)
    out += render(notes.notes_template(url), url)
    out += render(served.served_template(url), url)   # served_by: the server's word (.served)
    for name in CHANGED:
        out.append(f"CREATE OR REPLACE TRIGGER {name}_seq BEFORE INSERT OR UPDATE ON {s}.{name} "
                   f"FOR EACH ROW EXECUTE FUNCTION {s}.stamp_change()")
    for name in NOTIFIED:
        ops = "INSERT OR UPDATE" if name == "labels" else "INSERT OR UPDATE OR DELETE"
        out.append(f"CREATE OR REPLACE TRIGGER notify_{name} AFTER {ops} ON {s}.{name} "
                   f"FOR EACH STATEMENT EXECUTE FUNCTION {s}.notify_change()")
    return out


__all__ = ["ANNOTATOR_KINDS", "CHANGED", "LEASE_KEY", "MAX_NOTE", "MAX_OPEN_SESSIONS",
           "MAX_SECONDS", "NOTIFIED", "NOW_TEXT", "TRIGGER_FUNCTIONS", "channel",
           "function_statements", "lock_key", "render"]
