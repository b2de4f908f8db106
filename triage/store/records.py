"""Small typed SQL functions over a project file: settings, models, rankings, label events.

Label events are read as :class:`triage.base.labels.LabelEvent`, the one type of a label event.

The writes here are the project file's half of the write path: an open project reaches
them only through :class:`triage.store.writer.FileWriter`; they check their arguments with
:mod:`triage.store.checks`, as the team server's writer does. Every statement takes parameters; nothing user-supplied is ever formatted into SQL.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import socket
import sqlite3
import time
from dataclasses import dataclass

import numpy as np
import sqlite_utils

from triage import __version__
from triage.base.errors import TriageError
from triage.base.labels import LabelEvent
from triage.store import candidates, checks
from triage.store.content import HAS_CHECKSUMS, store_ranking_hashes
from triage.store.settings import Settings


def new_uid() -> str:
    """A globally unique id that sorts by creation time (like UUIDv7).

    Merging copies needs ids unique across machines; the time prefix makes each insert land
    at the end of the unique index instead of on a random page of it.
    """
    return f"{time.time_ns():016x}{secrets.token_hex(8)}"


def now_iso() -> str:
    """UTC timestamp with microseconds; sortable as text."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


def _new_row_id(cursor: sqlite3.Cursor) -> int:
    """The rowid an INSERT just made (``lastrowid`` is only None when nothing was inserted)."""
    row_id = cursor.lastrowid
    if row_id is None:
        raise TriageError("the database did not report the new row's id")
    return row_id


@dataclass(frozen=True)
class ModelInfo:
    """One imported model: its id, name, source column and how many items it ties."""

    id: int
    name: str
    source_column: str | None
    tied_items: int


def load_settings(db: sqlite_utils.Database) -> Settings:
    """The project's settings as stored."""
    rows = db.execute("SELECT key, value FROM settings").fetchall()
    return Settings.from_rows(rows)


def save_settings(db: sqlite_utils.Database, settings: Settings) -> None:
    """Store every setting (one transaction), replacing the stored values."""
    with db.atomic():
        db.conn.executemany(
            "INSERT INTO settings(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            settings.to_rows(),
        )


def set_project_info(db: sqlite_utils.Database, key: str, value: str) -> None:
    """Set one fact about the file (application, created_at, ...)."""
    db.conn.execute(
        "INSERT INTO project(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [key, value],
    )


def project_info(db: sqlite_utils.Database) -> dict[str, str]:
    """Every fact about the file, key to value."""
    return dict(db.execute("SELECT key, value FROM project").fetchall())


def models(db: sqlite_utils.Database) -> list[ModelInfo]:
    """The imported models in import order."""
    rows = db.execute("SELECT id, name, source_column, tied_items FROM models ORDER BY id")
    return [ModelInfo(*row) for row in rows.fetchall()]


def pool_size(db: sqlite_utils.Database) -> int:
    """Number of candidates in the pool.

    Their ids are 1..N (the import checks it, nothing deletes one), so the largest id is
    the count: one b-tree descent instead of a full scan.
    """
    row = db.execute("SELECT max(id) FROM candidates").fetchone()
    return int(row[0] or 0)


def save_ranking(db: sqlite_utils.Database, model_id: int, candidate_ids: np.ndarray,
                 scores: np.ndarray) -> None:
    """Store a model's frozen ranking: candidate ids best first, and their scores."""
    ids = np.ascontiguousarray(candidate_ids, dtype="<i8")
    values = np.ascontiguousarray(scores, dtype="<f8")
    if ids.shape != values.shape:
        raise ValueError("a ranking needs one score per candidate")
    db.conn.execute("INSERT INTO rankings(model_id, candidate_ids, scores) VALUES (?, ?, ?)",
                    [model_id, ids.tobytes(), values.tobytes()])
    if db.conn.execute(HAS_CHECKSUMS).fetchone()[0]:
        store_ranking_hashes(db.conn.execute, int(model_id), ids.tobytes(), values.tobytes())


def ranking(db: sqlite_utils.Database, model_id: int) -> tuple[np.ndarray, np.ndarray]:
    """(candidate ids in rank order, their scores): index 0 is rank 1."""
    row = db.execute("SELECT candidate_ids, scores FROM rankings WHERE model_id = ?",
                     [model_id]).fetchone()
    if row is None:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64)
    return (np.frombuffer(row[0], dtype="<i8").astype(np.int64),
            np.frombuffer(row[1], dtype="<f8").astype(np.float64))


