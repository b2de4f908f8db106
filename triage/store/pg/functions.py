"""The server-side functions and triggers of a project (SECURITY DEFINER, search_path pinned).

Annotators have no privileges on leases and see only their own labels, so what needs a
view across the team goes through these functions, which run as the schema's owner and
check the caller (``session_user``: the login role) themselves:

- ``ensure_annotator() → bigint``: the caller's annotator id (their name is their role).
- ``claim(candidate, session, now, expires) → boolean``: lease a candidate for a session.
  The candidate row is locked ``FOR UPDATE SKIP LOCKED`` (locked: another desk is deciding
  about it, so not ours); refused while another session holds a live lease; the session's
  other leases go. The client then reads ``active_kinds`` and runs the dispatcher's
  ``still_needed`` rule in the same transaction, rolling back if it says no.
- ``active_kinds(candidate) → (annotator, kind)``: active labels on a candidate (no values).
- ``release(session, candidate | NULL)``: drop a session's lease (or all its leases).
- ``live_leases(now) → (candidate_id, session_id)``: leases not expired at ``now``.
- ``add_label(uid, candidate, session, value, kind, created_at, seconds, note, served_by)
  → bigint``: idempotent by ``uid`` (a retry after a lost acknowledgement returns the
  first row's id), ends the session's lease on the candidate.
- ``undo(label, session | NULL) → bigint``: mark a label undone, returns its ``undo_seq``.
- ``label_feed(after, only bigint[] = NULL)``: every label column plus ``masked``; value and
  note are NULL on other annotators' labels unless the caller leads.
- ``undo_feed(after) → (undo_seq, id, undone_at)``; ``session_feed()``: all sessions (host
  and version hidden for others' sessions unless the caller leads).

Label inserts and undo marks take a transaction-scoped advisory lock first, so ids and
``undo_seq`` values commit in increasing order and "id > last seen" never skips a row
that commits late. Triggers: ``labels.guideline_version`` as on a file, and a statement
trigger that sends ``NOTIFY triage_<name>, '<table>'`` on every change clients follow.
"""

from __future__ import annotations

import zlib

from triage.store.pg.tables import pg_type, table
from triage.store.pg.url import ServerUrl

NOW_TEXT = ("to_char(clock_timestamp() AT TIME ZONE 'UTC', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')")
NOTIFIED = ("labels", "settings", "plan", "sessions", "annotators", "guidelines",
            "certifications", "project")
_HEAD = "SECURITY DEFINER SET search_path = {s}, pg_catalog, pg_temp AS $fn$"


def lock_key(project: str) -> int:
    """The advisory-lock key that orders a project's label inserts and undo marks."""
    return zlib.crc32(f"triage_{project}".encode())


def channel(url: ServerUrl) -> str:
    """The LISTEN/NOTIFY channel of ``url``'s project."""
    return url.schema


def _label_columns() -> list[str]:
    return list(table("labels").names)


def _session_columns() -> list[str]:
    return list(table("sessions").names)


