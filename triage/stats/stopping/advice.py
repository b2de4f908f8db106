"""Combine the rules into one decision with a one-line headline.

Combination policy (documented in docs/numbers/stopping.md):

1. **pause wins**: unreliable agreement on enough overlap items pauses everything;
2. **stop** when the pool is exhausted, the budget is spent, a certification sample has
   certified the target, the recall target is met with the stated confidence (QBCB lower
   bound ≥ target, or recall known exactly), or the next batch costs more than it brings even
   at the upper confidence bound of its yield;
3. otherwise **continue**. Warnings (budget nearly spent, marginal value probably negative,
   knee reached, Quant/QuantCI met, ranked urns) are listed but never stop the work alone.
"""

from __future__ import annotations

from typing import Any

from triage.base.jsonutil import jsonable
from triage.stats.stopping.certification import certification_rule
from triage.stats.stopping.estimates import headline_estimate, remainder_estimates
from triage.stats.stopping.known import known_facts
from triage.stats.stopping.plan import narrowing_plan
from triage.stats.stopping.remainder import Remainder
from triage.stats.stopping.rules import (
    budget_rule,
    knee_rule,
    marginal_rule,
    recall_rule,
    reliability_rule,
)
from triage.stats.stopping.score_rules import quant_rules
from triage.stats.stopping.state import State, build_state
from triage.stats.stopping.types import (
    Advice,
    AdviceInputs,
    Estimate,
    RuleResult,
)
from triage.stats.stopping.validity import marked

DECIDING = ("reliability", "pool", "budget", "certification", "recall", "marginal_value")


def pool_rule(inp: AdviceInputs, st: State) -> RuleResult:
    """Stop when nothing is left to serve; otherwise say how much is left."""
    nums = {"pool": inp.pool, "labelled": inp.pool - st.unlabelled, "unlabelled": st.unlabelled,
            "exhausted": st.exhausted}
    return RuleResult("pool", "stop" if st.exhausted else "continue",
                      "exhausted" if st.exhausted else "unlabelled", nums)


def advise(inputs: AdviceInputs) -> Advice:
    """Run every rule on ``inputs`` and combine them (see the module docstring)."""
    st = build_state(inputs)
    estimates = remainder_estimates(inputs, st)
    rem, why = headline_estimate(estimates, st.audit_below_n, st.unlabelled, st.found)
    pool = pool_rule(inputs, st)
    budget = budget_rule(inputs, st)
    marginal, next_batch = marginal_rule(inputs, st)
    recall, est_recall, est_total = recall_rule(inputs, st, rem, estimates.get("calibrated"))
    certification, cert_info = certification_rule(inputs, st, rem)
    knee = knee_rule(inputs, st)
    reliability = reliability_rule(inputs)
    reasons = marked([reliability, pool, budget, certification, recall, marginal, knee,
                      *quant_rules(inputs, st)], inputs.ranking)
    decision, deciding = _combine(reasons)
    counts = {"pool": inputs.pool, "labelled": inputs.pool - st.unlabelled,
              "unlabelled": st.unlabelled, "found": st.found, "depth": st.depth,
              "exhausted": st.exhausted, "audit_items": int(inputs.audit_ranks.size),
              "audit_below_depth": st.audit_below_n, "decile": st.decile}
    return Advice(decision, reasons, est_recall, est_total, next_batch,
                  None if deciding is None else deciding.rule,
                  remaining=_remainder_json(rem, why),
                  estimates={k: _remainder_json(v, "") for k, v in estimates.items()},
                  certification=cert_info, counts=counts,
                  known=known_facts(inputs, st, est_recall).to_json(),
                  currency=inputs.currency, plan=narrowing_plan(inputs, st),
                  ranking=inputs.ranking)


def _remainder_json(rem: Remainder, why: str) -> dict[str, Any]:
    return {"method": rem.method, "positives": rem.positives, "lower": rem.lower,
            "upper": rem.upper, "unlabelled": rem.unlabelled, "found": rem.found,
            "recall": rem.recall, "recall_lower": rem.recall_lower,
            "recall_upper": rem.recall_upper, "numbers": rem.numbers,
            "extrapolates": rem.extrapolates, "why_code": why}


def _combine(reasons: list[RuleResult]) -> tuple[str, RuleResult | None]:
    by_name = {r.rule: r for r in reasons}
    for verdict in ("pause", "stop"):
        for name in DECIDING:
            if by_name[name].verdict == verdict:
                return verdict, by_name[name]
    return "continue", None


def advice_to_json(advice: Advice) -> dict[str, Any]:
    """Stable JSON shape of an :class:`Advice`; NaN/inf become None, numpy values plain."""
    def est(e: Estimate) -> dict[str, Any]:
        return {"point": e.point, "lower": e.lower, "upper": e.upper, "method": e.method}

    return jsonable({
        "decision": advice.decision,
        "deciding": advice.deciding,
        "reasons": [{"rule": r.rule, "verdict": r.verdict, "code": r.code,
                     "numbers": r.numbers, "validity": r.validity} for r in advice.reasons],
        "estimated_recall": est(advice.estimated_recall),
        "estimated_total_positives": est(advice.estimated_total_positives),
        "next_batch": {"items": advice.next_batch.items,
                       "expected_positives": advice.next_batch.expected_positives,
                       "cost": advice.next_batch.cost,
                       "cost_per_positive": advice.next_batch.cost_per_positive},
        "remaining": advice.remaining,
        "estimates": advice.estimates,
        "certification": advice.certification,
        "counts": advice.counts,
        "known": advice.known,
        "currency": advice.currency,
        "plan": advice.plan,
        "ranking": advice.ranking,
    })
