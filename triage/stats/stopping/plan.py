"""What it would take to know more: random labels below the frontier that narrow recall.

The width of the recall interval is set by the random labels below the depth of the ranked
pass (the frontier), not by the ranked labels. For a target half-width h (±25 and ±10
points), :func:`narrowing_plan` finds the fewest extra random labels below the frontier
after which the two-sided interval is at most 2h wide in at least ``PLAN_SHARE`` of the
futures, whatever the rate of positives below the frontier within the central 95% of what
is known of it:

- the rates tried are 13 quantiles from 2.5% to 97.5% of the Jeffreys posterior of the
  rate below the frontier given the audit items there (k of n): robust, not averaged, so a
  lucky first audit item does not promise a narrow interval;
- at each rate, m more random labels find Binomial(m, rate) more positives (``DRAWS``
  draws, fixed seed); the interval is then found' / (found' + unlabelled' × [lower, upper])
  with the two-sided Clopper–Pearson interval of the rate below the frontier (the
  unstratified form of the advice's estimate);
- the plan aims at ``WIDTH_MARGIN`` of the target width, since the advice's stratified
  interval runs a few points wider than this unstratified forecast;
- m is searched on a doubling grid refined by bisection, never above the unlabelled items.

Beside each plan stands what the same money buys from the top of the ranking: the recent
yield of the ranked pass times the labels (the expected positives found instead).
``tests/test_stopping_plan.py`` backtests the ±25 plan: after that many random labels the
advice's interval is that narrow in at least 80% of runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from triage.stats.distributions import beta_ppf
from triage.stats.stopping.state import State, recent_window
from triage.stats.stopping.types import AdviceInputs

HALF_WIDTHS = (0.25, 0.10)
PLAN_SHARE = 0.8     # the plan's interval is that narrow in this share of drawn futures
RATE_QUANTILES = np.linspace(0.025, 0.975, 13)
# The advice's stratified interval runs a few points wider than the unstratified one the
# plan forecasts (tests/test_stopping_plan.py measured it): aim at this share of the width.
WIDTH_MARGIN = 0.85
DRAWS = 200
SEED = 20261127


def _widths(found: int, unl: int, n: int, k: int, m: int, rates: np.ndarray,
            rng: np.random.Generator, confidence: float) -> np.ndarray:
    """Recall interval widths after ``m`` more random labels below the frontier, per draw."""
    m = min(m, unl)
    new_k = rng.binomial(m, rates)
    n2, k2 = n + m, k + new_k
    tail = (1 - confidence) / 2
    with np.errstate(invalid="ignore"):
        lo = np.where(k2 <= 0, 0.0, beta_ppf(tail, np.maximum(k2, 1e-9), n2 - k2 + 1))
        hi = np.where(k2 >= n2, 1.0, beta_ppf(1 - tail, k2 + 1, np.maximum(n2 - k2, 1e-9)))
    f2 = found + new_k
    u2 = unl - m
    rec_hi = np.where(f2 + u2 * lo > 0, f2 / np.maximum(f2 + u2 * lo, 1e-12), 1.0)
    rec_lo = np.where(f2 + u2 * hi > 0, f2 / np.maximum(f2 + u2 * hi, 1e-12), 1.0)
    return np.asarray(rec_hi - rec_lo, dtype=float)


def labels_to_narrow(found: int, unl: int, n: int, k: int, half_width: float,
                     confidence: float) -> int | None:
    """Fewest extra random labels below the frontier for a ±``half_width`` recall interval.

    None when even labelling all of the unlabelled would not do (it always does: then the
    interval is exact), so in practice an int; 0 when it is already that narrow."""
    if unl <= 0:
        return 0
    rates = np.repeat(np.asarray(beta_ppf(RATE_QUANTILES, k + 0.5, n - k + 0.5)), DRAWS)

    def ok(m: int) -> bool:
        w = _widths(found, unl, n, k, m, rates, np.random.default_rng(SEED + m), confidence)
        share = np.quantile(w.reshape(RATE_QUANTILES.size, DRAWS), PLAN_SHARE, axis=1)
        return bool(share.max() <= 2 * half_width * WIDTH_MARGIN + 1e-12)

    if ok(0):
        return 0
    hi = 1
    while hi < unl and not ok(hi):
        hi = min(hi * 2, unl)
    if hi >= unl and not ok(unl):
        return None
    lo = hi // 2          # lo fails (or is 0, which failed above), hi passes
    while hi - lo > max(1, hi // 50):   # within 2%: a plan, not a promise to the label
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def narrowing_plan(inp: AdviceInputs, st: State) -> dict[str, Any]:
    """Random labels below the frontier (and their cost) for ±25 and ±10 recall points.

    Beside each, the positives the same labels would find below the frontier or from the
    top of the ranking at the recent yield."""
    n_w, x_w = recent_window(st)
    top_yield = x_w / n_w if n_w else None
    below_rate = (st.audit_below_k + 0.5) / (st.audit_below_n + 1)
    rows = []
    for h in HALF_WIDTHS:
        m = labels_to_narrow(st.found, st.unlabelled, st.audit_below_n, st.audit_below_k,
                             h, inp.confidence)
        rows.append({
            "half_width": h, "labels": m, "cost": None if m is None else m * inp.price,
            "positives_below": None if m is None else m * below_rate,
            "positives_from_top": (None if m is None or top_yield is None else
                                   min(m, st.unlabelled) * top_yield),
        })
    return {"depth": st.depth, "audit_below": st.audit_below_n, "top_yield": top_yield,
            "confidence": inp.confidence, "share": PLAN_SHARE, "rows": rows}
