"""The certification record: one row per one-off certification sample a lead started.

The sample is a seeded random order of the unlabelled remainder at the moment it started,
stored with the record so every desk serves the same sequence; its labels are ordinary
label events of kind ``certify``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlite_utils

from triage.store.records import new_uid, now_iso


@dataclass(frozen=True)
class CertificationRow:
    """A certification sample as stored; ``outcome`` is None while it runs."""

    id: int
    started_at: str
    target: float
    confidence: float
    found: int
    remaining: int
    planned: int | None
    labels_at: int
    sample_order: np.ndarray
    ended_at: str | None
    outcome: str | None
    p_value: float | None
    sample_n: int | None
    sample_k: int | None

    @property
    def running(self) -> bool:
        """True while the sample has not ended."""
        return self.ended_at is None


_SELECT = ("SELECT id, started_at, target, confidence, found, remaining, planned, labels_at, "
           "sample_order, ended_at, outcome, p_value, sample_n, sample_k FROM certifications")


def _row(r: tuple[Any, ...]) -> CertificationRow:
    # Read-only, no copy: nothing changes a stored order (8 MB at a million items).
    order = np.frombuffer(r[8], dtype="<i8").astype(np.int64, copy=False)
    return CertificationRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], order, *r[9:])


def start_certification(db: sqlite_utils.Database, *, target: float, confidence: float,
                        found: int, order: np.ndarray, planned: int | None,
                        labels_at: int) -> int:
    """Store a new running certification sample; returns its id. One runs at a time."""
    with db.atomic():
        running = db.conn.execute(
            "SELECT id FROM certifications WHERE ended_at IS NULL").fetchone()
        if running is not None:
            return int(running[0])
        cur = db.conn.execute(
            "INSERT INTO certifications(uid, started_at, target, confidence, found, remaining, "
            "planned, labels_at, sample_order) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [new_uid(), now_iso(), float(target), float(confidence), int(found),
             int(order.size), planned, int(labels_at),
             np.asarray(order, dtype="<i8").tobytes()])
    return int(cur.lastrowid or 0)


def end_certification(db: sqlite_utils.Database, cert_id: int, *, outcome: str,
                      p_value: float | None, sample_n: int, sample_k: int) -> None:
    """Close a running sample with its outcome (certified / not_certified / cancelled)."""
    with db.atomic():
        db.conn.execute(
            "UPDATE certifications SET ended_at = ?, outcome = ?, p_value = ?, sample_n = ?, "
            "sample_k = ? WHERE id = ? AND ended_at IS NULL",
            [now_iso(), outcome, p_value, int(sample_n), int(sample_k), int(cert_id)])


def certifications(db: sqlite_utils.Database) -> list[CertificationRow]:
    """Every certification sample, oldest first (empty for files without the table)."""
    if not certifications_exist(db):
        return []
    return [_row(r) for r in db.execute(_SELECT + " ORDER BY id").fetchall()]


def latest_certification(db: sqlite_utils.Database) -> CertificationRow | None:
    """The running sample, else the most recent one, else None (one row's order read)."""
    if not certifications_exist(db):
        return None
    # The id first: a sort over rows holding their orders would copy every 8 MB blob.
    found = db.execute("SELECT id FROM certifications "
                       "ORDER BY ended_at IS NULL DESC, id DESC LIMIT 1").fetchone()
    if found is None:
        return None
    return _row(db.execute(_SELECT + " WHERE id = ?", [found[0]]).fetchone())


def certifications_exist(db: sqlite_utils.Database) -> bool:
    """True when the file has the certifications table (older files may not)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' "
                      "AND name = 'certifications'").fetchone() is not None


def running_certification_id(db: sqlite_utils.Database) -> int | None:
    """The id of the running sample, or None; reads no sample order (a desk asks per pick)."""
    if not certifications_exist(db):
        return None
    row = db.execute("SELECT id FROM certifications WHERE ended_at IS NULL "
                     "ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else int(row[0])


def sample_order(db: sqlite_utils.Database, cert_id: int) -> np.ndarray:
    """The stored order of one sample (it never changes once stored)."""
    row = db.execute("SELECT sample_order FROM certifications WHERE id = ?",
                     [int(cert_id)]).fetchone()
    if row is None:
        raise KeyError(cert_id)
    return np.frombuffer(row[0], dtype="<i8").astype(np.int64, copy=False)


def last_label_id(db: sqlite_utils.Database) -> int:
    """Highest label event id (0 when none).

    With the last undo mark, a cheap version of the label history that changes whenever any
    desk labels, skips or undoes."""
    return int(db.execute("SELECT coalesce(max(id), 0) FROM labels").fetchone()[0])
