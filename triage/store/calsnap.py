"""Snapshots of the ``cal`` ranking, and the label events a cal model may learn from.

A snapshot is written by whoever trains (a desk's helper, or ``triage cal``), through the
project's writer; every desk reads the newest one and serves its order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sqlite_utils

from triage.store.records import new_uid, now_iso


@dataclass(frozen=True)
class CalSnapshot:
    """One fit of the cal ranking: what it learned from, and the head of its order."""

    labels_used: int
    last_label_id: int
    features: str                       # "text+scores" or "scores"
    config: dict[str, Any]
    candidate_ids: np.ndarray           # unlabeled candidates, best first
    scores: np.ndarray                  # their scores, same order
    id: int | None = None
    created_at: str | None = None
    uid: str = field(default_factory=new_uid)


_SELECT = ("SELECT id, uid, created_at, labels_used, last_label_id, features, config, "
           "candidate_ids, scores FROM cal_snapshots")
_INSERT = ("INSERT OR IGNORE INTO cal_snapshots (uid, created_at, labels_used, last_label_id, "
           "features, config, candidate_ids, scores) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")


def _row(r: tuple[Any, ...]) -> CalSnapshot:
    return CalSnapshot(
        labels_used=int(r[3]), last_label_id=int(r[4]), features=r[5],
        config=json.loads(r[6]),
        candidate_ids=np.frombuffer(r[7], dtype="<i8").astype(np.int64),
        scores=np.frombuffer(r[8], dtype="<f8").astype(np.float64),
        id=int(r[0]), created_at=r[2], uid=r[1])


def snapshot_values(snap: CalSnapshot) -> list[Any]:
    """The row's values after ``id``, in column order (for an insert here or on a server)."""
    return [snap.uid, snap.created_at or now_iso(), int(snap.labels_used),
            int(snap.last_label_id), snap.features, json.dumps(snap.config, sort_keys=True),
            np.asarray(snap.candidate_ids, dtype="<i8").tobytes(),
            np.asarray(snap.scores, dtype="<f8").tobytes()]


def add_snapshot(db: sqlite_utils.Database, snap: CalSnapshot) -> int:
    """Store a snapshot (a second copy of the same uid is ignored); its id."""
    with db.atomic():
        db.execute(_INSERT, snapshot_values(snap))
        row = db.execute("SELECT id FROM cal_snapshots WHERE uid = ?", [snap.uid]).fetchone()
    return int(row[0])


def latest_id(db: sqlite_utils.Database) -> int:
    """The newest snapshot's id (0: none yet); one indexed read, cheap enough per key."""
    return int(db.execute("SELECT coalesce(max(id), 0) FROM cal_snapshots").fetchone()[0])


def snapshot_count(db: sqlite_utils.Database) -> int:
    """How many snapshots are stored."""
    return int(db.execute("SELECT count(*) FROM cal_snapshots").fetchone()[0])


def latest_snapshot(db: sqlite_utils.Database) -> CalSnapshot | None:
    """The newest snapshot, or None before the first fit."""
    r = db.execute(_SELECT + " ORDER BY id DESC LIMIT 1").fetchone()
    return _row(r) if r else None


def all_snapshots(db: sqlite_utils.Database) -> list[CalSnapshot]:
    """Every snapshot, oldest first (a backtest replays them)."""
    return [_row(r) for r in db.execute(_SELECT + " ORDER BY id")]


def training_events(db: sqlite_utils.Database) -> list[tuple[int, int, str | None, str]]:
    """(label id, candidate id, value, kind) of every active label event, in id order."""
    return [tuple(r) for r in db.execute(
        "SELECT id, candidate_id, value, kind FROM labels WHERE undone_at IS NULL ORDER BY id")]


def candidate_texts(db: sqlite_utils.Database) -> tuple[np.ndarray, list[str]]:
    """(candidate ids, their texts) in id order."""
    ids: list[int] = []
    texts: list[str] = []
    for cid, text in db.execute("SELECT id, text FROM candidates ORDER BY id"):
        ids.append(int(cid))
        texts.append(text or "")
    return np.asarray(ids, dtype=np.int64), texts


__all__ = ["CalSnapshot", "add_snapshot", "all_snapshots", "candidate_texts", "latest_id",
           "latest_snapshot", "snapshot_count", "snapshot_values", "training_events"]
