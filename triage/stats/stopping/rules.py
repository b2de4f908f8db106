"""The five stopping rules. Each returns a :class:`RuleResult`; none of them decides alone."""

from __future__ import annotations

import math

import numpy as np

from triage.base.money import format_money
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
    cur = inp.currency
    left_items = 0 if st.exhausted else st.unlabelled
    if inp.budget is None:
        return RuleResult("budget", "continue", "No budget is set, so money never stops the work.",
                          {"budget": None, "spent": inp.spend, "left": None, "overspent": 0.0,
                           "annotations_left": None, "annotations_affordable": None})
    left = inp.budget - inp.spend
    buys = max(int(math.floor(left / inp.price + 1e-9)), 0)
    nums = {"budget": inp.budget, "spent": inp.spend, "left": max(left, 0.0),
            "overspent": max(-left, 0.0), "annotations_left": min(buys, left_items),
            "annotations_affordable": buys, "batch_cost": batch_cost}
    if buys < 1:
        why = (f"The budget is spent: {format_money(inp.spend, cur)} of "
               f"{format_money(inp.budget, cur)}"
               + (f", overspent by {format_money(-left, cur)}." if left < 0 else
                  f"; {format_money(left, cur)} left does not buy one more annotation."))
        return RuleResult("budget", "stop", why, nums)
    if left_items == 0:
        return RuleResult("budget", "continue",
                          f"{format_money(left, cur)} left, but nothing is left to buy: "
                          "every candidate has been handled.", nums)
    more = (f"{buys:,} more annotations" if buys <= left_items else
            f"all {left_items:,} candidates still unlabelled")
    if left < 0.1 * inp.budget or left < batch_cost:
        return RuleResult("budget", "warn",
                          f"Only {format_money(left, cur)} left: {more} "
                          f"({left / inp.budget:.0%} of the budget).", nums)
    return RuleResult("budget", "continue", f"{format_money(left, cur)} left buys {more}.",
                      nums)


MIN_EXPECTED = 0.01  # fewer expected positives than this read "none expected"


def _slice_expectation(inp: AdviceInputs, st: State, source: YieldEstimate,
                       size: float) -> tuple[float, float, float]:
    """Expected positives (point, lower, upper) in the next ``size`` unlabelled items."""
    cal = st.calibration
    items = min(size, st.unlabelled)
    if cal is not None and source.source == cal.method:
        idx = next_unlabelled(st, items)
        point, se = cal.masked_sum(idx, st.z) if idx.size else (0.0, 0.0)
        out = point, max(point - st.z * se, 0.0), point + st.z * se
    else:
        out = source.point * items, source.lower * items, source.upper * items
    # Never more positives than items.
    return tuple(float(min(max(x, 0.0), items)) for x in out)  # type: ignore[return-value]


def _nothing_left(st: State) -> tuple[RuleResult, NextBatch]:
    why = "Nothing is left to label: every candidate has been handled."
    if st.unlabelled:
        why = (f"Nothing is left to serve: the {st.unlabelled:,} candidates without a label "
               "were skipped.")
    nums = {"batch_items": 0, "batch_cost": 0.0, "expected_positives": 0.0,
            "cost_per_positive": None}
    return RuleResult("marginal_value", "stop", why, nums), NextBatch(0.0, 0.0, 0.0, NAN)


def _per_positive(cost: float, expected: float) -> float:
    return cost / expected if expected >= MIN_EXPECTED else math.inf


def _batch_words(size: float, cost: float, exp: float, cpp: float,
                 cur: str) -> tuple[str, str]:
    """What the next batch buys, and at what rate, in words (no ratio when nothing is)."""
    if exp < MIN_EXPECTED:
        return (f"no positives are expected in the next {size:g} items (fewer than "
                f"{MIN_EXPECTED:g}; they cost {format_money(cost, cur)})"), "no positives expected"
    return (f"the next {size:g} items cost {format_money(cost, cur)} for about {exp:.1f} positives",
            f"{format_money(cpp, cur)} per positive")


