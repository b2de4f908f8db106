"""Combine the rules into one decision with a one-line headline.

Combination policy (documented in docs/readme/stopping.md):

1. **pause wins**: unreliable agreement on enough overlap items pauses everything;
2. **stop** when the budget is exhausted, or the recall target is met with the stated
   confidence (QBCB lower bound ≥ target), or the next batch costs more than it brings even
   at the upper confidence bound of its yield;
3. otherwise **continue**. Warnings (budget nearly spent, marginal value probably negative,
   knee reached, model-only recall) are listed but never stop the work on their own; in
   particular the knee heuristic only informs.
"""

from __future__ import annotations

import math
from typing import Any

from triage.base.jsonutil import jsonable
from triage.stats.stopping.rules import (
    budget_rule,
    knee_rule,
    marginal_rule,
    money,
    recall_rule,
    reliability_rule,
)
from triage.stats.stopping.state import build_state
from triage.stats.stopping.types import Advice, AdviceInputs, Estimate, NextBatch, RuleResult

DECIDING = ("reliability", "budget", "recall", "marginal_value")


def advise(inputs: AdviceInputs) -> Advice:
    """Run every rule on ``inputs`` and combine them (see the module docstring)."""
    st = build_state(inputs)
    budget = budget_rule(inputs, st)
    marginal, next_batch = marginal_rule(inputs, st)
    recall, est_recall, est_total = recall_rule(inputs, st)
    knee = knee_rule(inputs, st)
    reliability = reliability_rule(inputs)
    reasons = [reliability, budget, recall, marginal, knee]
    decision, deciding = _combine(reasons)
    headline = _headline(decision, deciding, marginal, next_batch, inputs, st.decile)
    return Advice(decision, reasons, est_recall, est_total, next_batch, headline)


def _combine(reasons: list[RuleResult]) -> tuple[str, RuleResult | None]:
    by_name = {r.rule: r for r in reasons}
    for verdict in ("pause", "stop"):
        for name in DECIDING:
            if by_name[name].verdict == verdict:
                return verdict, by_name[name]
    return "continue", None


def _slice_name(items: float, decile: float) -> str:
    """The slice as the subject of a sentence, with its verb: "the next decile costs"."""
    if abs(items - decile) < 1e-9:
        return "the next decile costs"
    return f"the next {items:g} item{'' if items == 1 else 's'} cost{'s' if items == 1 else ''}"


def _headline(decision: str, deciding: RuleResult | None, marginal: RuleResult,
              nb: NextBatch, inp: AdviceInputs, decile: float) -> str:
    if deciding is not None and deciding.rule != "marginal_value":
        head = f"{decision} — {deciding.detail[0].lower()}{deciding.detail[1:].rstrip('.')}"
        if deciding.rule == "recall" and marginal.verdict == "continue" and inp.value_per_positive:
            head += (f"; the next batch would still pay ({money(nb.cost_per_positive)} per "
                     f"positive against {money(inp.value_per_positive)})")
        return head
    what = _slice_name(nb.items, decile)
    if math.isnan(nb.cost_per_positive):
        return f"{decision} — {marginal.detail[0].lower()}{marginal.detail[1:].rstrip('.')}"
    cpp = money(nb.cost_per_positive) if nb.expected_positives > 0 else "more than any value"
    if inp.value_per_positive is None:
        return f"{decision} — {what} about {cpp} per positive (no value per positive set)"
    return (f"{decision} — {what} about {cpp} per positive against a value of "
            f"{money(inp.value_per_positive)}")


def advice_to_json(advice: Advice) -> dict[str, Any]:
    """Stable JSON shape of an :class:`Advice`; NaN/inf become None, numpy values plain."""
    def est(e: Estimate) -> dict[str, Any]:
        return {"point": e.point, "lower": e.lower, "upper": e.upper, "method": e.method}

    return jsonable({
        "decision": advice.decision,
        "headline": advice.headline,
        "reasons": [{"rule": r.rule, "verdict": r.verdict, "detail": r.detail,
                     "numbers": r.numbers} for r in advice.reasons],
        "estimated_recall": est(advice.estimated_recall),
        "estimated_total_positives": est(advice.estimated_total_positives),
        "next_batch": {"items": advice.next_batch.items,
                       "expected_positives": advice.next_batch.expected_positives,
                       "cost": advice.next_batch.cost,
                       "cost_per_positive": advice.next_batch.cost_per_positive},
    })


def advice_to_text(advice: Advice) -> str:
    """Human-readable advice: the headline, then one line per rule, then the estimates."""
    lines = [advice.headline]
    for r in advice.reasons:
        lines.append(f"  {r.verdict:<8} {r.rule:<15} {r.detail}")
    rec, tot = advice.estimated_recall, advice.estimated_total_positives
    if not math.isnan(rec.point):
        lines.append(f"  recall ≈ {rec.point:.1%} [{rec.lower:.1%}, {rec.upper:.1%}] — {rec.method}")
    else:
        lines.append(f"  recall: {rec.method}")
    if not math.isnan(tot.point):
        lines.append(f"  positives in the pool ≈ {tot.point:.0f} [{tot.lower:.0f}, {tot.upper:.0f}]"
                     f" — {tot.method}")
    return "\n".join(lines)
