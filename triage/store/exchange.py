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
from triage.store.records import SOURCED_LABEL_INSERT, new_uid


def insert_session(db: sqlite_utils.Database, annotator_id: int, started_at: str,
                   ended_at: str, origin: str) -> int:
    """A finished session of ``annotator_id`` imported from ``origin`` (e.g. ``prodigy:ds-ada``)."""
    cursor = db.conn.execute(
        "INSERT INTO sessions(uid, annotator_id, started_at, ended_at, host, app_version) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        [new_uid(), annotator_id, started_at, ended_at, origin, __version__])
    return cast(int, cursor.lastrowid)


def insert_sourced_labels(
        db: sqlite_utils.Database,
        rows: Iterable[tuple[int, int, int, str | None, str, str, float, str | None, str | None]]
) -> None:
    """Append (candidate, annotator, session, value, kind, created_at, seconds, note, source_id)."""
    db.conn.executemany(SOURCED_LABEL_INSERT, ((new_uid(), *row) for row in rows))


def set_picture_folder(db: sqlite_utils.Database, folder: str) -> None:
    """Record the folder an imported pool's relative picture cells resolve against."""
    db.conn.execute("INSERT INTO project(key, value) VALUES ('image_folder', ?) "
                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value", [folder])


def present_sources(db: sqlite_utils.Database, sources: list[str]) -> set[str]:
    """Which of ``sources`` are already the source id (or the uid) of a label here.

    A Triage label uid counts as a source id too, so a file Triage exported does not add
    its own labels twice when imported back into the same project.
    """
    found: set[str] = set()
    unique = sorted(set(sources))
    for start in range(0, len(unique), 400):
        part = unique[start:start + 400]
        marks = ",".join("?" * len(part))
        found.update(r[0] for r in db.execute(
            f"SELECT source_id FROM labels WHERE source_id IN ({marks}) "  # noqa: S608
            f"UNION SELECT uid FROM labels WHERE uid IN ({marks})", part + part))
    return found


def label_events_with_keys(db: sqlite_utils.Database) -> list[tuple]:
    """Every active label event for export, oldest first.

    Rows are (key, text, annotator, session uid, value, kind, created_at, seconds, note,
    candidate id, label uid, source id).
    """
    return db.execute(
        "SELECT c.key, c.text, a.name, s.uid, l.value, l.kind, l.created_at, l.seconds, "
        "l.note, c.id, l.uid, l.source_id FROM labels l JOIN candidates c ON c.id = l.candidate_id "
        "JOIN annotators a ON a.id = l.annotator_id JOIN sessions s ON s.id = l.session_id "
        "WHERE l.undone_at IS NULL ORDER BY l.id").fetchall()


def candidates_in_id_order(db: sqlite_utils.Database) -> list[tuple[int, str, str]]:
    """(id, key, text) of every candidate, by id."""
    return db.execute("SELECT id, key, text FROM candidates ORDER BY id").fetchall()


def candidate_metas(db: sqlite_utils.Database) -> dict[int, str]:
    """The ``meta`` JSON text of every candidate that has one, by id."""
    return dict(db.execute("SELECT id, meta FROM candidates WHERE meta IS NOT NULL").fetchall())


def labelled_candidates(db: sqlite_utils.Database) -> list[int]:
    """Ids of candidates with at least one active label event."""
    return [r[0] for r in db.execute(
        "SELECT DISTINCT candidate_id FROM labels WHERE undone_at IS NULL").fetchall()]
