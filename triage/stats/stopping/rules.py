"""The five stopping rules. Each returns a :class:`RuleResult`; none of them decides alone."""

from __future__ import annotations

import math

import numpy as np

from triage.stats.stopping.bounds import (
    clopper_pearson_lower,
    clopper_pearson_upper,
    hypergeometric_pvalue,
    hypergeometric_recall_lower,
    qbcb_min_positives,
    qbcb_required,
)
from triage.stats.stopping.knee import MIN_REVIEWED, knee_at
from triage.stats.stopping.state import (
    State,
    YieldEstimate,
    calibration_consistent,
    primary_source,
    slice_index,
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


def money(x: float) -> str:
    """$1.23 style (the currency symbol is the user's business; figures stay unrounded in JSON)."""
    return "unlimited" if math.isinf(x) else f"${x:,.2f}"


def budget_rule(inp: AdviceInputs, st: State) -> RuleResult:
    """What is left, what it buys; warn near the end, stop when it buys nothing more."""
    batch_cost = inp.price * st.batch
    if inp.budget is None:
        return RuleResult("budget", "continue", "No budget is set, so money never stops the work.",
                          {"budget": None, "spent": inp.spend, "left": None, "annotations_left": None})
    left = inp.budget - inp.spend
    buys = max(int(math.floor(left / inp.price + 1e-9)), 0)
    nums = {"budget": inp.budget, "spent": inp.spend, "left": left, "annotations_left": buys,
            "batch_cost": batch_cost}
    if buys < 1:
        return RuleResult("budget", "stop",
                          f"The budget is spent: {money(left)} left does not buy one more annotation.",
                          nums)
    if left < 0.1 * inp.budget or left < batch_cost:
        return RuleResult("budget", "warn",
                          f"Only {money(left)} left: {buys} more annotations "
                          f"({left / inp.budget:.0%} of the budget).", nums)
    return RuleResult("budget", "continue",
                      f"{money(left)} left buys {buys} more annotations.", nums)


def _slice_expectation(inp: AdviceInputs, st: State, source: YieldEstimate,
                       size: float) -> tuple[float, float, float]:
    """Expected positives (point, lower, upper) in the next ``size`` items from ``source``."""
    cal = st.calibration
    if cal is not None and source.source == cal.method:
        idx = slice_index(inp.pool, st.depth, size)
        point, se = cal.masked_sum(idx, st.z) if idx.size else (0.0, 0.0)
        return point, max(point - st.z * se, 0.0), point + st.z * se
    items = min(size, inp.pool - st.depth)
    return source.point * items, source.lower * items, source.upper * items


def marginal_rule(inp: AdviceInputs, st: State) -> tuple[RuleResult, NextBatch]:
    """Expected cost per positive of the next batch against the value of a positive.

    Stops only when even the upper confidence bound of the yield does not pay for the batch.
    """
    sources = yield_sources(inp, st)
    main = primary_source(sources)
    size = min(st.batch, inp.pool - st.depth)
    if size <= 0:
        nb = NextBatch(0.0, 0.0, 0.0, NAN)
        return RuleResult("marginal_value", "stop", "The whole pool is annotated.", {}), nb
    cost = inp.price * size
    if main is None:
        nb = NextBatch(size, NAN, cost, NAN)
        return RuleResult("marginal_value", "continue",
                          "No labels yet to estimate the yield of the next batch.",
                          {"batch_items": size, "batch_cost": cost}), nb
    exp, exp_lo, exp_hi = _slice_expectation(inp, st, main, size)
    cpp = cost / exp if exp > 0 else math.inf
    cpp_conservative = cost / exp_hi if exp_hi > 0 else math.inf
    dec_size = min(st.decile, inp.pool - st.depth)
    dec_exp, _, dec_hi = _slice_expectation(inp, st, main, dec_size)
    dec_cost = inp.price * dec_size
    consistent, cal_expected, cal_observed = calibration_consistent(st, inp.confidence)
    nums = {
        "source": main.source, "batch_items": size, "batch_cost": cost,
        "expected_positives": exp, "expected_positives_lower": exp_lo,
        "expected_positives_upper": exp_hi, "cost_per_positive": cpp,
        "cost_per_positive_at_upper_yield": cpp_conservative,
        "decile_items": dec_size, "decile_cost": dec_cost, "decile_expected_positives": dec_exp,
        "decile_cost_per_positive": dec_cost / dec_exp if dec_exp > 0 else math.inf,
        "value_per_positive": inp.value_per_positive,
        "yields": {k: {"point": v.point, "lower": v.lower, "upper": v.upper}
                   for k, v in sources.items()},
        "calibration_consistent": consistent,
        "calibration_last_batch_expected": cal_expected,
        "calibration_last_batch_observed": cal_observed,
        "extrapolates_below_rank": st.calibration.extrapolates_below_rank if st.calibration else None,
    }
    nb = NextBatch(size, exp, cost, cpp)
    what = f"the next {size:g} items cost {money(cost)} for about {exp:.1f} positives"
    cap = what[0].upper() + what[1:]
    if inp.value_per_positive is None:
        return RuleResult("marginal_value", "continue",
                          f"No value per positive is set; {what} ({money(cpp)} per positive).",
                          nums), nb
    value = inp.value_per_positive
    verdict, why = "continue", f"{cap}: {money(cpp)} per positive against a value of {money(value)}."
    if main.stop_allowed and cpp_conservative > value:
        verdict = "stop"
        why = (f"Even at the optimistic yield, {what} (at most {exp_hi:.1f}): "
               f"{money(cpp_conservative)} per positive, more than the value {money(value)}.")
    elif cpp > value:
        verdict = "warn"
        why = (f"Probably not worth it — {what}: {money(cpp)} per positive against "
               f"{money(value)} — but not with {inp.confidence:.0%} confidence.")
    if consistent is False:
        why += " The calibrated scores disagree with the last batch, so the recent yield is used."
    return RuleResult("marginal_value", verdict, why, nums), nb


def recall_rule(inp: AdviceInputs, st: State) -> tuple[RuleResult, Estimate, Estimate]:
    """Recall against the target: QBCB on the audit sample decides.

    Hypergeometric and model-based estimates are reported alongside."""
    conf, t = inp.confidence, inp.target_recall
    r, k = st.audit_r, st.audit_k_above
    nums: dict = {"target": t, "confidence": conf, "audit_positives": r,
                  "audit_positives_above_depth": k, "depth": st.depth}
    # Sample-based: QBCB / Clopper-Pearson on where the audit positives fall.
    qb_lower = float(clopper_pearson_lower(k, r, conf)) if r else NAN
    nums["qbcb_lower"] = qb_lower
    nums["qbcb_required"] = qbcb_required(r, t, conf)
    nums["qbcb_min_positives"] = qbcb_min_positives(t, conf)
    remaining = inp.pool - st.depth
    p_h = float(hypergeometric_pvalue(st.found_top, remaining, st.audit_below_n, st.audit_below_k, t))
    nums["hypergeometric_p"] = p_h
    nums["hypergeometric_lower"] = hypergeometric_recall_lower(
        st.found_top, remaining, st.audit_below_n, st.audit_below_k, conf)
    # Model-based: expected positives left = sum of calibrated p over the unannotated.
    model = _model_recall(inp, st)
    nums["model_recall"] = model.point
    nums["model_recall_lower"] = model.lower
    if r:
        two = 1 - (1 - conf) / 2
        est = Estimate(k / r, float(clopper_pearson_lower(k, r, two)),
                       float(clopper_pearson_upper(k, r, two)),
                       f"audit sample: {k} of {r} audit positives lie at or above rank {st.depth} "
                       "(Clopper-Pearson; QBCB)")
    elif not math.isnan(model.point):
        est = model
    else:
        est = Estimate(NAN, NAN, NAN, "undefined: no audit positives and no calibrated scores")
    total = _total_positives(inp, st, model)
    nums["estimated_recall"] = est.point
    if r == 0:
        verdict, why = "continue", ("No audit positives yet, so recall cannot be bounded; "
                                    f"at least {nums['qbcb_min_positives']} are needed for {t:.0%}.")
    elif qb_lower >= t:
        verdict = "stop"
        why = (f"Recall is at least {qb_lower:.0%} with {conf:.0%} confidence "
               f"({k} of {r} audit positives found), meeting the target {t:.0%}.")
    else:
        need = nums["qbcb_required"]
        more = (f"{need - k} more of them must be found" if need is not None else
                f"the audit needs at least {nums['qbcb_min_positives']} positives to certify it")
        verdict = "continue"
        why = (f"Recall is about {k / r:.0%} (at least {qb_lower:.0%} with {conf:.0%} confidence, "
               f"{k} of {r} audit positives found): the target {t:.0%} is not certified yet; {more}.")
    if verdict == "continue" and model.lower >= t:
        verdict = "warn"
        why += f" The calibrated model puts recall at {model.point:.0%}, but that has no guarantee."
    return RuleResult("recall", verdict, why, nums), est, total


def _model_recall(inp: AdviceInputs, st: State) -> Estimate:
    cal = st.calibration
    if cal is None:
        return Estimate(NAN, NAN, NAN, "undefined: no calibrated scores")
    idx = np.nonzero(st.label < 0)[0]
    rest, se = cal.masked_sum(idx, st.z) if idx.size else (0.0, 0.0)
    p = cal.p[idx]
    sd = float(np.sqrt((p * (1 - p)).sum() + se**2))
    hi, lo = rest + st.z * sd, max(rest - st.z * sd, 0.0)
    f = st.found
    def ratio(x: float) -> float:
        return f / (f + x) if f + x > 0 else NAN
    return Estimate(ratio(rest), ratio(hi), ratio(lo),
                    f"model-based: {cal.method}; {rest:.1f} positives expected among the unannotated")


def _total_positives(inp: AdviceInputs, st: State, model: Estimate) -> Estimate:
    if st.audit_below_n:
        # Known positives plus the audit yield below the depth applied to what nobody has
        # labeled there yet (the audited items themselves are already counted).
        two = 1 - (1 - inp.confidence) / 2
        n, k = st.audit_below_n, st.audit_below_k
        unlabeled = int((st.label[st.depth:] < 0).sum())
        lo = float(clopper_pearson_lower(k, n, two)) * unlabeled
        hi = float(clopper_pearson_upper(k, n, two)) * unlabeled
        return Estimate(st.found + k / n * unlabeled, st.found + lo, st.found + hi,
                        f"{st.found} found + audit yield below rank {st.depth} ({k} of {n}) "
                        f"over its {unlabeled} unlabeled items")
    if not math.isnan(model.point) and model.point > 0:
        return Estimate(st.found / model.point, st.found / model.upper, st.found / model.lower
                        if model.lower > 0 else math.inf, model.method)
    return Estimate(NAN, float(st.found), NAN, "undefined: no audit sample below the depth and no "
                    "calibrated scores; only the positives found so far are known")


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
