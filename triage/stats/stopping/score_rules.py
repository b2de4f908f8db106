"""Score-based rules: Quant and QuantCI (Yang, Lewis & Frieder 2021). Heuristics: they warn
when met and never stop the work on their own (no guarantee; they trust the calibration)."""

from __future__ import annotations

from triage.stats.stopping.quant import quant
from triage.stats.stopping.state import State
from triage.stats.stopping.types import AdviceInputs, RuleResult

QUANT_NSTD = 2.0
# The calibrated estimate's backtest (docs/numbers/stopping.md, coverage table): its 95%
# interval missed the true recall in 7% of runs on synthetic scores, 64-91% on real ones.
MISS_RATE = "the calibrated estimate missed the true recall in 7-91% of backtest runs"


def quant_rules(inp: AdviceInputs, st: State) -> list[RuleResult]:
    """The Quant and QuantCI opinions (continue when unmet, warn when met)."""
    cal = st.calibration
    if cal is None:
        why = "No calibrated scores yet (labels of both classes are needed)."
        return [RuleResult(name, "continue", why, {"estimated_recall": None})
                for name in ("quant", "quant_ci")]
    res = quant(cal.p, st.label >= 0, inp.target_recall, QUANT_NSTD)
    nums = {"estimated_recall": res.recall, "sd": res.sd, "recall_lower": res.recall_lower,
            "nstd": QUANT_NSTD, "target": inp.target_recall,
            "extrapolates_below_rank": cal.extrapolates_below_rank}
    t = inp.target_recall
    quant_text = (f"Forecast, no guarantee: calibrated scores put {res.recall:.0%} of the "
                  f"expected positives among the labelled (Quant; target {t:.0%}; "
                  f"{MISS_RATE})")
    ci_text = (f"Forecast, no guarantee: Quant minus {QUANT_NSTD:g} standard deviations, "
               f"{res.recall_lower:.0%} (QuantCI; target {t:.0%}; {MISS_RATE})")
    out = []
    for name, text, met in (("quant", quant_text, res.quant_met),
                            ("quant_ci", ci_text, res.quant_ci_met)):
        tail = (" — met; a score-based heuristic without guarantee, it informs only."
                if met else " — not met.")
        out.append(RuleResult(name, "warn" if met else "continue", text + tail, dict(nums)))
    return out
