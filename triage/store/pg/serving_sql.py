"""The server-side functions a desk writes through, and the statements that call them.

Annotators have no direct privileges on the lease table and may write labels and sessions
only as themselves, so every desk write is one call of a ``SECURITY DEFINER`` function
(owned by whoever ran ``triage server init``, ``search_path`` pinned) that checks the
caller (``session_user``: the login role; inside a definer function ``current_user`` is
the owner) and does the whole write in one round trip. Lease times come from the server's
clock, so desks whose clocks disagree still agree on when a lease ends.

Installed by :func:`install` (called by ``triage server init`` and by the lead's first
team open); every function is ``CREATE OR REPLACE`` so installing again is harmless.
"""

from __future__ import annotations

from typing import Any

from psycopg import sql

# Label inserts and undo marks take this transaction lock (per project schema) before
# writing, so label ids and undo_seq values commit in increasing order and a pull that asks
# for "id > last seen" never skips a late commit.
LOCK_SQL = "hashtextextended({schema_name}, 16)"

_FUNCTIONS = """
CREATE OR REPLACE FUNCTION {s}.serve_me() RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
DECLARE found_id bigint;
BEGIN
  SELECT id INTO found_id FROM annotators WHERE name = session_user;
  IF found_id IS NULL THEN
    INSERT INTO annotators(name, created_at)
    VALUES (session_user, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US+00:00'))
    ON CONFLICT (name) DO NOTHING;
    SELECT id INTO found_id FROM annotators WHERE name = session_user;
  END IF;
  RETURN found_id;
END $$;

CREATE OR REPLACE FUNCTION {s}.serve_is_lead() RETURNS boolean
LANGUAGE sql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
  SELECT pg_has_role(session_user, {lead}, 'MEMBER')
      OR (SELECT rolsuper FROM pg_roles WHERE rolname = session_user)
$$;

CREATE OR REPLACE FUNCTION {s}.serve_own_session(p_session bigint) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
DECLARE who bigint;
BEGIN
  SELECT s.annotator_id INTO who FROM sessions s JOIN annotators a ON a.id = s.annotator_id
  WHERE s.id = p_session AND a.name = session_user;
  IF who IS NULL THEN
    RAISE EXCEPTION 'session % is not a session of %', p_session, session_user
      USING ERRCODE = '42501';
  END IF;
  RETURN who;
END $$;

CREATE OR REPLACE FUNCTION {s}.serve_start_session(p_uid text, p_started text, p_host text,
                                                  p_version text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
DECLARE sid bigint;
BEGIN
  INSERT INTO sessions(uid, annotator_id, started_at, host, app_version)
  VALUES (p_uid, serve_me(), p_started, p_host, p_version)
  ON CONFLICT (uid) DO NOTHING;
  SELECT id INTO sid FROM sessions WHERE uid = p_uid;
  RETURN sid;
END $$;

CREATE OR REPLACE FUNCTION {s}.serve_end_session(p_session bigint, p_ended text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
BEGIN
  PERFORM serve_own_session(p_session);
  DELETE FROM claims WHERE session_id = p_session;
  UPDATE sessions SET ended_at = p_ended WHERE id = p_session AND ended_at IS NULL;
END $$;

CREATE OR REPLACE FUNCTION {s}.serve_label_kinds(p_candidate bigint) RETURNS jsonb
LANGUAGE sql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_array(a.name, l.kind)), '[]'::jsonb)
  FROM labels l JOIN annotators a ON a.id = l.annotator_id
  WHERE l.candidate_id = p_candidate AND l.undone_at IS NULL
$$;

CREATE OR REPLACE FUNCTION {s}.serve_claim(p_candidate bigint, p_session bigint,
                                          p_seconds float8) RETURNS jsonb
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
DECLARE t float8 := extract(epoch FROM clock_timestamp());
BEGIN
  PERFORM serve_own_session(p_session);
  -- Another desk deciding about this candidate right now holds its row: not ours.
  PERFORM 1 FROM candidates WHERE id = p_candidate FOR UPDATE SKIP LOCKED;
  IF NOT FOUND THEN RETURN NULL; END IF;
  PERFORM 1 FROM claims WHERE candidate_id = p_candidate AND session_id <> p_session
    AND expires_at > t;
  IF FOUND THEN RETURN NULL; END IF;
  DELETE FROM claims WHERE session_id = p_session AND candidate_id <> p_candidate;
  INSERT INTO claims(candidate_id, session_id, expires_at) VALUES (p_candidate, p_session,
    t + p_seconds)
  ON CONFLICT (candidate_id) DO UPDATE SET session_id = excluded.session_id,
    expires_at = excluded.expires_at;
  RETURN serve_label_kinds(p_candidate);
END $$;

CREATE OR REPLACE FUNCTION {s}.serve_leases() RETURNS TABLE(candidate_id bigint,
                                                           session_id bigint)
LANGUAGE sql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
  SELECT c.candidate_id, c.session_id FROM claims c
  WHERE c.expires_at > extract(epoch FROM clock_timestamp())
$$;

CREATE OR REPLACE FUNCTION {s}.serve_label(p_uid text, p_candidate bigint, p_session bigint,
    p_value text, p_kind text, p_created text, p_seconds float8, p_note text,
    p_served_by text) RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
DECLARE who bigint; lid bigint;
BEGIN
  who := serve_own_session(p_session);
  PERFORM pg_advisory_xact_lock({lock});
  -- A retry after a lost acknowledgement finds the first attempt's row.
  SELECT id INTO lid FROM labels WHERE uid = p_uid;
  IF lid IS NOT NULL THEN RETURN lid; END IF;
  -- Serialised with claims of the same candidate (they lock its row too).
  PERFORM 1 FROM candidates WHERE id = p_candidate FOR UPDATE;
  DELETE FROM claims WHERE candidate_id = p_candidate AND session_id = p_session;
  INSERT INTO labels(uid, candidate_id, annotator_id, session_id, value, kind, created_at,
                     seconds, note, served_by, guideline_version)
  VALUES (p_uid, p_candidate, who, p_session, p_value, p_kind, p_created, p_seconds, p_note,
          p_served_by, (SELECT max(version) FROM guidelines))
  RETURNING id INTO lid;
  RETURN lid;
END $$;

CREATE OR REPLACE FUNCTION {s}.serve_undo(p_label bigint, p_session bigint, p_when text)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
BEGIN
  IF NOT serve_is_lead() AND NOT EXISTS (SELECT 1 FROM labels l JOIN annotators a
      ON a.id = l.annotator_id WHERE l.id = p_label AND a.name = session_user) THEN
    RAISE EXCEPTION 'label % is not a label of %', p_label, session_user
      USING ERRCODE = '42501';
  END IF;
  PERFORM pg_advisory_xact_lock({lock});
  IF p_session IS NOT NULL THEN
    PERFORM serve_own_session(p_session);
    DELETE FROM claims WHERE session_id = p_session;
  END IF;
  UPDATE labels SET undone_at = p_when,
    undo_seq = (SELECT coalesce(max(undo_seq), 0) + 1 FROM labels)
  WHERE id = p_label AND undone_at IS NULL;
END $$;

CREATE OR REPLACE FUNCTION {s}.serve_note(p_label bigint, p_note text) RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = {s}, pg_temp AS $$
BEGIN
  UPDATE labels l SET note = p_note FROM annotators a
  WHERE l.id = p_label AND a.id = l.annotator_id
    AND (a.name = session_user OR serve_is_lead());
END $$;
"""

