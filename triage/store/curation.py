"""SQL for the guidelines, an annotator's recent decisions and the curator's rulings.

Kept beside :mod:`triage.store.records` (the label events themselves); every statement
takes parameters.
"""

from __future__ import annotations

from dataclasses import dataclass

import sqlite_utils

from triage.base.labels import LabelEvent
from triage.store.records import _LABEL_SELECT, now_iso


@dataclass(frozen=True)
class GuidelineRow:
    """One saved version of the labelling guidelines."""

    version: int
    text: str
    author: str | None
    created_at: str


def latest_guidelines(db: sqlite_utils.Database) -> GuidelineRow | None:
    """The guidelines in force (the highest version), or None before the first save."""
    row = db.execute("SELECT version, text, author, created_at FROM guidelines "
                     "ORDER BY version DESC LIMIT 1").fetchone()
    return GuidelineRow(*row) if row else None


def guideline_versions(db: sqlite_utils.Database) -> list[GuidelineRow]:
    """Every saved version, oldest first."""
    rows = db.execute("SELECT version, text, author, created_at FROM guidelines "
                      "ORDER BY version").fetchall()
    return [GuidelineRow(*row) for row in rows]


def add_guidelines(db: sqlite_utils.Database, text: str, author: str | None) -> int:
    """Store a new version of the guidelines; returns its number (1 for the first)."""
    with db.atomic():
        row = db.execute("SELECT coalesce(max(version), 0) + 1 FROM guidelines").fetchone()
        version = int(row[0])
        db.conn.execute("INSERT INTO guidelines(version, text, author, created_at) "
                        "VALUES (?, ?, ?, ?)", [version, text, author, now_iso()])
    return version


def label_guideline_versions(db: sqlite_utils.Database) -> dict[int, int | None]:
    """label id -> the guideline version in force when it was recorded (None: none yet)."""
    return dict(db.execute("SELECT id, guideline_version FROM labels").fetchall())


def recent_labels(db: sqlite_utils.Database, annotator_id: int,
                  limit: int = 50) -> list[LabelEvent]:
    """The annotator's latest active decisions (labels and skips, not rulings), newest first.

    A candidate labeled twice (a change from the history) appears once, as its latest event.
    """
    latest = ("(SELECT max(m.id) FROM labels m WHERE m.candidate_id = l.candidate_id "
              "AND m.annotator_id = l.annotator_id AND m.undone_at IS NULL "
              "AND m.kind != 'adjudication')")
    # Constant strings only are joined; the values travel as parameters.
    sql = (_LABEL_SELECT + " WHERE l.annotator_id = ? AND l.undone_at IS NULL "  # noqa: S608
           "AND l.kind != 'adjudication' AND l.id = " + latest + " ORDER BY l.id DESC LIMIT ?")
    rows = db.execute(sql, [annotator_id, int(limit)]).fetchall()
    return [LabelEvent(*row) for row in rows]


def last_active_ruling(db: sqlite_utils.Database, annotator_id: int) -> LabelEvent | None:
    """The curator's most recent ruling (adjudication event) that has not been undone."""
    row = db.execute(
        _LABEL_SELECT + " WHERE l.annotator_id = ? AND l.undone_at IS NULL "
        "AND l.kind = 'adjudication' ORDER BY l.id DESC LIMIT 1",
        [annotator_id],
    ).fetchone()
    return LabelEvent(*row) if row else None
