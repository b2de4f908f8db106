"""Final labels: what a candidate counts as once several people may have labeled it.

Rules (DESIGN.md, agreement): an adjudicated label is final. Otherwise the final label is
the majority of the annotators' current labels; a tie stays unresolved (shown, and not
counted as a positive until resolved). An annotator's current label of a candidate is
their latest event (in the order of the log: event ids) that is neither undone nor a skip.

This module is the one place that says what counts as found and who is credited with it
(:func:`is_positive`, :func:`credited`): the live numbers (desk, lead overview, ``triage
status``), the report, the gain report, exports and every per-annotator table use it, so
they agree on a project with disagreements.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum

from triage.base.labels import LabelEvent
from triage.store.settings import Settings


class FinalStatus(StrEnum):
    """Where a candidate's labels stand; the values are what exports and JSON show."""

    RESOLVED = "final"          # one final label (adjudicated, sole, or the majority)
    UNRESOLVED = "unresolved"   # a tie: no final label until somebody rules
    SKIPPED = "skipped"         # only skips: seen, paid for, no class


RESOLVED, UNRESOLVED, SKIPPED = FinalStatus.RESOLVED, FinalStatus.UNRESOLVED, FinalStatus.SKIPPED


@dataclass(frozen=True)
class FinalLabel:
    """A candidate's final label, with the current votes it rests on."""

    candidate_id: int
    value: str | None          # None when unresolved or only skipped
    status: FinalStatus
    votes: dict[str, str]      # annotator -> current label (first labeler first)
    adjudicated: bool
    ruled_by: str | None = None  # the adjudicator, when adjudicated

    @property
    def skipped(self) -> bool:
        """Only skips: the candidate was seen and paid for but has no class."""
        return self.status is FinalStatus.SKIPPED


def is_positive(final: FinalLabel | None, settings: Settings) -> bool:
    """Does the candidate count as a positive (found)? Only a resolved final label can.

    A tie between annotators is not found until somebody rules, in every count.
    """
    return (final is not None and final.status is FinalStatus.RESOLVED
            and final.value is not None and settings.is_positive(final.value))


def credited(final: FinalLabel | None, settings: Settings) -> str | None:
    """The one annotator credited with a found candidate (None: it is not found).

    The first annotator whose current label is the final label; when a ruling overrode
    every vote, the adjudicator. So an annotator who said "no" is never credited, a
    candidate is credited once however many agreed, and the per-annotator positives add
    up to the positives found.
    """
    if final is None or not is_positive(final, settings):
        return None
    agreeing = next((a for a, v in final.votes.items() if v == final.value), None)
    return agreeing or final.ruled_by


def _when(row: LabelEvent) -> int:
    # The log's order (the event id), never the wall clock: a clock stepped back under
    # a desk must not let an older decision outrank a change of mind made after it.
    return row.id


def current_labels(rows: list[LabelEvent]) -> dict[int, dict[str, str]]:
    """candidate -> {annotator: latest non-skip label}, from active (not undone) events."""
    return _current(sorted(rows, key=_when))


def _current(ordered: list[LabelEvent]) -> dict[int, dict[str, str]]:
    current: dict[int, dict[str, str]] = {}
    for row in ordered:
        # Re-test labels measure consistency; they do not outvote the original label.
        if (row.undone_at is not None or row.value is None
                or row.kind in ("adjudication", "retest")):
            continue
        current.setdefault(row.candidate_id, {})[row.annotator] = row.value
    return current


def final_labels(rows: list[LabelEvent]) -> dict[int, FinalLabel]:
    """The final label of every candidate that has at least one active event."""
    ordered = sorted(rows, key=_when)  # once: every advice refresh and export reads this
    votes = _current(ordered)
    adjudicated: dict[int, tuple[str, str]] = {}
    touched: set[int] = set()
    for row in ordered:
        if row.undone_at is not None:
            continue
        touched.add(row.candidate_id)
        if row.kind == "adjudication" and row.value is not None:
            adjudicated[row.candidate_id] = (row.value, row.annotator)
    out: dict[int, FinalLabel] = {}
    for cid in touched:
        v = votes.get(cid) or {}
        if cid in adjudicated:
            value, ruler = adjudicated[cid]
            out[cid] = FinalLabel(cid, value, RESOLVED, v, True, ruler)
        elif not v:
            out[cid] = FinalLabel(cid, None, SKIPPED, v, False)
        elif len(v) == 1:  # the common case: one annotator, whose label is final
            out[cid] = FinalLabel(cid, next(iter(v.values())), RESOLVED, v, False)
        else:
            counts = Counter(v.values()).most_common()
            if len(counts) > 1 and counts[0][1] == counts[1][1]:
                out[cid] = FinalLabel(cid, None, UNRESOLVED, v, False)
            else:
                out[cid] = FinalLabel(cid, counts[0][0], RESOLVED, v, False)
    return out
