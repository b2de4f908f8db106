"""Qt-free data preparation for the live panels (gain, spend, marginal-decile yield).

The ``ui.panels`` widgets only draw what these functions return, so the arithmetic
(baselines, view range, downsampling, money formatting) is unit-tested without Qt.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from triage.stats import common
from triage.stats.common import decile_sizes
from triage.stats.live import DecileLive
from triage.stats.live import LiveSnapshot as LiveSnapshot  # ui/ takes the type from here
from triage.views.advice import RecallBand as RecallBand  # the band is the advice state's
from triage.views.advice import recall_band as recall_band
from triage.views.formatting import format_count
from triage.views.formatting import format_money as format_money  # ui/ takes it from here
from triage.views.formatting import format_share as format_share

MAX_POINTS = 2000  # a curve never needs more points than a panel has pixels


@dataclass(frozen=True)
class PanelInfo:
    """Per-project facts the panels need besides the live snapshot.

    ``offline_curves`` comes from ``Project.offline_curves()`` (cumulative gold positives
    in each model's rank order); compute it once per project open, not per label.
    """

    pool: int
    currency: str = "USD"
    budget: float | None = None
    value_per_positive: float | None = None
    price_per_item: float = 0.0
    offline_curves: dict[str, np.ndarray] = field(default_factory=dict)
    active_model: str | None = None
    annotator_rows: list[dict[str, Any]] = field(default_factory=list)


# -- shared arithmetic -----------------------------------------------------------------

def downsample(x: np.ndarray, y: np.ndarray, max_points: int = MAX_POINTS
               ) -> tuple[np.ndarray, np.ndarray]:
    """At most ``max_points`` points of a monotone curve, keeping the first and last."""
    return common.downsample(x, y, max_points)


def decile_boundaries(pool: int) -> list[int]:
    """Item counts at the end of deciles 1..9 (where gridlines go); empty deciles merge."""
    ends = np.cumsum(decile_sizes(pool))[:-1]
    return sorted({int(e) for e in ends if 0 < e < pool})


def random_baseline(annotated: np.ndarray, pool: int, total_positives: float) -> np.ndarray:
    """Expected positives after annotating ``n`` of ``pool`` candidates in random order.

    Random order finds positives at the pool's rate: ``n * total_positives / pool``.
    """
    n = np.asarray(annotated, dtype=np.float64)
    if pool <= 0:
        return np.zeros_like(n)
    return n * float(total_positives) / pool


def view_limit(annotated: int, pool: int) -> int:
    """Right edge of the gain chart: through the current decile, or zoomed on the work.

    Showing the whole pool would make the live curve a speck for big pools; showing only
    what is done hides the next decile. So: the end of the decile the work is in, unless
    the curve would then fill under a fifth of the width, then 1.25 × annotated.
    """
    if pool <= 0:
        return 1
    ends = [*decile_boundaries(pool), pool]
    end = next(e for e in ends if e >= max(annotated, 1))
    if annotated > 0 and annotated * 5 < end:
        end = min(pool, max(10, math.ceil(annotated * 1.25)))
    return max(end, 1)


# -- cumulative gain -------------------------------------------------------------------

@dataclass(frozen=True)
class GainData:
    annotated: np.ndarray  # x of the live curve (starts at 0)
    positives: np.ndarray  # y of the live curve
    baseline: np.ndarray  # y of the random-order baseline at baseline_x
    baseline_x: np.ndarray
    baseline_label: str
    offline: dict[str, tuple[np.ndarray, np.ndarray]]  # model -> (x, y), within the view
    decile_lines: list[int]
    current_span: tuple[int, int] | None  # items before/through the current decile
    xlim: int
    ylim: float
    pool: int
    empty: bool
    summary: str
    band: RecallBand | None = None  # the stopping advice's estimate of all positives

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON and tests (curves as lists)."""
        return {
            "band": None if self.band is None else self.band.as_dict(),
            "annotated": self.annotated.tolist(), "positives": self.positives.tolist(),
            "baseline": self.baseline.tolist(), "baseline_x": self.baseline_x.tolist(),
            "baseline_label": self.baseline_label,
            "offline": {m: y.tolist() for m, (_x, y) in self.offline.items()},
            "offline_x": {m: x.tolist() for m, (x, _y) in self.offline.items()},
            "decile_lines": list(self.decile_lines),
            "current_span": None if self.current_span is None else list(self.current_span),
            "xlim": self.xlim, "ylim": self.ylim,
            "pool": self.pool, "empty": self.empty, "summary": self.summary,
        }


def offline_label(model: str) -> str:
    """The legend entry of a model's offline curve: truth (gold), not an estimate."""
    return f"truth: {model} order on gold labels (offline)"


def gold_total(offline_curves: dict[str, np.ndarray]) -> int | None:
    """Gold positives in the pool (every model's curve ends at the same total)."""
    for curve in offline_curves.values():
        if len(curve):
            return int(curve[-1])
    return None


def gain_data(snap: LiveSnapshot, info: PanelInfo, max_points: int = MAX_POINTS) -> GainData:
    """What the cumulative-gain panel draws for this snapshot."""
    pool = snap.pool
    x = np.concatenate([[0], np.asarray(snap.curve_annotated, dtype=np.int64)])
    y = np.concatenate([[0], np.asarray(snap.curve_positives, dtype=np.int64)])
    x, y = downsample(x, y, max_points)
    xlim = view_limit(snap.annotated, pool)
    total = gold_total(info.offline_curves)
    bx = np.array([0, xlim], dtype=np.float64)
    if total is not None:
        label = (f"truth: random order, gold has {format_count(total)} "
                 f"positive{'' if total == 1 else 's'} in the pool")
        baseline = random_baseline(bx, pool, total)
    elif snap.annotated:
        rate = snap.positives_found / snap.annotated
        label = f"random order at the observed yield ({format_share(rate)})"
        baseline = random_baseline(bx, pool, rate * pool)
    else:
        label, baseline, bx = "", np.zeros(0), np.zeros(0)
    offline = {}
    for model, curve in info.offline_curves.items():
        n = min(len(curve), xlim)
        ox = np.arange(0, n + 1, dtype=np.int64)
        oy = np.concatenate([[0], np.asarray(curve[:n], dtype=np.int64)])
        offline[model] = downsample(ox, oy, max_points)
    tops = [float(y.max()) if y.size else 0.0, *(float(b.max()) for b in [baseline] if b.size),
            *(float(oy.max()) for _ox, oy in offline.values() if oy.size)]
    ylim = max(1.0, max(tops) * 1.08)
    empty = snap.annotated == 0
    if empty:
        summary = "Nothing annotated yet: label the first candidate to start the curve."
    else:
        summary = (f"{snap.positives_found:,} positives in {snap.annotated:,} annotated "
                   f"({format_share(snap.annotated / pool if pool else None)} of the pool)")
    return GainData(x, y, baseline, bx, label, offline,
                    [b for b in decile_boundaries(pool) if b < xlim],
                    decile_span(pool, snap.current_decile), xlim, ylim, pool, empty, summary)


def decile_span(pool: int, decile: int | None) -> tuple[int, int] | None:
    """(items before, items through) decile ``decile``; None when there is none."""
    if decile is None or pool <= 0:
        return None
    ends = np.cumsum(decile_sizes(pool))
    return (int(ends[decile - 2]) if decile > 1 else 0, int(ends[decile - 1]))


# -- spend -----------------------------------------------------------------------------

@dataclass(frozen=True)
class SpendData:
    currency: str
    spent: float
    budget: float | None
    remaining: float | None
    spent_share: float | None  # of the budget; None without a budget
    over_budget: bool
    cost_per_positive: float | None
    projected: float | None  # to finish the current decile
    current_decile: int | None
    value_found: float | None
    by_annotator: list[tuple[str, float]]  # highest spend first
    lines: list[tuple[str, str]]  # (caption, figure) as shown
    headline: str  # share of the budget used, or why there is none
    warning: str

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON and tests."""
        return {
            "currency": self.currency, "spent": self.spent, "budget": self.budget,
            "remaining": self.remaining, "spent_share": self.spent_share,
            "over_budget": self.over_budget, "cost_per_positive": self.cost_per_positive,
            "projected": self.projected, "current_decile": self.current_decile,
            "value_found": self.value_found,
            "by_annotator": [list(r) for r in self.by_annotator],
            "lines": [list(r) for r in self.lines], "headline": self.headline,
            "warning": self.warning,
        }


def spend_data(snap: LiveSnapshot, info: PanelInfo) -> SpendData:
    """Spent against budget, remaining, cost per positive, projection, per annotator."""
    cur = snap.currency or info.currency
    money = lambda v: format_money(v, cur)  # noqa: E731
    budget = snap.budget
    share = snap.spend / budget if budget else (None if budget is None else math.inf)
    over = budget is not None and snap.spend > budget
    by = sorted(snap.spend_by_annotator.items(), key=lambda kv: (-kv[1], kv[0]))
    lines = [("Spent", money(snap.spend))]
    if budget is None:
        headline = "no budget set"
    elif over:
        headline = "over budget"
    elif share is not None and math.isfinite(share):
        headline = f"{format_share(share, 0)} of the budget used"
    else:
        headline = "budget of zero"
    left = snap.budget_left  # None exactly when there is no budget
    if budget is None or left is None:
        lines.append(("Budget", "no budget set"))
    else:
        lines.append(("Budget", money(budget)))
        lines.append(("Over budget by" if over else "Remaining",
                      money(abs(left) if over else left)))
    cpp = snap.cost_per_positive
    lines.append(("Cost per positive", money(cpp) if cpp is not None
                  else ("no positive yet" if snap.events else "—")))
    if snap.current_decile is None:
        lines.append(("To finish decile", "all deciles done"))
    else:
        lines.append((f"To finish decile {snap.current_decile}",
                      money(snap.projected_spend_to_finish_decile)))
    if snap.value_of_positives is not None:
        lines.append(("Value found", money(snap.value_of_positives)))
    warning = ""
    if snap.unpriced_annotators:
        warning = "no hourly rate (counted as 0): " + ", ".join(snap.unpriced_annotators)
    return SpendData(cur, snap.spend, budget, snap.budget_left, share, over, cpp,
                     snap.projected_spend_to_finish_decile, snap.current_decile,
                     snap.value_of_positives, by, lines, headline, warning)


# -- marginal-decile yield -------------------------------------------------------------

@dataclass(frozen=True)
class YieldData:
    deciles: list[int]
    items: list[int]
    annotated: list[int]
    positives: list[int]
    yields: list[float | None]
    shares: list[float | None]
    marginal: list[float | None]
    bar_labels: list[str]  # marginal cost per positive as shown above each bar
    current: int | None
    empty: bool
    # Is the decile's yield bar drawn? Not from fewer than MIN_YIELD_ITEMS labels in a decile
    # not wholly annotated (one audit label deep in the ranking drew a 100 % bar): the panel
    # shows "n=1" there instead.
    drawn: list[bool] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON and tests."""
        return {k: getattr(self, k) for k in (
            "deciles", "items", "annotated", "positives", "yields", "shares", "marginal",
            "bar_labels", "current", "empty", "drawn")}


MIN_YIELD_ITEMS = 5   # fewer labels in a decile say next to nothing of its yield (±40 %+)


def _bar_label(d: DecileLive, currency: str) -> str:
    if d.items == 0:
        return "empty"
    if d.marginal_cost_per_positive is None:
        return ""
    if math.isinf(d.marginal_cost_per_positive):
        return "no pos."
    return format_money(d.marginal_cost_per_positive, currency)


def yield_data(snap: LiveSnapshot, info: PanelInfo) -> YieldData:
    """One entry per decile: yield, annotated share, marginal cost per positive."""
    cur = snap.currency or info.currency
    ds = snap.deciles
    return YieldData(
        deciles=[d.decile for d in ds], items=[d.items for d in ds],
        annotated=[d.annotated for d in ds], positives=[d.positives for d in ds],
        yields=[d.yield_ for d in ds], shares=[d.annotated_share for d in ds],
        marginal=[d.marginal_cost_per_positive for d in ds],
        bar_labels=[_bar_label(d, cur) if _telling(d) or not d.annotated
                    else f"n={d.annotated}" for d in ds], current=snap.current_decile,
        empty=snap.annotated == 0, drawn=[_telling(d) for d in ds],
    )


def _telling(d: DecileLive) -> bool:
    """Does the decile's yield say something: MIN_YIELD_ITEMS labels, or the whole decile
    (then it is the decile's true yield)?"""
    return d.annotated >= MIN_YIELD_ITEMS or (d.annotated > 0 and d.annotated == d.items)


# -- offline model comparison (lead view) ----------------------------------------------

def budget_items(snap: LiveSnapshot, info: PanelInfo) -> int | None:
    """Candidates the budget pays for: per item exactly; per hour at the average so far."""
    if snap.budget is None:
        return None
    if snap.price_model == "per_item":
        price = info.price_per_item
    else:
        price = snap.spend / snap.events if snap.events else 0.0
    if price <= 0:
        return None
    return int(min(snap.pool, math.floor(snap.budget / price + 1e-9)))


@dataclass(frozen=True)
class ComparisonData:
    curves: dict[str, tuple[np.ndarray, np.ndarray]]  # whole pool, downsampled
    at_budget: dict[str, int]  # gold positives in each model's top budget_items
    budget_items: int | None
    total: int | None
    pool: int
    active_model: str | None

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON and tests (each model's curve as a list)."""
        return {"curves": {m: y.tolist() for m, (_x, y) in self.curves.items()},
                "at_budget": dict(self.at_budget), "budget_items": self.budget_items,
                "total": self.total, "pool": self.pool, "active_model": self.active_model}


def comparison_data(snap: LiveSnapshot, info: PanelInfo,
                    max_points: int = MAX_POINTS) -> ComparisonData:
    """Each model's offline gain over the whole pool and what the budget would buy."""
    k = budget_items(snap, info)
    curves, at_budget = {}, {}
    for model, curve in info.offline_curves.items():
        curve = np.asarray(curve, dtype=np.int64)
        x = np.arange(0, curve.size + 1, dtype=np.int64)
        curves[model] = downsample(x, np.concatenate([[0], curve]), max_points)
        if k is not None:
            at_budget[model] = int(curve[k - 1]) if k > 0 and curve.size else 0
    return ComparisonData(curves, at_budget, k, gold_total(info.offline_curves),
                          snap.pool, info.active_model)
