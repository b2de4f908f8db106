"""Plain data for stopping advice: what goes in (:class:`AdviceInputs`) and what comes out.

The project side (``triage advise``) only has to fill :class:`AdviceInputs`; everything else
is computed by :func:`triage.stats.stopping.advise`. Ranks are 1-based positions under the active
model's ranking (or any labeling order), so rank ``r`` is the r-th candidate a follower of
that ranking would see.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

VERDICTS = ("continue", "stop", "pause", "warn")
MIN_OVERLAP_ITEMS = 30
ALPHA_UNRELIABLE = 0.667
# A recall interval at least this wide (50 percentage points) says nothing a point estimate
# could add to: every surface then says "too early to estimate recall: between X and Y".
UNINFORMATIVE_WIDTH = 0.5


def recall_informative(lower: float | None, upper: float | None) -> bool:
    """Is the recall interval narrow enough (under 50 points) to quote a point estimate?"""
    if lower is None or upper is None or lower != lower or upper != upper:
        return False
    return upper - lower < UNINFORMATIVE_WIDTH


def _int_array(values: Any) -> np.ndarray:
    return np.asarray(values if values is not None else [], dtype=np.int64).reshape(-1)


def _bool_array(values: Any) -> np.ndarray:
    return np.asarray(values if values is not None else [], dtype=bool).reshape(-1)


@dataclass(frozen=True, eq=False)  # arrays inside: identity, not element-wise, equality
class AdviceInputs:
    """Everything the rules need, as plain numbers and arrays.

    ``ranks``/``positive``: every annotated candidate (skips excluded), audit items included,
    with its 1-based rank and whether its final label is positive. ``audit_ranks``/
    ``audit_positive``: the audit sample, drawn uniformly at random from the whole pool
    (these candidates normally also appear in ``ranks``). ``calibrated``: probability of
    positive for every rank (index ``r - 1``); or give ``raw_scores`` (same indexing) and a
    Platt calibration is fitted on the labels so far. ``batch``: items in "the next batch"
    (default: 1% of the pool; may be fractional, slices are costed as ``price * size``).
    ``depth``: how far the ranked pass has gone; default is the largest annotated rank that
    is not an audit item.
    """

    pool: int
    ranks: np.ndarray
    positive: np.ndarray
    audit_ranks: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    audit_positive: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    calibrated: np.ndarray | None = None
    raw_scores: np.ndarray | None = None
    spend: float = 0.0
    budget: float | None = None
    price: float = 1.0
    currency: str = "USD"
    value_per_positive: float | None = None
    target_recall: float = 0.8
    confidence: float = 0.95
    alpha: float | None = None
    overlap_items: int | None = None
    batch: float | None = None
    depth: int | None = None
    exhausted: bool | None = None  # nothing left to serve (None: every candidate labelled)
    audit_rate: float | None = None
    cert_found: int | None = None      # certification sample: positives known at its start,
    cert_remaining: int | None = None  # unlabelled items it was drawn from,
    cert_n: int = 0                    # items of its decided prefix (in sample order)
    cert_k: int = 0                    # and positives among them (skips count as positives)
    cert_skipped: int = 0              # of those, skipped or tied (counted as positives)
    cert_waiting: int = 0              # decided past the prefix: not counted yet
    ranking: str = "frozen"            # "adaptive": the order followed learns from the labels

    def __post_init__(self) -> None:
        # Normalise array-likes so callers may pass lists; frozen, hence object.__setattr__.
        for name, conv in (("ranks", _int_array), ("positive", _bool_array),
                           ("audit_ranks", _int_array), ("audit_positive", _bool_array)):
            object.__setattr__(self, name, conv(getattr(self, name)))
        for name in ("calibrated", "raw_scores"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, np.asarray(value, dtype=float).reshape(-1))
        problems = self.problems()
        if problems:
            from triage.base.errors import TriageError

            pool = self.pool
            raise TriageError("cannot advise: " + "; ".join({
                "empty_pool": "the pool is empty",
                "ranks_length": "ranks and positive flags differ in length",
                "audit_length": "audit ranks and audit positive flags differ in length",
                "ranks_range": f"ranks must lie between 1 and the pool size {pool}",
                "audit_ranks_range": f"audit ranks must lie between 1 and the pool size {pool}",
                "rank_twice": "a rank is annotated twice; give each candidate's final label once",
                "calibrated_values": "calibrated needs one finite value per candidate in the pool",
                "raw_scores_values": "raw_scores needs one finite value per candidate in the pool",
                "calibrated_range": "calibrated scores must be probabilities between 0 and 1",
                "target": "target recall must be in (0, 1]",
                "confidence": "confidence must be in [0.5, 1)",
                "price": "the price per annotation must be positive",
                "batch": "the batch size must be positive",
            }[code] for code in problems))

    def problems(self) -> list[str]:
        """Codes of what makes these inputs unusable (empty when they are fine)."""
        out = []
        if self.pool < 1:
            out.append("empty_pool")
        if self.ranks.shape != self.positive.shape:
            out.append("ranks_length")
        if self.audit_ranks.shape != self.audit_positive.shape:
            out.append("audit_length")
        for code, arr in (("ranks_range", self.ranks), ("audit_ranks_range", self.audit_ranks)):
            if arr.size and (arr.min() < 1 or arr.max() > self.pool):
                out.append(code)
        if self.ranks.size != np.unique(self.ranks).size:
            out.append("rank_twice")
        for name in ("calibrated", "raw_scores"):
            arr = getattr(self, name)
            if arr is not None and (arr.size != self.pool or not np.isfinite(arr).all()):
                out.append(f"{name}_values")
        if self.calibrated is not None and ((self.calibrated < 0) | (self.calibrated > 1)).any():
            out.append("calibrated_range")
        if not 0 < self.target_recall <= 1:
            out.append("target")
        if not 0.5 <= self.confidence < 1:
            out.append("confidence")
        if not self.price > 0:
            out.append("price")
        if self.batch is not None and not self.batch > 0:
            out.append("batch")
        return out

    @property
    def batch_size(self) -> float:
        """Items in the next batch: as given, else 1% of the pool (at least one item)."""
        return float(self.batch) if self.batch is not None else max(1.0, self.pool / 100)

    @property
    def ranked_depth(self) -> int:
        """How far down the ranking the ranked pass has gone."""
        if self.depth is not None:
            return int(self.depth)
        ranked = np.setdiff1d(self.ranks, self.audit_ranks)
        return int(ranked.max()) if ranked.size else 0


@dataclass(frozen=True)
class RuleResult:
    """One rule's opinion: a verdict, a reason code and the numbers behind it.

    No words: ``triage.views.rule_words`` turns (rule, code, numbers) into the one sentence
    every surface shows."""

    rule: str
    verdict: str
    code: str
    numbers: dict[str, Any]
    validity: str = ""   # "valid" or "heuristic" for the ranking followed (stopping.validity)


@dataclass(frozen=True)
class Estimate:
    """A point estimate with a confidence interval and how it was made (NaN = undefined)."""

    point: float
    lower: float
    upper: float
    method: str


@dataclass(frozen=True)
class NextBatch:
    """The next slice of the ranking: its size, expected positives and cost."""

    items: float
    expected_positives: float
    cost: float
    cost_per_positive: float


@dataclass(frozen=True)
class Advice:
    """The combined decision with every rule's reason."""

    decision: str
    reasons: list[RuleResult]
    estimated_recall: Estimate
    estimated_total_positives: Estimate
    next_batch: NextBatch
    deciding: str | None    # the rule that decided (None: the marginal value, by default)
    remaining: dict[str, Any] = field(default_factory=dict)   # the headline estimate of what is left
    estimates: dict[str, Any] = field(default_factory=dict)   # every estimate, by method
    certification: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, Any] = field(default_factory=dict)      # pool, labelled, found, unlabelled
    known: dict[str, Any] = field(default_factory=dict)       # one-sided facts (known.Known)
    currency: str = "USD"
    plan: dict[str, Any] = field(default_factory=dict)        # plan.narrowing_plan
    ranking: str = "frozen"            # the ranking followed: frozen or adaptive (validity)
