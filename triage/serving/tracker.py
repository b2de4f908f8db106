"""An in-memory mirror of the label events, kept in step with the file incrementally.

Several desks (processes) may write to one project. Each keeps this mirror and, before it
serves or reports anything, asks the file only for what changed: events with an id above
the last one seen, and undo marks with a sequence number above the last one seen. Both
are index range scans, so staying current costs microseconds, not a reload.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlite_utils

from triage import store
from triage.base.errors import AlreadyRecorded
from triage.base.labels import LabelEvent

VOTING_KINDS = ("triage", "overlap", "audit", "certify")   # kinds that make an annotator's label
SEEN_KINDS = ("triage", "overlap", "audit", "certify")   # kinds (skips too) that mean "has seen it"


@dataclass
class SyncResult:
    """What one :meth:`LabelTracker.sync` brought in: new events, and events undone."""

    added: list[LabelEvent] = field(default_factory=list)
    removed: list[LabelEvent] = field(default_factory=list)


class LabelTracker:
    """Active label events by id and by candidate, plus simple counters."""

    def __init__(self) -> None:
        self.seen_id = 0
        self.seen_undo = 0
        self.rows: dict[int, LabelEvent] = {}
        self.by_candidate: dict[int, list[int]] = {}
        self.kind_counts: dict[str, int] = {}

    def sync(self, db: sqlite_utils.Database) -> SyncResult:
        """Pull what changed in the file since the last call."""
        result = SyncResult()
        for row in store.labels_after(db, self.seen_id):
            self.seen_id = row.id
            if row.undone_at is None:
                self._add(row)
                result.added.append(row)
        for seq, label_id in store.undone_after(db, self.seen_undo):
            self.seen_undo = seq
            undone = self.rows.get(label_id)
            if undone is not None:
                self._remove(undone)
                result.removed.append(undone)
        return result

    def _add(self, row: LabelEvent) -> None:
        self.rows[row.id] = row
        self.by_candidate.setdefault(row.candidate_id, []).append(row.id)
        self.kind_counts[row.kind] = self.kind_counts.get(row.kind, 0) + 1

    def _remove(self, row: LabelEvent) -> None:
        del self.rows[row.id]
        ids = self.by_candidate[row.candidate_id]
        ids.remove(row.id)
        if not ids:
            del self.by_candidate[row.candidate_id]
        self.kind_counts[row.kind] -= 1

    def events_of(self, candidate_id: int) -> list[LabelEvent]:
        """The candidate's active events, oldest first."""
        return [self.rows[i] for i in self.by_candidate.get(candidate_id, ())]

    def seen_by(self, candidate_id: int) -> set[str]:
        """Annotators who labeled or skipped the candidate (retests and rulings aside)."""
        return {r.annotator for r in self.events_of(candidate_id) if r.kind in SEEN_KINDS}

    def is_handled(self, candidate_id: int) -> bool:
        """True when the candidate has any active event (a label or a skip)."""
        return candidate_id in self.by_candidate

    @property
    def total_events(self) -> int:
        """Number of active events."""
        return len(self.rows)

    def refuse_second_label(self, annotator: str, candidate_id: int, kind: str) -> None:
        """AlreadyRecorded when this would be the annotator's second decision on the candidate.

        A write that committed but then failed (a full disk while loading the next candidate)
        must not become two labels when the desk retries or the key is pressed again. A
        re-test is one more decision, but only one per candidate; a change of mind goes
        through ``triage.project.history.change_decision``.
        """
        wanted = ("retest",) if kind == "retest" else SEEN_KINDS
        mine = [r for r in self.events_of(candidate_id)
                if r.annotator == annotator and r.kind in wanted]
        if mine:
            raise AlreadyRecorded(
                f"you have already decided on this candidate ({mine[-1].value or 'skipped'}); "
                "to change your mind, use the history", mine[-1].id)
