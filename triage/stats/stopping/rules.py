"""The five stopping rules. Each returns a :class:`RuleResult`; none of them decides alone."""

from __future__ import annotations

import math

import numpy as np

from triage.stats.stopping.bounds import (
    clopper_pearson_lower,
    hypergeometric_pvalue,
    hypergeometric_recall_lower,
    qbcb_min_positives,
    qbcb_required,
)
from triage.stats.stopping.knee import MIN_REVIEWED, knee_at
from triage.stats.stopping.remainder import Remainder
from triage.stats.stopping.state import (
    State,
    YieldEstimate,
    calibration_consistent,
    next_unlabelled,
    primary_source,
    yield_sources,
)
from triage.stats.stopping.types import (
    ALPHA_UNRELIABLE,
    MIN_OVERLAP_ITEMS,
    AdviceInputs,
    Estimate,
    NextBatch,
    RuleResult,
)

NAN = float("nan")


def budget_rule(inp: AdviceInputs, st: State) -> RuleResult:
    """What is left, what it buys; warn near the end, stop when it buys nothing more."""
    batch_cost = inp.price * st.batch
    left_items = 0 if st.exhausted else st.unlabelled
    if inp.budget is None:
        return RuleResult("budget", "continue", "no_budget",
                          {"budget": None, "spent": inp.spend, "left": None, "overspent": 0.0,
                           "annotations_left": None, "annotations_affordable": None})
    left = inp.budget - inp.spend
    buys = max(int(math.floor(left / inp.price + 1e-9)), 0)
    nums = {"budget": inp.budget, "spent": inp.spend, "left": max(left, 0.0),
            "overspent": max(-left, 0.0), "annotations_left": min(buys, left_items),
            "annotations_affordable": buys, "batch_cost": batch_cost,
            "unlabelled_items": left_items}
    if buys < 1:
        return RuleResult("budget", "stop", "spent", nums)
    if left_items == 0:
        return RuleResult("budget", "continue", "nothing_to_buy", nums)
    if left < 0.1 * inp.budget or left < batch_cost:
        return RuleResult("budget", "warn", "low", nums)
    return RuleResult("budget", "continue", "buys", nums)


MIN_EXPECTED = 0.01  # fewer expected positives than this read "none expected"


def _slice_expectation(inp: AdviceInputs, st: State, source: YieldEstimate,
                       size: float) -> tuple[float, float, float]:
    """Expected positives (point, lower, upper) in the next ``size`` unlabelled items."""
    cal = st.calibration
    items = min(size, st.unlabelled)
    if cal is not None and source.source == "calibrated":
        idx = next_unlabelled(st, items)
        point, se = cal.masked_sum(idx, st.z) if idx.size else (0.0, 0.0)
        out = point, max(point - st.z * se, 0.0), point + st.z * se
    else:
        out = source.point * items, source.lower * items, source.upper * items
    # Never more positives than items.
    return tuple(float(min(max(x, 0.0), items)) for x in out)  # type: ignore[return-value]


def _nothing_left(st: State) -> tuple[RuleResult, NextBatch]:
    nums = {"batch_items": 0, "batch_cost": 0.0, "expected_positives": 0.0,
            "cost_per_positive": None, "unlabelled": st.unlabelled}
    code = "all_skipped" if st.unlabelled else "nothing_left"
    return RuleResult("marginal_value", "stop", code, nums), NextBatch(0.0, 0.0, 0.0, NAN)


def _per_positive(cost: float, expected: float) -> float:
    return cost / expected if expected >= MIN_EXPECTED else math.inf


def marginal_rule(inp: AdviceInputs, st: State) -> tuple[RuleResult, NextBatch]:
    """Expected cost per positive of the next batch against the value of a positive.

    Stops only when even the upper confidence bound of the yield does not pay for the batch.
    """
    if st.exhausted or st.unlabelled == 0:
        return _nothing_left(st)
    sources = yield_sources(inp, st)
    main = primary_source(sources)
    size = min(st.batch, st.unlabelled)
    cost = inp.price * size
    if main is None:
        nb = NextBatch(size, NAN, cost, NAN)
        return RuleResult("marginal_value", "continue", "no_labels",
                          {"batch_items": size, "batch_cost": cost}), nb
    exp, exp_lo, exp_hi = _slice_expectation(inp, st, main, size)
    cpp = _per_positive(cost, exp)
    cpp_conservative = _per_positive(cost, exp_hi)
    dec_size = min(st.decile, st.unlabelled)
    dec_exp, _, dec_hi = _slice_expectation(inp, st, main, dec_size)
    dec_cost = inp.price * dec_size
    consistent, cal_expected, cal_observed = calibration_consistent(st, inp.confidence)
    nums = {
        "source": main.source,
        "calibration": st.calibration.method if st.calibration else None,
        "calibration_labels": st.calibration.fitted_on if st.calibration else None,
        "batch_items": size, "batch_cost": cost,
        "expected_positives": exp, "expected_positives_lower": exp_lo,
        "expected_positives_upper": exp_hi, "cost_per_positive": cpp,
        "cost_per_positive_at_upper_yield": cpp_conservative,
        "decile_items": dec_size, "decile_cost": dec_cost, "decile_expected_positives": dec_exp,
        "decile_cost_per_positive": _per_positive(dec_cost, dec_exp),
        "value_per_positive": inp.value_per_positive,
        "yields": {k: {"point": v.point, "lower": v.lower, "upper": v.upper}
                   for k, v in sources.items()},
        "calibration_consistent": consistent,
        "calibration_last_batch_expected": cal_expected,
        "calibration_last_batch_observed": cal_observed,
        "extrapolates_below_rank": st.calibration.extrapolates_below_rank if st.calibration else None,
    }
    nums["confidence"] = inp.confidence
    nums["few_expected"] = MIN_EXPECTED
    nb = NextBatch(size, exp, cost, cpp)
    if inp.value_per_positive is None:
        return RuleResult("marginal_value", "continue", "no_value", nums), nb
    value = inp.value_per_positive
    verdict, code = "continue", "pays"
    if main.stop_allowed and cpp_conservative > value:
        verdict, code = "stop", "not_even_optimistic"
    elif cpp > value:
        verdict, code = "warn", "probably_not"
    return RuleResult("marginal_value", verdict, code, nums), nb


