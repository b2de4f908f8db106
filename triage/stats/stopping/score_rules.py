"""Score-based rules: Quant and QuantCI (Yang, Lewis & Frieder 2021). Heuristics: they warn
when met and never stop the work on their own (no guarantee; they trust the calibration)."""

from __future__ import annotations

from triage.stats.stopping.quant import quant
from triage.stats.stopping.state import State
from triage.stats.stopping.types import AdviceInputs, RuleResult

QUANT_NSTD = 2.0


def quant_rules(inp: AdviceInputs, st: State) -> list[RuleResult]:
    """The Quant and QuantCI opinions (continue when unmet, warn when met)."""
    cal = st.calibration
    if cal is None:
        return [RuleResult(name, "continue", "no_calibration", {"estimated_recall": None})
                for name in ("quant", "quant_ci")]
    res = quant(cal.p, st.label >= 0, inp.target_recall, QUANT_NSTD)
    nums = {"estimated_recall": res.recall, "sd": res.sd, "recall_lower": res.recall_lower,
            "nstd": QUANT_NSTD, "target": inp.target_recall,
            "extrapolates_below_rank": cal.extrapolates_below_rank}
    return [RuleResult(name, "warn" if met else "continue", "met" if met else "not_met",
                       dict(nums))
            for name, met in (("quant", res.quant_met), ("quant_ci", res.quant_ci_met))]
