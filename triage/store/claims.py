"""Claims on served candidates and the stored overlap plan (the dispatcher's SQL)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable

import sqlite_utils


class _Taken(Exception):
    """Raised inside the claim transaction to roll it back: the candidate is not free."""


def overlap_items(db: sqlite_utils.Database) -> set[int]:
    """Candidate ids of the stored overlap plan."""
    # One row (a JSON array), not one per item: the tenth of a million-candidate pool that
    # the desk reads while it opens comes in one SQLite step, without winning the
    # interpreter lock back from the GUI thread after every row.
    row = db.execute("SELECT json_group_array(candidate_id) FROM plan "
                     "WHERE kind = 'overlap'").fetchone()
    return set(json.loads(row[0])) if row and row[0] else set()


def replace_overlap_plan(db: sqlite_utils.Database, ids: Iterable[int]) -> None:
    """Store ``ids`` as the overlap plan in place of the old one, in one transaction."""
    # One JSON array parameter: a tenth of a million-candidate pool goes in in one
    # statement instead of a hundred thousand.
    plan = json.dumps([int(i) for i in ids])
    with db.atomic():
        db.conn.execute("DELETE FROM plan WHERE kind = 'overlap'")
        db.conn.execute("INSERT INTO plan(candidate_id, kind) "
                        "SELECT value, 'overlap' FROM json_each(?)", [plan])


def live_claims(db: sqlite_utils.Database, now: float) -> list[tuple[int, int]]:
    """(candidate id, session id) of every claim not expired at ``now``."""
    return db.execute(
        "SELECT candidate_id, session_id FROM claims WHERE expires_at > ?", [now]
    ).fetchall()


def claim(db: sqlite_utils.Database, session_id: int, candidate_id: int, now: float,
          expires_at: float, still_needed: Callable[[], bool]) -> bool:
    """Claim a candidate for a session unless a live desk holds it or ``still_needed()`` is False.

    The session's other claims go. ``still_needed`` runs inside the write transaction,
    where nobody else can commit, so what it reads is what the claim is made against; a
    False (or a live claim of another desk) rolls everything back. Claims need no
    durability (losing one only frees a candidate), so they are written without an fsync.
    """
    conn = db.conn
    conn.execute("PRAGMA synchronous=NORMAL")
    try:
        with db.atomic():
            conn.execute("DELETE FROM claims WHERE session_id = ? AND candidate_id != ?",
                         [session_id, candidate_id])
            cur = conn.execute(
                "INSERT INTO claims(candidate_id, session_id, expires_at) VALUES (?, ?, ?) "
                "ON CONFLICT(candidate_id) DO UPDATE SET session_id = excluded.session_id, "
                "expires_at = excluded.expires_at "
                "WHERE claims.session_id = excluded.session_id OR claims.expires_at <= ?",
                [candidate_id, session_id, expires_at, now],
            )
            if cur.rowcount != 1 or not still_needed():
                raise _Taken
            return True
    except _Taken:
        return False
    finally:
        conn.execute("PRAGMA synchronous=FULL")


def active_label_kinds(db: sqlite_utils.Database, candidate_id: int) -> list[tuple[str, str]]:
    """(annotator name, kind) of every label event on the candidate that is not undone."""
    return db.conn.execute(
        "SELECT a.name, l.kind FROM labels l JOIN annotators a ON a.id = l.annotator_id "
        "WHERE l.candidate_id = ? AND l.undone_at IS NULL", [candidate_id],
    ).fetchall()
