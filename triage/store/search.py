"""The data manager's reads: the full-text index over the candidates' text, and the orders.

The index (schema step ``0007_text_search``) is an FTS5 table whose content is
``candidates.text``, keyed by candidate id. It is derived data kept in the file, built on
first use off the GUI thread on a connection of its own (:func:`build_index`), grown by the
candidates added since (the pool only grows: an import appends ids), and rebuilt whole if
the candidates no longer match what it holds. ``_text_search_state`` says how far it
reaches, so a reader knows whether a search would miss something (:func:`index_ready`).
"""

from __future__ import annotations

import re

import numpy as np
import sqlite_utils

from triage.base.labels import LabelEvent
from triage.base.progress import Progress

BATCH = 25_000   # candidates per transaction: a desk writing meanwhile waits at most one batch
_STATE = "SELECT indexed_to, rows FROM _text_search_state WHERE id = 1"
_WORD = re.compile(r"\w+", re.UNICODE)
_EVENTS = (
    "SELECT l.id, l.candidate_id, a.name, l.session_id, l.value, l.kind, l.created_at, "
    "l.seconds, l.note, l.undone_at, l.served_by "
    "FROM labels l JOIN annotators a ON a.id = l.annotator_id WHERE l.candidate_id = ? "
    "ORDER BY l.id"
)


def _pool(db: sqlite_utils.Database) -> tuple[int, int]:
    """(highest candidate id, number of candidates)."""
    top, count = db.execute("SELECT coalesce(max(id), 0), count(*) FROM candidates").fetchone()
    return int(top), int(count)


def has_index(db: sqlite_utils.Database) -> bool:
    """Does the file have the full-text table (schema step 0007)?"""
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = '_text_search_state'"
                      ).fetchone() is not None


def index_ready(db: sqlite_utils.Database) -> bool:
    """Does the index hold every candidate, so a search misses nothing?"""
    if not has_index(db):
        return False
    state = db.execute(_STATE).fetchone()
    return state is not None and (int(state[0]), int(state[1])) == _pool(db)


def build_index(db: sqlite_utils.Database, progress: Progress | None = None) -> int:
    """Bring the index up to the pool (grow it, or rebuild it whole); the rows added.

    Writes a batch of candidates per transaction, recording how far it got, so a build
    cancelled by ``progress`` returning False resumes where it stopped.
    """
    top, count = _pool(db)
    state = db.execute(_STATE).fetchone()
    start = 0
    if state is not None:
        indexed_to, rows = int(state[0]), int(state[1])
        if (indexed_to, rows) == (top, count):
            return 0
        below = db.execute("SELECT count(*) FROM candidates WHERE id <= ?",
                           [indexed_to]).fetchone()[0]
        start = indexed_to if below == rows and indexed_to <= top else 0
    if start == 0:
        with db.atomic():
            db.execute("INSERT INTO _text_search(_text_search) VALUES ('delete-all')")
            db.execute("DELETE FROM _text_search_state")
    added = 0
    while start < top:
        end = min(start + BATCH, top)
        with db.atomic():
            cur = db.execute("INSERT INTO _text_search(rowid, text) SELECT id, text "
                             "FROM candidates WHERE id > ? AND id <= ?", [start, end])
            added += max(0, cur.rowcount)
            db.execute("INSERT OR REPLACE INTO _text_search_state(id, indexed_to, rows) "
                       "VALUES (1, ?, (SELECT count(*) FROM candidates WHERE id <= ?))",
                       [end, end])
        start = end
        if progress is not None and progress(end, top) is False:
            break
    if top == 0:
        db.execute("INSERT OR REPLACE INTO _text_search_state(id, indexed_to, rows) "
                   "VALUES (1, 0, 0)")
    return added


def match_query(text: str) -> str | None:
    """The FTS5 query for what a user typed: every word, the last one as a prefix."""
    words = _WORD.findall(text)
    if not words:
        return None
    quoted = [f'"{w}"' for w in words]
    quoted[-1] += "*"
    return " AND ".join(quoted)


def search_ids(db: sqlite_utils.Database, text: str) -> np.ndarray:
    """Ids (ascending) of the candidates whose text has every word typed (FTS5 index)."""
    query = match_query(text)
    if query is None:
        return np.empty(0, dtype=np.int64)
    rows = db.execute("SELECT rowid FROM _text_search WHERE _text_search MATCH ? ORDER BY rowid",
                      [query]).fetchall()
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))


def scan_ids(db: sqlite_utils.Database, text: str) -> np.ndarray:
    """Ids whose text contains every word (a scan; for a file whose index cannot be built)."""
    words = [w.lower() for w in _WORD.findall(text)]
    if not words:
        return np.empty(0, dtype=np.int64)
    where = " AND ".join("instr(lower(text), ?) > 0" for _ in words)
    # Only fixed fragments are joined in; the words travel as parameters.
    rows = db.execute("SELECT id FROM candidates WHERE " + where + " ORDER BY id",  # noqa: S608
                      words).fetchall()
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))


def ids_in_key_order(db: sqlite_utils.Database) -> np.ndarray:
    """Every candidate id, ordered by external key (the key's unique index)."""
    rows = db.execute("SELECT id FROM candidates ORDER BY key").fetchall()
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))


def label_events(db: sqlite_utils.Database, candidate_id: int) -> list[LabelEvent]:
    """Every label event of one candidate, undone ones too, oldest first."""
    rows = db.execute(_EVENTS, [candidate_id]).fetchall()
    return [LabelEvent(*row) for row in rows]