_NAMES = ("serve_me()", "serve_is_lead()", "serve_own_session(bigint)",
          "serve_start_session(text, text, text, text)", "serve_end_session(bigint, text)",
          "serve_label_kinds(bigint)", "serve_claim(bigint, bigint, float8)", "serve_leases()",
          "serve_label(text, bigint, bigint, text, text, text, float8, text, text)",
          "serve_undo(bigint, bigint, text)", "serve_note(bigint, text)")


def lead_role(schema: str) -> str:
    """The group role of a project's lead."""
    return f"{schema}_lead"


def annotator_role(schema: str) -> str:
    """The group role of a project's annotators."""
    return f"{schema}_annotator"


def _ddl(schema: str) -> sql.Composed:
    return sql.SQL(_FUNCTIONS).format(
        s=sql.Identifier(schema), lead=sql.Literal(lead_role(schema)),
        lock=sql.SQL(LOCK_SQL).format(schema_name=sql.Literal(schema)))


def install(conn: Any, schema: str) -> None:
    """Create (or replace) the serving functions in ``schema``; EXECUTE for both groups."""
    with conn.cursor() as cur:
        cur.execute(_ddl(schema))
        for name in _NAMES:
            signature = sql.SQL("{}.{}").format(sql.Identifier(schema), sql.SQL(name))
            cur.execute(sql.SQL("REVOKE ALL ON FUNCTION {} FROM PUBLIC").format(signature))
            cur.execute(sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}, {}").format(
                signature, sql.Identifier(lead_role(schema)),
                sql.Identifier(annotator_role(schema))))


