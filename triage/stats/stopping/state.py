"""Quantities every rule reads, computed once from :class:`AdviceInputs`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage.stats.distributions import norm_ppf
from triage.stats.stopping.bounds import jeffreys_bounds
from triage.stats.stopping.calibration import Calibration, calibration_for
from triage.stats.stopping.types import AdviceInputs


@dataclass(frozen=True)
class State:
    """Derived view of the inputs: depth, counts, audit split and calibration."""

    depth: int
    batch: float
    decile: float
    found: int
    found_top: int
    label: np.ndarray  # per rank: -1 unlabeled, 0 negative, 1 positive
    audit_below_n: int
    audit_below_k: int
    audit_r: int
    audit_k_above: int
    calibration: Calibration | None
    z: float
    unlabelled: int = 0
    exhausted: bool = False

    @property
    def annotated(self) -> int:
        """Items of the pool with a label so far."""
        return int((self.label >= 0).sum())


def build_state(inp: AdviceInputs) -> State:
    """Compute the shared view (depth, found positives, audit split, calibration)."""
    d = min(inp.ranked_depth, inp.pool)
    label = np.full(inp.pool, -1, dtype=np.int8)
    label[inp.ranks - 1] = inp.positive.astype(np.int8)
    # Audit labels are labels too, even if the caller left them out of ``ranks``.
    label[inp.audit_ranks - 1] = inp.audit_positive.astype(np.int8)
    below = inp.audit_ranks > d
    unlabelled = int((label < 0).sum())
    return State(
        depth=d,
        batch=inp.batch_size,
        decile=inp.pool / 10,
        found=int((label == 1).sum()),
        found_top=int((label[:d] == 1).sum()),
        label=label,
        audit_below_n=int(below.sum()),
        audit_below_k=int((below & inp.audit_positive).sum()),
        audit_r=int(inp.audit_positive.sum()),
        audit_k_above=int((~below & inp.audit_positive).sum()),
        calibration=calibration_for(
            inp.pool, np.nonzero(label >= 0)[0] + 1, label[label >= 0] == 1,
            inp.calibrated, inp.raw_scores,
        ),
        z=float(norm_ppf(inp.confidence)),
        unlabelled=unlabelled,
        exhausted=bool(inp.exhausted) if inp.exhausted is not None else unlabelled == 0,
    )


def next_unlabelled(st: State, size: float) -> np.ndarray:
    """0-based indices of the next ``size`` unlabelled items below the depth, in rank order.

    Then any unlabelled holes above it; never more than is left."""
    idx = np.nonzero(st.label < 0)[0]
    idx = np.concatenate([idx[idx >= st.depth], idx[idx < st.depth]])
    return idx[: int(np.floor(max(size, 0.0) + 1e-9))]


def slice_index(pool: int, start: float, size: float) -> np.ndarray:
    """0-based indices of the integer ranks in (start, start + size], clipped to the pool."""
    lo = int(np.floor(max(start, 0.0) + 1e-9))
    hi = int(np.floor(min(start + size, pool) + 1e-9))
    return np.arange(lo, max(lo, hi))


@dataclass(frozen=True)
class YieldEstimate:
    """Expected positives per item for the next slice, from one source."""

    source: str  # recent | audit | calibrated
    point: float
    lower: float
    upper: float
    stop_allowed: bool  # a source that may justify a confident stop


def recent_window(st: State) -> tuple[int, int]:
    """(annotated items, positives) in the last batch of the ranked pass: ranks (d−b, d]."""
    idx = slice_index(st.label.size, st.depth - st.batch, st.batch)
    idx = idx[idx < st.depth]
    lab = st.label[idx]
    return int((lab >= 0).sum()), int((lab == 1).sum())


def calibration_consistent(st: State, confidence: float) -> tuple[bool | None, float, int]:
    """Do the calibrated probabilities agree with the last batch's labels?

    Returns (verdict or None when there is no last batch, expected, observed). Agreement
    means the observed count lies within a two-sided interval of the Poisson-binomial
    expectation, widened by the calibration's own parameter uncertainty.
    """
    cal = st.calibration
    idx = slice_index(st.label.size, st.depth - st.batch, st.batch)
    idx = idx[(idx < st.depth) & (st.label[idx] >= 0)]
    if cal is None or idx.size == 0:
        return None, float("nan"), 0
    z2 = float(norm_ppf(1 - (1 - confidence) / 2))
    expected, se = cal.masked_sum(idx, z2)
    p = cal.p[idx]
    sd = float(np.sqrt((p * (1 - p)).sum() + se**2))
    observed = int((st.label[idx] == 1).sum())
    return abs(observed - expected) <= z2 * sd + 0.5, expected, observed


def yield_sources(inp: AdviceInputs, st: State) -> dict[str, YieldEstimate]:
    """Per-item yield of the next batch from every available source."""
    out: dict[str, YieldEstimate] = {}
    n_w, x_w = recent_window(st)
    if n_w:
        lo, hi = jeffreys_bounds(x_w, n_w, inp.confidence)
        out["recent"] = YieldEstimate("recent", x_w / n_w, float(lo), float(hi), True)
    if st.audit_below_n:
        lo, hi = jeffreys_bounds(st.audit_below_k, st.audit_below_n, inp.confidence)
        # The audit below the depth averages the whole unreviewed region, where yield falls
        # with rank: it understates the next batch, so it never justifies a stop on its own.
        out["audit"] = YieldEstimate(
            "audit", st.audit_below_k / st.audit_below_n,
            float(lo), float(hi), False,
        )
    cal = st.calibration
    if cal is not None:
        idx = next_unlabelled(st, st.batch)
        if idx.size:
            point, se = cal.masked_sum(idx, st.z)
            n = idx.size
            consistent, _, _ = calibration_consistent(st, inp.confidence)
            out["calibrated"] = YieldEstimate(
                "calibrated", point / n, max(point - st.z * se, 0) / n,
                min(point + st.z * se, n) / n, consistent is not False,
            )
    return out


def primary_source(sources: dict[str, YieldEstimate]) -> YieldEstimate | None:
    """The estimate the advice rests on: consistent calibration, else recent yield, else audit."""
    cal = sources.get("calibrated")
    if cal is not None and cal.stop_allowed:
        return cal
    return sources.get("recent") or sources.get("audit") or cal
