"""Writes of labels that come from another tool (Prodigy, Label Studio) with their history.

Sessions and label events keep the other tool's annotator, time and duration. None of
these functions opens a transaction: the interchange import runs them inside its one
transaction, so a file's labels are all written or none are.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import cast

import sqlite_utils

from triage import __version__
from triage.store.records import new_uid


def insert_session(db: sqlite_utils.Database, annotator_id: int, started_at: str,
                   ended_at: str, origin: str) -> int:
    """A finished session of ``annotator_id`` imported from ``origin`` (e.g. ``prodigy:ds-ada``)."""
    cursor = db.conn.execute(
        "INSERT INTO sessions(uid, annotator_id, started_at, ended_at, host, app_version) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [new_uid(), annotator_id, started_at, ended_at, origin, __version__])
    return cast(int, cursor.lastrowid)


def insert_labels(db: sqlite_utils.Database,
                  rows: Iterable[tuple[int, int, int, str | None, str, str, float, str | None]]
                  ) -> None:
    """Append (candidate, annotator, session, value, kind, created_at, seconds, note) events."""
    db.conn.executemany(
        "INSERT INTO labels(uid, candidate_id, annotator_id, session_id, value, kind, "
        "created_at, seconds, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((new_uid(), *row) for row in rows))


def label_events_with_keys(db: sqlite_utils.Database) -> list[tuple]:
    """Every active label event for export, oldest first.

    Rows are (key, text, annotator, session uid, value, kind, created_at, seconds, note,
    candidate id).
    """
    return db.execute(
        "SELECT c.key, c.text, a.name, s.uid, l.value, l.kind, l.created_at, l.seconds, "
        "l.note, c.id FROM labels l JOIN candidates c ON c.id = l.candidate_id "
        "JOIN annotators a ON a.id = l.annotator_id JOIN sessions s ON s.id = l.session_id "
        "WHERE l.undone_at IS NULL ORDER BY l.id").fetchall()


def candidates_in_id_order(db: sqlite_utils.Database) -> list[tuple[int, str, str]]:
    """(id, key, text) of every candidate, by id."""
    return db.execute("SELECT id, key, text FROM candidates ORDER BY id").fetchall()


def labelled_candidates(db: sqlite_utils.Database) -> list[int]:
    """Ids of candidates with at least one active label event."""
    return [r[0] for r in db.execute(
        "SELECT DISTINCT candidate_id FROM labels WHERE undone_at IS NULL").fetchall()]