def _ranking_column(db: sqlite_utils.Database, model_id: int, column: str,
                    dtype: str) -> np.ndarray:
    """One column of a stored ranking, read alone (each is a pool-sized blob)."""
    sql = {"candidate_ids": "SELECT candidate_ids FROM rankings WHERE model_id = ?",
           "scores": "SELECT scores FROM rankings WHERE model_id = ?"}[column]
    row = db.execute(sql, [model_id]).fetchone()
    kind = np.int64 if dtype == "<i8" else np.float64
    return np.empty(0, dtype=kind) if row is None else np.frombuffer(row[0], dtype=dtype).astype(kind)


def rank_order(db: sqlite_utils.Database, model_id: int) -> np.ndarray:
    """Candidate ids in rank order for one model (index 0 = rank 1)."""
    return _ranking_column(db, model_id, "candidate_ids", "<i8")


def scores_in_rank_order(db: sqlite_utils.Database, model_id: int) -> np.ndarray:
    """One model's scores in its rank order (index 0 = rank 1)."""
    return _ranking_column(db, model_id, "scores", "<f8")


def scores_by_candidate(db: sqlite_utils.Database, model_id: int) -> np.ndarray:
    """Scores indexed by candidate id (index 0 unused, NaN where a candidate has none)."""
    ids, values = ranking(db, model_id)
    out = np.full(int(ids.max()) + 1 if ids.size else 1, np.nan)
    out[ids] = values
    return out


def gold_by_candidate(db: sqlite_utils.Database) -> list[str | None]:
    """Gold labels indexed by candidate id (index 0 unused)."""
    rows = db.execute("SELECT id, gold FROM candidates ORDER BY id").fetchall()
    out: list[str | None] = [None] * ((rows[-1][0] + 1) if rows else 1)
    for cid, gold in rows:
        out[cid] = gold
    return out


def ensure_annotator(db: sqlite_utils.Database, name: str) -> int:
    """The id of annotator ``name``, creating them on first use."""
    name = checks.annotator_name(name)
    row = db.execute("SELECT id FROM annotators WHERE name = ?", [name]).fetchone()
    if row:
        return int(row[0])
    with db.atomic():
        cur = db.conn.execute(
            "INSERT INTO annotators(name, created_at) VALUES (?, ?)", [name, now_iso()]
        )
    return _new_row_id(cur)


def start_session(db: sqlite_utils.Database, annotator_id: int) -> int:
    """Open a session for the annotator (recording host and app version); returns its id."""
    with db.atomic():
        cur = db.conn.execute(
            "INSERT INTO sessions(uid, annotator_id, started_at, host, app_version) "
            "VALUES (?, ?, ?, ?, ?)",
            [new_uid(), annotator_id, now_iso(), socket.gethostname(), __version__],
        )
    return _new_row_id(cur)


def end_session(db: sqlite_utils.Database, session_id: int) -> None:
    """Close a session; its claim is released so the candidate on screen goes to the next desk."""
    with db.atomic():
        db.conn.execute("DELETE FROM claims WHERE session_id = ?", [session_id])
        db.conn.execute(
            "UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL",
            [now_iso(), session_id],
        )


def insert_label(
    db: sqlite_utils.Database,
    *,
    candidate_id: int,
    annotator_id: int,
    session_id: int,
    value: str | None,
    kind: str,
    seconds: float,
    note: str | None,
    served_by: str | None = None,
) -> int:
    """Append one label event and commit it durably before returning its id.

    The desk's claim on the candidate ends in the same transaction.
    """
    seconds = checks.label_fields(kind, seconds)
    with db.atomic():
        db.conn.execute("DELETE FROM claims WHERE candidate_id = ? AND session_id = ?",
                        [candidate_id, session_id])
        cur = db.conn.execute(LABEL_INSERT, [new_uid(), candidate_id, annotator_id, session_id,
                                             value, kind, now_iso(), seconds, note, served_by])
    return _new_row_id(cur)


def last_active_label(db: sqlite_utils.Database, annotator_id: int) -> LabelEvent | None:
    """The annotator's most recent label event that has not been undone."""
    row = db.execute(
        _LABEL_SELECT + " WHERE l.annotator_id = ? AND l.undone_at IS NULL "
        "AND l.kind != 'adjudication' ORDER BY l.id DESC LIMIT 1",
        [annotator_id],
    ).fetchone()
    return LabelEvent(*row) if row else None


def mark_undone(db: sqlite_utils.Database, label_id: int, session_id: int | None = None) -> None:
    """Undo is a mark on the event, never a delete. ``undo_seq`` orders the marks.

    The undoing desk's claim is released in the same transaction, so the undone candidate
    is what it serves next.
    """
    with db.atomic():
        if session_id is not None:
            db.conn.execute("DELETE FROM claims WHERE session_id = ?", [session_id])
        db.conn.execute(
            "UPDATE labels SET undone_at = ?, undo_seq = "
            "(SELECT coalesce(max(undo_seq), 0) + 1 FROM labels) "
            "WHERE id = ? AND undone_at IS NULL",
            [now_iso(), label_id],
        )


