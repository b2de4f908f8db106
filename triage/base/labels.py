"""The one type of a label event: who gave which label to which candidate, when.

The store's reads return it, the project follows it, the live statistics are fed from
it; the other label-shaped types are named for what they are (see docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LabelEvent:
    """One label event as stored: ``value`` None is a skip, ``undone_at`` set an undo."""

    id: int
    candidate_id: int
    annotator: str
    session_id: int
    value: str | None
    kind: str  # triage | overlap | audit | retest | adjudication | certify
    created_at: str
    seconds: float
    note: str | None
    undone_at: str | None
    served_by: str | None = None

    @property
    def skipped(self) -> bool:
        """Whether the event is a skip (no label given)."""
        return self.value is None
