"""The statements a desk's link sends to the server, beside the functions they call.

Every write an annotator makes is a call of a server-side function (``start_session``,
``claim``, ``add_label``, ``undo``, ``set_note``, ``release``, ``end_session``: created by
``triage server init``, :mod:`triage.store.pg.functions`), which checks its arguments and
takes times, ids and lease lengths from the server. Here are those calls, and the plain
statements for what only the lead writes (settings, plan, guidelines, certifications,
hourly rates), which the lead group's table privileges allow.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from psycopg import sql


def _compiled(builder: Callable[..., sql.Composable]) -> Callable[..., bytes]:
    """Build a statement once per argument tuple, as the bytes psycopg sends.

    A desk sends the same few statements for every label; composing them anew each time
    cost more than the round trip on a local server.
    """
    @functools.cache
    def compiled(*args: Any) -> bytes:
        return builder(*args).as_bytes(None)

    return functools.update_wrapper(compiled, builder)


def lead_role(schema: str) -> str:
    """The group role of a project's lead."""
    return f"{schema}_lead"


@_compiled
def call(schema: str, function: str, arity: int) -> sql.Composed:
    """``SELECT schema.function(%s, ...)`` with ``arity`` parameters."""
    marks = sql.SQL(", ").join([sql.Placeholder()] * arity)
    return sql.SQL("SELECT {}.{}({})").format(sql.Identifier(schema), sql.Identifier(function),
                                               marks)


@_compiled
def leases(schema: str) -> sql.Composed:
    """The leases live by the server's clock: (candidate id, session id) rows."""
    return sql.SQL("SELECT candidate_id, session_id FROM {}.live_leases()").format(
        sql.Identifier(schema))


@_compiled
def active_kinds(schema: str) -> sql.Composed:
    """(annotator, kind) of a candidate's active labels (parameter: candidate)."""
    return sql.SQL("SELECT annotator, kind FROM {}.active_kinds(%s)").format(
        sql.Identifier(schema))


@_compiled
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


@_compiled
def ensure_annotator(schema: str) -> sql.Composed:
    """Insert annotator (name, created_at) unless present; the id (parameters: name, at, name)."""
    t = _table(schema, "annotators")
    return sql.SQL("WITH made AS (INSERT INTO {t}(name, created_at) VALUES (%s, %s) "
                   "ON CONFLICT (name) DO NOTHING RETURNING id) "
                   "SELECT id FROM made UNION ALL SELECT id FROM {t} WHERE name = %s").format(t=t)


@_compiled
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


@_compiled
def running_certification(schema: str) -> sql.Composed:
    """The id of the running certification sample, if any."""
    return sql.SQL("SELECT id FROM {} WHERE ended_at IS NULL FOR UPDATE").format(
        _table(schema, "certifications"))


@_compiled
def insert_certification(schema: str) -> sql.Composed:
    """Insert a certification sample (nine parameters), returning its id."""
    return sql.SQL("INSERT INTO {}(uid, started_at, target, confidence, found, remaining, "
                   "planned, labels_at, sample_order) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, "
                   "%s) RETURNING id").format(_table(schema, "certifications"))


@_compiled
def end_certification(schema: str) -> sql.Composed:
    """Close a running sample (parameters: when, outcome, p, n, k, id)."""
    return sql.SQL("UPDATE {} SET ended_at = %s, outcome = %s, p_value = %s, sample_n = %s, "
                   "sample_k = %s WHERE id = %s AND ended_at IS NULL").format(
        _table(schema, "certifications"))


@_compiled
def add_guidelines(schema: str) -> sql.Composed:
    """Insert the next guidelines version (parameters: text, author, when); its number."""
    t = _table(schema, "guidelines")
    return sql.SQL("INSERT INTO {t}(version, text, author, created_at) "
                   "SELECT coalesce(max(version), 0) + 1, %s, %s, %s FROM {t} "
                   "RETURNING version").format(t=t)


@_compiled
def add_cal_snapshot(schema: str) -> sql.Composed:
    """Insert a cal snapshot unless its uid is stored (parameters: the row after id); its id."""
    return sql.SQL("INSERT INTO {}(uid, created_at, labels_used, last_label_id, features, "
                   "config, candidate_ids, scores) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
                   "ON CONFLICT (uid) DO NOTHING RETURNING id").format(
        _table(schema, "cal_snapshots"))


@_compiled
def cal_snapshot_id(schema: str) -> sql.Composed:
    """The id of the cal snapshot with this uid (parameter: uid)."""
    return sql.SQL("SELECT id FROM {} WHERE uid = %s").format(_table(schema, "cal_snapshots"))
