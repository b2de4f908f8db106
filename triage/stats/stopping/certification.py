"""Certification a lead can afford: the one-off sample, its price, the urn test, the audit rate.

- A **certification sample** (drawn at random from the unlabelled remainder when the lead
  asks) decides: the hypergeometric test of Callaghan & Müller-Hansen rejects H0 "recall <
  target" → stop, recall certified.
- Before it starts, its **plan** says how many labels it will need if recall is as estimated,
  and what they cost against the budget left.
- The **ranked-urn** test runs on the last labels of the ranked pass with no extra labels;
  valid only when the ranking beats random order below the depth, so it informs (warn).
- The **audit rate** in force is checked: if the interleaved audit cannot gather enough
  positives for QBCB before the budget (or the pool) ends, the advice says so, and which rate
  or one-off sample would.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from triage.stats.stopping.certify import (
    audit_positives_needed,
    plan_sample,
    ranked_urn_pvalue,
    sample_pvalue,
)
from triage.stats.stopping.remainder import Remainder
from triage.stats.stopping.state import State
from triage.stats.stopping.types import AdviceInputs, RuleResult, recall_informative


def certification_rule(inp: AdviceInputs, st: State, rem: Remainder
                       ) -> tuple[RuleResult, dict[str, Any]]:
    """The certification sample's verdict (stop when certified) and everything about it."""
    t, conf = inp.target_recall, inp.confidence
    info: dict[str, Any] = {"target": t, "confidence": conf}
    info["plan"] = _plan(inp, st, rem)
    info["ranked_urns"] = _urns(inp, st)
    info["audit_rate"] = _audit_rate_check(inp, st, rem, info["plan"])
    if inp.cert_found is None or inp.cert_remaining is None:
        info["sample"] = None
        plan = info["plan"]
        code = "plan" if rem.method != "exact" else "nothing_left"
        return RuleResult("certification", "continue", code, {"plan_items": plan["items"]}), info
    p = float(sample_pvalue(inp.cert_found, inp.cert_remaining, inp.cert_n, inp.cert_k, t))
    certified = p < 1 - conf
    sample = {"found_before": inp.cert_found, "remaining": inp.cert_remaining,
              "labelled": inp.cert_n, "positives": inp.cert_k, "p_value": p,
              "skipped_as_positive": inp.cert_skipped, "waiting": inp.cert_waiting,
              "certified": certified, "target": t, "confidence": conf}
    info["sample"] = sample
    if certified:
        return RuleResult("certification", "stop", "certified", sample), info
    return RuleResult("certification", "continue", "under_way", sample), info


def _plan(inp: AdviceInputs, st: State, rem: Remainder) -> dict[str, Any]:
    t, conf = inp.target_recall, inp.confidence
    expected = rem.positives if not math.isnan(rem.positives) else rem.upper
    plan = plan_sample(st.found, st.unlabelled, expected, t, conf)
    left = None if inp.budget is None else max(inp.budget - inp.spend, 0.0)
    cost = None if plan.items is None else plan.items * inp.price
    affordable = None if cost is None or left is None else cost <= left + 1e-9
    if st.unlabelled == 0:
        code = "nothing_left"
    elif not recall_informative(rem.recall_lower, rem.recall_upper):
        code = "too_early"   # sized on an estimate the interval does not support yet
    elif plan.items is None:
        code = "impossible"
    else:
        code = "needs"
    return {"items": plan.items, "cost": cost, "affordable": affordable,
            "expected_positives": plan.expected_positives, "code": code,
            "reason": plan.reason, "rate": plan.rate, "left": left, "target": t,
            "confidence": conf, "unlabelled": st.unlabelled}


def _urns(inp: AdviceInputs, st: State) -> dict[str, Any]:
    """The ranked-urn test on the ranked pass's labels in rank order (no extra labels)."""
    top = st.label[: st.depth]
    seq = top[top >= 0].astype(np.int64)
    if seq.size == 0 or st.unlabelled == 0:
        return {"p_value": None, "certified": None,
                "code": "no_ranked_labels" if seq.size == 0 else "nothing_left"}
    p = ranked_urn_pvalue(seq, st.unlabelled, inp.target_recall)
    ok = p < 1 - inp.confidence
    return {"p_value": p, "certified": bool(ok), "code": "met" if ok else "not_met",
            "depth": st.depth}


def _audit_rate_check(inp: AdviceInputs, st: State, rem: Remainder,
                      plan: dict[str, Any]) -> dict[str, Any]:
    """Can the interleaved audit certify the target (QBCB) before the money or pool ends?"""
    rate = inp.audit_rate
    t, conf = inp.target_recall, inp.confidence
    if rate is None or st.unlabelled == 0:
        return {"can_certify": None, "code": "unknown"}
    items_left = st.unlabelled if inp.budget is None else min(
        st.unlabelled, max(int((inp.budget - inp.spend) / inp.price), 0))
    total_pos = st.found + (rem.positives if not math.isnan(rem.positives) else 0.0)
    prevalence = total_pos / inp.pool if inp.pool else 0.0
    guess = max(rem.recall if not math.isnan(rem.recall) else 0.0, (1 + t) / 2)
    need = audit_positives_needed(t, conf, min(guess, 0.999))
    have = st.audit_r
    projected = have + rate * items_left * prevalence
    out: dict[str, Any] = {"rate": rate, "audit_positives": have,
                           "projected_audit_positives": projected, "needed": need,
                           "target": t, "ends": "budget" if inp.budget is not None else "pool",
                           "plan_items": plan.get("items"), "plan_cost": plan.get("cost")}
    if need is None or prevalence <= 0:
        out.update(can_certify=None, code="unknown")
        return out
    if projected >= need:
        out.update(can_certify=True, code="can")
        return out
    rate_needed = (need - have) / max(items_left * prevalence, 1e-12)
    out.update(can_certify=False, code="cannot", rate_needed=min(rate_needed, 1.0))
    return out


