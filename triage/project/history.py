"""An annotator's recent decisions, and changing one of them (a new, undoable event)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from triage import store
from triage.base.errors import TriageError
from triage.project.types import Session

if TYPE_CHECKING:
    from triage.project.core import Project

HISTORY_SIZE = 50


@dataclass(frozen=True)
class Decision:
    """One of the annotator's current decisions, as the history list shows it."""

    label_id: int
    candidate_id: int
    key: str
    text: str
    value: str | None        # None: skipped
    kind: str
    created_at: str
    note: str | None


def recent_decisions(project: Project, session: Session, limit: int = HISTORY_SIZE) -> list[Decision]:
    """The annotator's last ``limit`` decisions (any session), newest first."""
    rows = store.recent_labels(project.db, session.annotator_id, limit)
    texts = store.candidate_rows(project.db, [r.candidate_id for r in rows])
    return [Decision(r.id, r.candidate_id, texts[r.candidate_id][0], texts[r.candidate_id][1],
                     r.value, r.kind, r.created_at, r.note) for r in rows]


def change_decision(project: Project, session: Session, decision: Decision, value: str | None) -> int:
    """Record ``value`` for the candidate of an earlier decision; returns the new event id.

    The earlier event stays in the file; the new one is the annotator's current label of
    the candidate, and ``project.undo(session)`` takes it back like any other.
    """
    if value == decision.value:
        raise TriageError(f"{decision.key} is already {value or 'skipped'}")
    kind = decision.kind if decision.kind != "retest" else "triage"
    return project.record_label(session, decision.candidate_id, value, kind=kind, change=True)