_FUNCTIONS = r"""
CREATE OR REPLACE FUNCTION {s}.is_lead() RETURNS boolean LANGUAGE sql STABLE {head}
  SELECT pg_has_role(session_user, '{lead}', 'MEMBER') $fn$;

CREATE OR REPLACE FUNCTION {s}.my_id() RETURNS bigint LANGUAGE sql STABLE {head}
  SELECT id FROM annotators WHERE name = session_user $fn$;

CREATE OR REPLACE FUNCTION {s}.ensure_annotator() RETURNS bigint LANGUAGE plpgsql {head}
BEGIN
  INSERT INTO annotators(name, created_at) VALUES (session_user, {now})
    ON CONFLICT (name) DO NOTHING;
  RETURN (SELECT id FROM annotators WHERE name = session_user);
END $fn$;

CREATE OR REPLACE FUNCTION {s}.session_owner(p_session bigint) RETURNS bigint
LANGUAGE plpgsql STABLE {head}
DECLARE v_id bigint; v_name text;
BEGIN
  SELECT a.id, a.name INTO v_id, v_name FROM sessions t JOIN annotators a ON a.id = t.annotator_id
    WHERE t.id = p_session;
  IF v_id IS NULL THEN
    RAISE EXCEPTION 'there is no session %', p_session USING ERRCODE = 'no_data_found';
  END IF;
  IF v_name <> session_user AND NOT is_lead() THEN
    RAISE EXCEPTION 'session % belongs to another annotator', p_session
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN v_id;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.claim(p_candidate bigint, p_session bigint, p_now float8,
  p_expires float8) RETURNS boolean LANGUAGE plpgsql {head}
BEGIN
  PERFORM session_owner(p_session);
  PERFORM 1 FROM candidates WHERE id = p_candidate FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN RETURN false; END IF;
  IF EXISTS (SELECT 1 FROM claims WHERE candidate_id = p_candidate
             AND session_id <> p_session AND expires_at > p_now) THEN
    RETURN false;
  END IF;
  DELETE FROM claims WHERE session_id = p_session AND candidate_id <> p_candidate;
  INSERT INTO claims(candidate_id, session_id, expires_at)
    VALUES (p_candidate, p_session, p_expires)
    ON CONFLICT (candidate_id) DO UPDATE
    SET session_id = excluded.session_id, expires_at = excluded.expires_at;
  RETURN true;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.active_kinds(p_candidate bigint)
  RETURNS TABLE(annotator text, kind text) LANGUAGE sql STABLE {head}
  SELECT a.name, l.kind FROM labels l JOIN annotators a ON a.id = l.annotator_id
  WHERE l.candidate_id = p_candidate AND l.undone_at IS NULL $fn$;

CREATE OR REPLACE FUNCTION {s}.release(p_session bigint, p_candidate bigint DEFAULT NULL)
  RETURNS void LANGUAGE plpgsql {head}
BEGIN
  PERFORM session_owner(p_session);
  DELETE FROM claims WHERE session_id = p_session
    AND (p_candidate IS NULL OR candidate_id = p_candidate);
END $fn$;

CREATE OR REPLACE FUNCTION {s}.live_leases(p_now float8)
  RETURNS TABLE(candidate_id bigint, session_id bigint) LANGUAGE sql STABLE {head}
  SELECT c.candidate_id, c.session_id FROM claims c WHERE c.expires_at > p_now $fn$;

CREATE OR REPLACE FUNCTION {s}.add_label(p_uid text, p_candidate bigint, p_session bigint,
  p_value text, p_kind text, p_created text, p_seconds float8, p_note text, p_served_by text)
  RETURNS bigint LANGUAGE plpgsql {head}
DECLARE v_annotator bigint; v_id bigint;
BEGIN
  v_annotator := session_owner(p_session);
  PERFORM pg_advisory_xact_lock({key});
  DELETE FROM claims WHERE candidate_id = p_candidate AND session_id = p_session;
  INSERT INTO labels(uid, candidate_id, annotator_id, session_id, value, kind, created_at,
                     seconds, note, served_by)
    VALUES (p_uid, p_candidate, v_annotator, p_session, p_value, p_kind, p_created,
            p_seconds, p_note, p_served_by)
    ON CONFLICT (uid) DO NOTHING;
  SELECT id INTO v_id FROM labels WHERE uid = p_uid;
  RETURN v_id;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.undo(p_label bigint, p_session bigint DEFAULT NULL)
  RETURNS bigint LANGUAGE plpgsql {head}
DECLARE v_owner text; v_seq bigint;
BEGIN
  IF p_session IS NOT NULL THEN
    PERFORM session_owner(p_session);
    DELETE FROM claims WHERE session_id = p_session;
  END IF;
  SELECT a.name INTO v_owner FROM labels l JOIN annotators a ON a.id = l.annotator_id
    WHERE l.id = p_label;
  IF v_owner IS NULL THEN RETURN NULL; END IF;
  IF v_owner <> session_user AND NOT is_lead() THEN
    RAISE EXCEPTION 'label % belongs to another annotator', p_label
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  PERFORM pg_advisory_xact_lock({key});
  UPDATE labels SET undone_at = {now},
    undo_seq = (SELECT coalesce(max(undo_seq), 0) + 1 FROM labels)
    WHERE id = p_label AND undone_at IS NULL RETURNING undo_seq INTO v_seq;
  RETURN v_seq;
END $fn$;

CREATE OR REPLACE FUNCTION {s}.label_feed(p_after bigint, p_only bigint[] DEFAULT NULL)
  RETURNS TABLE({label_out}, masked boolean) LANGUAGE sql STABLE {head}
  WITH who AS (SELECT is_lead() AS lead, my_id() AS me)
  SELECT {label_select}, x.masked
  FROM labels l CROSS JOIN who
  CROSS JOIN LATERAL (SELECT NOT who.lead AND l.annotator_id IS DISTINCT FROM who.me) x(masked)
  WHERE l.id > p_after AND (p_only IS NULL OR l.id = ANY(p_only)) ORDER BY l.id $fn$;

CREATE OR REPLACE FUNCTION {s}.undo_feed(p_after bigint)
  RETURNS TABLE(undo_seq bigint, id bigint, undone_at text) LANGUAGE sql STABLE {head}
  SELECT l.undo_seq, l.id, l.undone_at FROM labels l WHERE l.undo_seq > p_after
  ORDER BY l.undo_seq $fn$;

CREATE OR REPLACE FUNCTION {s}.session_feed()
  RETURNS TABLE({session_out}) LANGUAGE sql STABLE {head}
  WITH who AS (SELECT is_lead() AS lead, my_id() AS me)
  SELECT {session_select} FROM sessions t CROSS JOIN who ORDER BY t.id $fn$;

CREATE OR REPLACE FUNCTION {s}.label_guideline() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  IF NEW.guideline_version IS NULL THEN
    NEW.guideline_version := (SELECT max(version) FROM guidelines);
  END IF;
  RETURN NEW;
END $fn$;

CREATE OR REPLACE TRIGGER labels_guideline_version BEFORE INSERT ON {s}.labels
  FOR EACH ROW EXECUTE FUNCTION {s}.label_guideline();

CREATE OR REPLACE FUNCTION {s}.notify_change() RETURNS trigger LANGUAGE plpgsql {head}
BEGIN
  PERFORM pg_notify('{channel}', TG_TABLE_NAME);
  RETURN NULL;
END $fn$;
"""


