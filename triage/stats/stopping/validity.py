"""Which stopping rules hold for the ranking being followed: valid, or heuristic.

The recall bounds "below the depth" and Quant need a fixed order: a ranking frozen at
import. A ranking that learns from the labels (``cal``, alone or as a bandit arm) re-ranks
what is left after every fit, so there is no fixed depth to count the random audit below,
and its scores are not calibrated on random labels: those rules become heuristics. The
random audit and certification samples, the budget, the pool count and the agreement
check do not depend on the order and stay valid. The knee is a heuristic under any order.
"""

from __future__ import annotations

from dataclasses import replace

from triage.stats.stopping.types import RuleResult

VALID = "valid"
HEURISTIC = "heuristic"
FROZEN = "frozen"
ADAPTIVE = "adaptive"
_ALWAYS_VALID = frozenset({"reliability", "pool", "budget", "certification"})
_ALWAYS_HEURISTIC = frozenset({"knee"})


def rule_validity(rule: str, ranking: str) -> str:
    """``valid`` or ``heuristic``: whether ``rule`` holds for a ``frozen``/``adaptive`` ranking."""
    if rule in _ALWAYS_HEURISTIC:
        return HEURISTIC
    if ranking == FROZEN or rule in _ALWAYS_VALID:
        return VALID
    return HEURISTIC


def marked(reasons: list[RuleResult], ranking: str) -> list[RuleResult]:
    """The rule results, each with its validity for the ranking followed."""
    return [replace(r, validity=rule_validity(r.rule, ranking)) for r in reasons]


__all__ = ["ADAPTIVE", "FROZEN", "HEURISTIC", "VALID", "marked", "rule_validity",
]