def labels_after(db: sqlite_utils.Database, label_id: int) -> list[LabelEvent]:
    """Label events with an id above ``label_id`` (new since we last looked), any desk."""
    rows = db.execute(_LABEL_SELECT + " WHERE l.id > ? ORDER BY l.id", [label_id]).fetchall()
    return [LabelEvent(*row) for row in rows]


def undone_after(db: sqlite_utils.Database, undo_seq: int) -> list[tuple[int, int]]:
    """(undo_seq, label id) of undo marks made since ``undo_seq``, any desk."""
    return db.execute(
        "SELECT undo_seq, id FROM labels WHERE undo_seq > ? ORDER BY undo_seq", [undo_seq]
    ).fetchall()


def set_note(db: sqlite_utils.Database, label_id: int, note: str) -> None:
    """Replace the note kept with a label event."""
    with db.atomic():
        db.conn.execute("UPDATE labels SET note = ? WHERE id = ?", [note, label_id])


# The INSERT of a label event, its columns written once: a desk's label ends with what
# served it, an imported one with the other tool's id of the event.
_LABEL_INSERT = ("INSERT INTO labels(uid, candidate_id, annotator_id, session_id, value, kind, "
                 "created_at, seconds, note, {}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
LABEL_INSERT = _LABEL_INSERT.format("served_by")
SOURCED_LABEL_INSERT = _LABEL_INSERT.format("source_id")

_LABEL_SELECT = (
    "SELECT l.id, l.candidate_id, a.name, l.session_id, l.value, l.kind, l.created_at, "
    "l.seconds, l.note, l.undone_at, l.served_by "
    "FROM labels l JOIN annotators a ON a.id = l.annotator_id"
)


def active_labels(db: sqlite_utils.Database) -> list[LabelEvent]:
    """Every label event not undone, oldest first."""
    rows = db.execute(_LABEL_SELECT + " WHERE l.undone_at IS NULL ORDER BY l.id").fetchall()
    return [LabelEvent(*row) for row in rows]


def max_undo_seq(db: sqlite_utils.Database) -> int:
    """The sequence number of the latest undo mark (0 before any undo)."""
    return int(db.execute("SELECT coalesce(max(undo_seq), 0) FROM labels").fetchone()[0])


def candidate_rows(db: sqlite_utils.Database, ids: list[int]) -> dict[int, tuple]:
    """(key, text, meta, gold) for the given candidate ids."""
    out: dict[int, tuple] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        # Only "?" placeholders are joined in; the values travel as parameters.
        sql = "SELECT id, key, text, meta, gold FROM candidates WHERE id IN (" + marks + ")"  # noqa: S608
        for row in db.execute(sql, chunk):
            out[row[0]] = (row[1], row[2], json.loads(row[3]) if row[3] else {}, row[4])
    return out


def candidate_id_by_key(db: sqlite_utils.Database, key: str) -> int | None:
    """The id of the candidate with external key ``key``, or None."""
    candidates.ensure_key_index(db)
    row = db.execute("SELECT id FROM candidates WHERE key = ?", [key]).fetchone()
    return int(row[0]) if row else None


def annotator_names(db: sqlite_utils.Database) -> dict[int, str]:
    """Annotator id to name."""
    return dict(db.execute("SELECT id, name FROM annotators").fetchall())


def hourly_rates(db: sqlite_utils.Database, default: float) -> dict[str, float]:
    """Each annotator's hourly rate; ``default`` for those without one."""
    rows = db.execute("SELECT name, hourly_rate FROM annotators").fetchall()
    return {name: (rate if rate is not None else default) for name, rate in rows}


def set_hourly_rate(db: sqlite_utils.Database, name: str, rate: float | None) -> None:
    """Set (or with None clear) an annotator's own hourly rate, creating them if new."""
    rate = checks.hourly_rate(rate)
    annotator_id = ensure_annotator(db, name)
    with db.atomic():
        db.conn.execute("UPDATE annotators SET hourly_rate = ? WHERE id = ?", [rate, annotator_id])


def session_counts(db: sqlite_utils.Database) -> dict[str, int]:
    """Number of sessions per annotator name (0 for annotators without one)."""
    rows = db.execute(
        "SELECT a.name, count(s.id) FROM annotators a LEFT JOIN sessions s "
        "ON s.annotator_id = a.id GROUP BY a.id"
    ).fetchall()
    return dict(rows)
