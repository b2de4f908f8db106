"""The adjudication queue: candidates whose annotators disagree, and the rulings on them.

A candidate is in the queue when the current labels of its annotators (see
:mod:`triage.project.final`) are not all the same and nobody has ruled on it yet. A tie has no
final label (``unresolved``: not counted as a positive); a majority has one, but the
disagreement is still worth a look. A ruling is a label event of kind ``adjudication``;
it makes the candidate's label final and takes it out of the queue.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from triage import store
from triage.base.errors import TriageError
from triage.project.final import FinalLabel, FinalStatus

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.project.types import Session

TIE, MAJORITY = "unresolved", "majority"


@dataclass(frozen=True)
class Disagreement:
    """One candidate awaiting a ruling."""

    candidate_id: int
    key: str
    text: str
    rank: int                  # under the active model
    votes: dict[str, str]      # annotator -> current label
    status: str                # "unresolved" (a tie) or "majority"
    majority: str | None       # the majority label, None on a tie
    counts: dict[str, int]     # label -> number of annotators


def _is_disagreement(final: FinalLabel) -> bool:
    return not final.adjudicated and len(set(final.votes.values())) > 1


def disagreements(project: Project) -> list[Disagreement]:
    """Candidates whose annotators' current labels differ and that await a ruling, by rank."""
    finals = project.final_labels()
    pending = [f for f in finals.values() if _is_disagreement(f)]
    rows = store.candidate_rows(project.db, [f.candidate_id for f in pending])
    out = []
    for f in pending:
        key, text, _meta, _gold = rows[f.candidate_id]
        counts = dict(Counter(f.votes.values()).most_common())
        tie = f.status is FinalStatus.UNRESOLVED
        out.append(Disagreement(
            candidate_id=f.candidate_id, key=key, text=text, rank=project.rank_of(f.candidate_id),
            votes=dict(sorted(f.votes.items())), status=TIE if tie else MAJORITY,
            majority=None if tie else f.value, counts=counts,
        ))
    out.sort(key=lambda d: d.rank)
    return out


def candidate_id_of(project: Project, key: str) -> int:
    """The id of the candidate with external key ``key``."""
    candidate_id = store.candidate_id_by_key(project.db, key)
    if candidate_id is None:
        raise TriageError(f"there is no candidate with key {key!r}")
    return candidate_id


def adjudicate(project: Project, session: Session, candidate_id: int, value: str, *,
               note: str | None = None) -> FinalLabel:
    """Record a ruling (a label event of kind ``adjudication``); returns the final label.

    Only a candidate somebody has labeled can be ruled on; a later ruling replaces an
    earlier one.
    """
    before = project.final_labels().get(candidate_id)
    if before is None or not before.votes:
        raise TriageError(f"candidate {candidate_id} has no labels yet; there is nothing to "
                          "adjudicate")
    project.record_label(session, candidate_id, value, kind="adjudication", note=note)
    return project.final_labels()[candidate_id]


def undo_ruling(project: Project, session: Session) -> int | None:
    """Take back the curator's last ruling (a mark, never a delete); its candidate or None.

    The candidate goes back into the adjudication queue if its annotators still disagree.
    """
    last = store.last_active_ruling(project.db, session.annotator_id)
    if last is None:
        return None
    project.writer.mark_undone(last.id)
    project.refresh()
    return last.candidate_id


def rulings_by(rows: Iterable[store.LabelEvent]) -> dict[int, str]:
    """candidate id -> the curator whose ruling is in force (latest active adjudication)."""
    out: dict[int, str] = {}
    for row in sorted(rows, key=lambda r: r.id):  # the log's order, not the clock
        if row.undone_at is None and row.kind == "adjudication" and row.value is not None:
            out[row.candidate_id] = row.annotator
    return out
