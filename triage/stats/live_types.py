"""The value types of the live state (:mod:`triage.stats.live`): ranked labels in, snapshots out."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TypedDict

import numpy as np


class PriceSettings(TypedDict, total=False):
    """The cost settings :meth:`LiveState.reprice` (and :func:`rebuild`) take by keyword."""

    price_model: str
    price_per_item: float
    hourly_rates: dict[str, float] | None
    budget: float | None
    value_per_positive: float | None
    currency: str
    total_positives_hint: int | None


@dataclass(frozen=True)
class RankedLabel:
    """A label event as the live tally counts it: at ``rank`` (1-based, active model), judged.

    Not a second label event: the projection of one :class:`triage.base.labels.LabelEvent`
    (``event_id``) onto the active ranking, with the project's verdict on the candidate
    after it (``positive``, ``replaces``, ``credit``: rules of the project layer, which the
    statistics do not know). Built in one place,
    :func:`triage.project.live_replay.ranked_label`.
    """

    event_id: int
    rank: int
    annotator: str
    positive: bool
    skipped: bool
    seconds: float
    kind: str  # the event's kind: triage | overlap | audit | retest | adjudication | certify
    # A history change: the id of the same annotator's earlier event it corrects (unpaid).
    replaces: int | None = None
    # Who is credited with the find while this is the candidate's latest label (the
    # project layer decides: the first annotator who gave the final label); None: the
    # event's own annotator.
    credit: str | None = None


@dataclass(frozen=True)
class DecileLive:
    """Progress in one decile. ``yield_`` is None until something is annotated there."""

    decile: int
    items: int
    annotated: int
    positives: int
    yield_: float | None
    marginal_cost_per_positive: float | None  # inf when annotated but no positive yet
    annotated_share: float | None  # None for an empty decile (pool < 10)


@dataclass(frozen=True, eq=False)
class LiveSnapshot:
    """Immutable picture of the live state; the curve arrays are read-only."""

    pool: int
    events: int
    label_events: int
    annotated: int
    skipped: int
    positives_found: int
    price_model: str
    currency: str
    spend: float
    budget: float | None
    budget_left: float | None
    cost_per_positive: float | None
    value_of_positives: float | None
    recall_from_hint: float | None  # positives_found / total_positives_hint: a hint only
    deciles: tuple[DecileLive, ...]
    current_decile: int | None
    projected_spend_to_finish_decile: float | None
    spend_by_annotator: dict[str, float]
    labels_by_annotator: dict[str, int]
    skips_by_annotator: dict[str, int]
    positives_by_annotator: dict[str, int]
    seconds_by_annotator: dict[str, float]
    unpriced_annotators: tuple[str, ...]  # per hour: annotators without a rate (cost 0)
    curve_annotated: np.ndarray  # after each non-skip label, in annotation order
    curve_positives: np.ndarray

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LiveSnapshot):
            return NotImplemented
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            same = np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
            if not same:
                return False
        return True

    # Unhashable, the way Python documents it; typeshed types object.__hash__ as a method only.
    __hash__ = None  # type: ignore[assignment]
