"""The three estimates of what is left (audit, calibrated, combined) and which one leads.

The headline is chosen in this order, and the reason is stated with it:

1. **exact** — nothing is unlabelled: recall is known, no estimate is needed;
2. **combined** — at least :data:`MIN_AUDIT_BELOW` audit items lie below the depth: the random
   audit carries a sampling guarantee there, and the calibrated scores only sharpen it;
3. **calibrated** — too few audit items below the depth, but a calibration exists: the model's
   sum, which has no guarantee and extrapolates below the depth (said so);
4. **audit** — a handful of audit items and no calibration: the audit alone, very wide;
5. **none** — nothing to estimate from: only the positives found are known.
"""

from __future__ import annotations

import numpy as np

from triage.stats.stopping.remainder import (
    Remainder,
    estimate_remaining,
    model_remaining,
    stratum_counts,
)
from triage.stats.stopping.state import State
from triage.stats.stopping.types import AdviceInputs

MIN_AUDIT_BELOW = 20
NAN = float("nan")


def remainder_estimates(inp: AdviceInputs, st: State) -> dict[str, Remainder]:
    """Every estimate of the positives left among the unlabelled that the inputs allow."""
    unl = int((st.label < 0).sum())
    found = st.found
    if unl == 0:
        return {"exact": Remainder("exact", 0.0, 0.0, 0.0, 0, found,
                                   "every candidate is labelled: recall is known exactly")}
    out: dict[str, Remainder] = {}
    cal = st.calibration
    p = cal.p if cal is not None else None
    counts = stratum_counts(st.label, st.depth, inp.audit_ranks, inp.audit_positive, p)
    below = st.audit_below_n
    if below:
        for name, use_model in (("audit", False), ("combined", True)):
            if name == "combined" and cal is None:
                continue
            pt, lo, hi, undefined = estimate_remaining(counts, use_model=use_model,
                                                       confidence=inp.confidence)
            if not undefined[0]:
                out[name] = Remainder(
                    name, float(pt[0]), float(lo[0]), float(hi[0]), unl, found,
                    _audit_detail(name, st, below), False)
    if cal is not None:
        idx = np.nonzero(st.label < 0)[0]
        mean, se = cal.masked_sum(idx, st.z)
        pv = cal.p[idx]
        pt, lo, hi = model_remaining(mean, float((pv * (1 - pv)).sum()) + se**2, unl,
                                     inp.confidence)
        deep = int((idx >= st.depth).sum())
        extrapolates = deep > 0 and st.depth < inp.pool
        detail = f"{cal.method}: the sum of calibrated probabilities over {unl:,} unlabelled items"
        if extrapolates:
            detail += (f"; it extrapolates to {deep:,} items below rank {st.depth:,}, the depth "
                       "the ranked labels reach")
        out["calibrated"] = Remainder("calibrated", pt, lo, hi, unl, found, detail, extrapolates)
    return out


def _audit_detail(name: str, st: State, below: int) -> str:
    what = (f"{st.audit_below_k} positive{'s' if st.audit_below_k != 1 else ''} in {below} "
            f"random audit item{'s' if below != 1 else ''} below rank {st.depth:,}, "
            "stratified by score decile")
    if name == "combined":
        what += ", rescaled within each stratum by the calibrated scores"
    return what


def headline_estimate(estimates: dict[str, Remainder], audit_below: int, unlabelled: int,
                      found: int) -> tuple[Remainder, str]:
    """The estimate the advice leads with, and why (see the module docstring)."""
    if "exact" in estimates:
        return estimates["exact"], "nothing is left unlabelled"
    if audit_below >= MIN_AUDIT_BELOW:
        for name in ("combined", "audit"):
            if name in estimates:
                return estimates[name], (f"{audit_below} random audit items lie below the "
                                         "depth: a sample with a guarantee")
    if "calibrated" in estimates:
        why = (f"only {audit_below} audit item{'s' if audit_below != 1 else ''} below the depth"
               f" (a guarantee needs {MIN_AUDIT_BELOW}); the calibrated scores have none")
        return estimates["calibrated"], why
    if "audit" in estimates:
        return estimates["audit"], "no calibration (labels of both classes are needed)"
    none = Remainder("none", NAN, 0.0, float(unlabelled), unlabelled, found,
                     "no audit item below the depth and no calibration yet: only the bounds "
                     "(none to all of the unlabelled) are known", False)
    return none, "nothing to estimate from"