def marginal_rule(inp: AdviceInputs, st: State) -> tuple[RuleResult, NextBatch]:
    """Expected cost per positive of the next batch against the value of a positive.

    Stops only when even the upper confidence bound of the yield does not pay for the batch.
    """
    if st.exhausted or st.unlabelled == 0:
        return _nothing_left(st)
    sources = yield_sources(inp, st)
    cur = inp.currency
    main = primary_source(sources)
    size = min(st.batch, st.unlabelled)
    cost = inp.price * size
    if main is None:
        nb = NextBatch(size, NAN, cost, NAN)
        return RuleResult("marginal_value", "continue",
                          "No labels yet to estimate the yield of the next batch.",
                          {"batch_items": size, "batch_cost": cost}), nb
    exp, exp_lo, exp_hi = _slice_expectation(inp, st, main, size)
    cpp = _per_positive(cost, exp)
    cpp_conservative = _per_positive(cost, exp_hi)
    dec_size = min(st.decile, st.unlabelled)
    dec_exp, _, dec_hi = _slice_expectation(inp, st, main, dec_size)
    dec_cost = inp.price * dec_size
    consistent, cal_expected, cal_observed = calibration_consistent(st, inp.confidence)
    nums = {
        "source": main.source, "batch_items": size, "batch_cost": cost,
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
    nb = NextBatch(size, exp, cost, cpp)
    what, rate = _batch_words(size, cost, exp, cpp, cur)
    cap = what[0].upper() + what[1:]
    if inp.value_per_positive is None:
        return RuleResult("marginal_value", "continue",
                          f"No value per positive is set; {what} ({rate}).", nums), nb
    value = inp.value_per_positive
    verdict, why = "continue", f"{cap}: {rate} against a value of {format_money(value, cur)}."
    if main.stop_allowed and cpp_conservative > value:
        verdict = "stop"
        upper = ("no positives expected even then" if exp_hi < MIN_EXPECTED else
                 f"at most {exp_hi:.1f}: {format_money(cpp_conservative, cur)} per positive")
        why = (f"Even at the optimistic yield, {what} ({upper}), more than the value "
               f"{format_money(value, cur)} buys.")
    elif cpp > value:
        verdict = "warn"
        why = (f"Probably not worth it — {what}: {rate} against "
               f"{format_money(value, cur)} — but not with {inp.confidence:.0%} confidence.")
    if consistent is False:
        why += " The calibrated scores disagree with the last batch, so the recent yield is used."
    return RuleResult("marginal_value", verdict, why, nums), nb


def _pct(x: float) -> str:
    return f"{x:.0%}"


def recall_estimate(rem: Remainder, why: str) -> tuple[Estimate, Estimate]:
    """(recall, positives in the pool) from the headline estimate of what is left."""
    found = rem.found
    method = f"{rem.method}: {rem.detail} (headline because {why})"
    if rem.method == "exact":
        rec = 1.0 if found else NAN
        return (Estimate(rec, rec, rec, method),
                Estimate(float(found), float(found), float(found), method))
    if found == 0:  # 0 of an unknown number: undefined when none is left, else 0
        return (Estimate(NAN, NAN, NAN, method),
                Estimate(rem.positives, rem.lower, rem.upper, method))
    total = Estimate(found + rem.positives, found + rem.lower, found + rem.upper, method)
    return Estimate(rem.recall, rem.recall_lower, rem.recall_upper, method), total


def recall_rule(inp: AdviceInputs, st: State, rem: Remainder, why: str,
                model: Remainder | None = None) -> tuple[RuleResult, Estimate, Estimate]:
    """Recall against the target: exact when nothing is unlabelled, else QBCB decides.

    The estimate of what is left is reported alongside."""
    conf, t = inp.confidence, inp.target_recall
    r, k = st.audit_r, st.audit_k_above
    est, total = recall_estimate(rem, why)
    nums: dict = {"target": t, "confidence": conf, "audit_positives": r,
                  "audit_positives_above_depth": k, "depth": st.depth,
                  "found": st.found, "unlabelled": st.unlabelled,
                  "estimated_recall": est.point, "estimate_method": rem.method,
                  "model_recall": model.recall if model else NAN,
                  "model_recall_lower": model.recall_lower if model else NAN}
    if rem.method == "exact":
        if st.found:
            why_text = (f"Recall is known exactly: every candidate is labelled and all "
                        f"{st.found:,} positives are found (100%).")
        else:
            why_text = "Every candidate is labelled and none is positive: there is nothing to find."
        return RuleResult("recall", "stop", why_text, nums), est, total
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
        verdict, text = "continue", (f"The audit holds no positive yet, so recall cannot be "
                                     f"certified; at least {nums['qbcb_min_positives']} audit "
                                     f"positives are needed for {_pct(t)}.")
    elif qb_lower >= t:
        verdict = "stop"
        text = (f"Recall is at least {_pct(qb_lower)} with {_pct(conf)} confidence "
                f"({k} of {r} audit positives found), meeting the target {_pct(t)}.")
    else:
        need = nums["qbcb_required"]
        more = (f"{need - k} more of them must be found" if need is not None else
                f"the audit needs at least {nums['qbcb_min_positives']} positives to certify it")
        verdict = "continue"
        text = (f"Not certified: {k} of {r} audit positives found, target {_pct(t)} at "
                f"{_pct(conf)} confidence; {more}.")
    return RuleResult("recall", verdict, text, nums), est, total


def knee_rule(inp: AdviceInputs, st: State) -> RuleResult:
    """Cormack & Grossman's knee on the gain curve of the ranked pass (heuristic, informs only)."""
    s = st.depth
    gain = np.concatenate([[0], np.cumsum(st.label[:s] == 1)])
    if s < MIN_REVIEWED:
        return RuleResult("knee", "continue",
                          f"Too early for the knee method: {s} of the {MIN_REVIEWED} items it needs.",
                          {"reviewed": s, "criterion_met": False})
    res = knee_at(gain, np.array([s]))
    nums = {"reviewed": s, "knee": int(res.knee[0]), "slope_ratio": float(res.ratio[0]),
            "threshold": float(res.threshold[0]), "criterion_met": bool(res.met[0])}
    if res.met[0]:
        return RuleResult("knee", "warn",
                          f"The gain curve has flattened: slope ratio {res.ratio[0]:.1f} ≥ "
                          f"{res.threshold[0]:.0f} after the knee at rank {res.knee[0]} "
                          "(a heuristic; it informs, it does not decide).", nums)
    return RuleResult("knee", "continue",
                      f"No knee yet: slope ratio {res.ratio[0]:.1f} < {res.threshold[0]:.0f}.", nums)


def reliability_rule(inp: AdviceInputs) -> RuleResult:
    """Pause when agreement is unreliable on enough overlap items: more such labels won't help."""
    a, n = inp.alpha, inp.overlap_items
    nums = {"alpha": a, "overlap_items": n, "threshold": ALPHA_UNRELIABLE,
            "min_overlap_items": MIN_OVERLAP_ITEMS}
    if a is None or n is None or (isinstance(a, float) and math.isnan(a)):
        return RuleResult("reliability", "continue",
                          "Agreement has not been measured yet (no overlap items).", nums)
    if n < MIN_OVERLAP_ITEMS:
        return RuleResult("reliability", "continue",
                          f"α = {a:.3f} rests on only {n} overlap items (need {MIN_OVERLAP_ITEMS}); "
                          "too few to judge reliability.", nums)
    if a < ALPHA_UNRELIABLE:
        return RuleResult("reliability", "pause",
                          f"α = {a:.3f} on {n} overlap items is below {ALPHA_UNRELIABLE}: revise the "
                          "guidelines; more labels of this quality will not help.", nums)
    band = "reliable" if a >= 0.8 else "tentative conclusions only"
    return RuleResult("reliability", "continue", f"α = {a:.3f} on {n} overlap items ({band}).", nums)