def recall_estimate(rem: Remainder) -> tuple[Estimate, Estimate]:
    """(recall, positives in the pool) from the headline estimate of what is left."""
    found = rem.found
    method = rem.method
    if rem.method == "exact":
        rec = 1.0 if found else NAN
        return (Estimate(rec, rec, rec, method),
                Estimate(float(found), float(found), float(found), method))
    if found == 0:  # 0 of an unknown number: undefined when none is left, else 0
        return (Estimate(NAN, NAN, NAN, method),
                Estimate(rem.positives, rem.lower, rem.upper, method))
    total = Estimate(found + rem.positives, found + rem.lower, found + rem.upper, method)
    return Estimate(rem.recall, rem.recall_lower, rem.recall_upper, method), total


def recall_rule(inp: AdviceInputs, st: State, rem: Remainder,
                model: Remainder | None = None) -> tuple[RuleResult, Estimate, Estimate]:
    """Recall against the target: exact when nothing is unlabelled, else QBCB decides.

    The estimate of what is left is reported alongside."""
    conf, t = inp.confidence, inp.target_recall
    r, k = st.audit_r, st.audit_k_above
    est, total = recall_estimate(rem)
    nums: dict = {"target": t, "confidence": conf, "audit_positives": r,
                  "audit_positives_above_depth": k, "depth": st.depth,
                  "found": st.found, "unlabelled": st.unlabelled,
                  "estimated_recall": est.point, "estimate_method": rem.method,
                  "model_recall": model.recall if model else NAN,
                  "model_recall_lower": model.recall_lower if model else NAN}
    if rem.method == "exact":
        return (RuleResult("recall", "stop", "exact_found" if st.found else "exact_none", nums),
                est, total)
    qb_lower = float(clopper_pearson_lower(k, r, conf)) if r else NAN
    nums["qbcb_lower"] = qb_lower
    nums["qbcb_required"] = qbcb_required(r, t, conf)
    nums["qbcb_min_positives"] = qbcb_min_positives(t, conf)
    p_h = float(hypergeometric_pvalue(st.found_top, inp.pool - st.depth, st.audit_below_n,
                                      st.audit_below_k, t))
    nums["hypergeometric_p"] = p_h
    nums["hypergeometric_lower"] = hypergeometric_recall_lower(
        st.found_top, inp.pool - st.depth, st.audit_below_n, st.audit_below_k, conf)
    if r == 0:
        verdict, code = "continue", "no_audit_positive"
    elif qb_lower >= t:
        verdict, code = "stop", "certified"
    else:
        verdict, code = "continue", "not_certified"
    return RuleResult("recall", verdict, code, nums), est, total


def knee_rule(inp: AdviceInputs, st: State) -> RuleResult:
    """Cormack & Grossman's knee on the gain curve of the ranked pass (heuristic, informs only)."""
    s = st.depth
    gain = np.concatenate([[0], np.cumsum(st.label[:s] == 1)])
    if s < MIN_REVIEWED:
        return RuleResult("knee", "continue", "too_early",
                          {"reviewed": s, "needed": MIN_REVIEWED, "criterion_met": False})
    res = knee_at(gain, np.array([s]))
    nums = {"reviewed": s, "knee": int(res.knee[0]), "slope_ratio": float(res.ratio[0]),
            "threshold": float(res.threshold[0]), "criterion_met": bool(res.met[0])}
    if res.met[0]:
        return RuleResult("knee", "warn", "flattened", nums)
    return RuleResult("knee", "continue", "no_knee", nums)


def reliability_rule(inp: AdviceInputs) -> RuleResult:
    """Pause when agreement is unreliable on enough overlap items: more such labels won't help."""
    a, n = inp.alpha, inp.overlap_items
    nums = {"alpha": a, "overlap_items": n, "threshold": ALPHA_UNRELIABLE,
            "min_overlap_items": MIN_OVERLAP_ITEMS}
    if a is None or n is None or (isinstance(a, float) and math.isnan(a)):
        return RuleResult("reliability", "continue", "not_measured", nums)
    if n < MIN_OVERLAP_ITEMS:
        return RuleResult("reliability", "continue", "too_few", nums)
    if a < ALPHA_UNRELIABLE:
        return RuleResult("reliability", "pause", "unreliable", nums)
    return RuleResult("reliability", "continue", "reliable" if a >= 0.8 else "tentative", nums)
