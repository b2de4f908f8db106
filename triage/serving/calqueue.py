"""The ``cal`` queue: serves the newest stored snapshot of the learned ranking.

Snapshots are fit elsewhere (a helper process, or ``triage cal``) and stored in the
project; every desk reads the newest one, so a team serves one order. Looking for a newer
snapshot is one indexed read, done when the project follows the file (after any desk
wrote), never while a fit runs: the desk never waits for training. Until the first
snapshot, and whenever its head is worked down, the imported ranking serves.
"""

from __future__ import annotations

from collections.abc import Callable

import sqlite_utils

from triage.serving.queue import RankedQueue
from triage.store import calsnap

ARM = "cal"


def learning(active_model: str | None, learn: bool) -> bool:
    """Whether a project learns the cal ranking (followed alone, or as a bandit arm)."""
    return learn or active_model == ARM


def serves_cal(active_model: str | None, learn: bool, queue_mode: str) -> bool:
    """Whether the order served learns from the labels: cal followed, or a bandit arm."""
    if queue_mode == "follow":
        return active_model == ARM
    return learning(active_model, learn)


class CalQueue:
    """Best unhandled candidates of the newest cal snapshot, then of the imported ranking."""

    def __init__(self, db: sqlite_utils.Database, fallback: RankedQueue,
                 is_handled: Callable[[int], bool]) -> None:
        self.db = db
        self.fallback = fallback
        self.is_handled = is_handled
        self.snapshot_id = 0
        self.labels_used = 0
        self.features = ""
        self.queue: RankedQueue | None = None
        self.refresh()

    def refresh(self) -> bool:
        """Adopt the newest stored snapshot if it is newer than ours; True if it was."""
        if calsnap.latest_id(self.db) == self.snapshot_id:
            return False
        snap = calsnap.latest_snapshot(self.db)
        if snap is None or snap.id is None:
            return False
        self.snapshot_id, self.labels_used, self.features = snap.id, snap.labels_used, snap.features
        self.queue = RankedQueue(snap.candidate_ids, snap.scores, self.is_handled)
        return True

    def peek(self, limit: int = 1, skip: frozenset[int] = frozenset()
             ) -> list[tuple[int, int, float]]:
        """Up to ``limit`` (rank, candidate, score): the snapshot's head, then the imported."""
        found = self.queue.peek(limit, skip) if self.queue is not None else []
        if len(found) < limit:
            seen = skip | {cid for _r, cid, _s in found}
            found += self.fallback.peek(limit - len(found), seen)
        return found

    def rewind(self, rank: int) -> None:
        """A candidate became unhandled again (undo): scan both orders from the top."""
        if self.queue is not None:
            self.queue.rewind(1)
        self.fallback.rewind(rank)


__all__ = ["ARM", "CalQueue", "learning", "serves_cal"]