def _outputs(table_name: str) -> str:
    return ", ".join(f"{c.name} {pg_type(c.type)}" for c in table(table_name).columns)


def function_statements(url: ServerUrl) -> list[str]:
    """CREATE OR REPLACE statements for the functions and triggers above."""
    s = url.schema
    label_select = ", ".join(
        f"CASE WHEN x.masked THEN NULL ELSE l.{c} END" if c in ("value", "note") else f"l.{c}"
        for c in _label_columns())
    session_select = ", ".join(
        f"CASE WHEN who.lead OR t.annotator_id = who.me THEN t.{c} END"
        if c in ("host", "app_version") else f"t.{c}" for c in _session_columns())
    text = (_FUNCTIONS.replace("{head}", _HEAD).replace("{s}", s)
            .replace("{lead}", url.lead_role).replace("{now}", NOW_TEXT)
            .replace("{key}", str(lock_key(url.project))).replace("{channel}", channel(url))
            .replace("{label_out}", _outputs("labels")).replace("{label_select}", label_select)
            .replace("{session_out}", _outputs("sessions"))
            .replace("{session_select}", session_select))
    # One statement per paragraph of the template above.
    out = [part.strip().rstrip(";") for part in text.split("\n\n") if part.strip()]
    for name in NOTIFIED:
        ops = "INSERT OR UPDATE" if name == "labels" else "INSERT OR UPDATE OR DELETE"
        out.append(f"CREATE OR REPLACE TRIGGER notify_{name} AFTER {ops} ON {s}.{name} "
                   f"FOR EACH STATEMENT EXECUTE FUNCTION {s}.notify_change()")
    return out


__all__ = ["NOTIFIED", "NOW_TEXT", "channel", "function_statements", "lock_key"]