def installed(conn: Any, schema: str) -> bool:
    """True when the serving functions are in ``schema`` (the newest of them, at least)."""
    with conn.cursor() as cur:
        cur.execute("SELECT to_regprocedure(%s) IS NOT NULL",
                    [f"{schema}.serve_note(bigint, text)"])
        row = cur.fetchone()
    return bool(row and row[0])


def call(schema: str, function: str, arity: int) -> sql.Composed:
    """``SELECT schema.function(%s, ...)`` with ``arity`` parameters."""
    marks = sql.SQL(", ").join([sql.Placeholder()] * arity)
    return sql.SQL("SELECT {}.{}({})").format(sql.Identifier(schema), sql.Identifier(function),
                                               marks)


def leases(schema: str) -> sql.Composed:
    """The live leases: (candidate id, session id) rows."""
    return sql.SQL("SELECT candidate_id, session_id FROM {}.serve_leases()").format(
        sql.Identifier(schema))


def upsert(schema: str, table: str, key: str, columns: tuple[str, ...]) -> sql.Composed:
    """``INSERT … ON CONFLICT (key) DO UPDATE`` for the lead's writes to small tables."""
    names = sql.SQL(", ").join(sql.Identifier(c) for c in columns)
    marks = sql.SQL(", ").join([sql.Placeholder()] * len(columns))
    updates = sql.SQL(", ").join(
        sql.SQL("{0} = excluded.{0}").format(sql.Identifier(c)) for c in columns if c != key)
    return sql.SQL("INSERT INTO {}.{} ({}) VALUES ({}) ON CONFLICT ({}) DO UPDATE SET {}").format(
        sql.Identifier(schema), sql.Identifier(table), names, marks, sql.Identifier(key), updates)


def _table(schema: str, table: str) -> sql.Composed:
    return sql.SQL("{}.{}").format(sql.Identifier(schema), sql.Identifier(table))


def ensure_annotator(schema: str) -> sql.Composed:
    """Insert annotator (name, created_at) unless present; the id (parameters: name, at, name)."""
    t = _table(schema, "annotators")
    return sql.SQL("WITH made AS (INSERT INTO {t}(name, created_at) VALUES (%s, %s) "
                   "ON CONFLICT (name) DO NOTHING RETURNING id) "
                   "SELECT id FROM made UNION ALL SELECT id FROM {t} WHERE name = %s").format(t=t)


def set_rate(schema: str) -> sql.Composed:
    """Set one annotator's hourly rate (parameters: rate, annotator id)."""
    return sql.SQL("UPDATE {} SET hourly_rate = %s WHERE id = %s").format(
        _table(schema, "annotators"))


def replace_plan(schema: str, ids: list[int]) -> list[tuple[sql.Composed, list[Any]]]:
    """The statements replacing the overlap plan with ``ids``."""
    t = _table(schema, "plan")
    return [(sql.SQL("DELETE FROM {} WHERE kind = 'overlap'").format(t), []),
            (sql.SQL("INSERT INTO {}(candidate_id, kind) "
                     "SELECT unnest(%s::bigint[]), 'overlap'").format(t), [ids])]


def running_certification(schema: str) -> sql.Composed:
    """The id of the running certification sample, if any."""
    return sql.SQL("SELECT id FROM {} WHERE ended_at IS NULL FOR UPDATE").format(
        _table(schema, "certifications"))


def insert_certification(schema: str) -> sql.Composed:
    """Insert a certification sample (nine parameters), returning its id."""
    return sql.SQL("INSERT INTO {}(uid, started_at, target, confidence, found, remaining, "
                   "planned, labels_at, sample_order) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                   "%s) RETURNING id").format(_table(schema, "certifications"))


def end_certification(schema: str) -> sql.Composed:
    """Close a running sample (parameters: when, outcome, p, n, k, id)."""
    return sql.SQL("UPDATE {} SET ended_at = %s, outcome = %s, p_value = %s, sample_n = %s, "
                   "sample_k = %s WHERE id = %s AND ended_at IS NULL").format(
        _table(schema, "certifications"))


def add_guidelines(schema: str) -> sql.Composed:
    """Insert the next guidelines version (parameters: text, author, when); its number."""
    t = _table(schema, "guidelines")
    return sql.SQL("INSERT INTO {t}(version, text, author, created_at) "
                   "SELECT coalesce(max(version), 0) + 1, %s, %s, %s FROM {t} "
                   "RETURNING version").format(t=t)
