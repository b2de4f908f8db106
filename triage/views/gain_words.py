"""The gain report in words: its cost conventions and why gain is undefined.

:mod:`triage.stats.gain` gives every answer's cost convention and every reason as a code;
``gain`` (text and ``--json``) and the report read them through :func:`gain_words`, which
puts the words in the fields and the code beside each (``*_code``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# What each figure's cost convention is, by the figure's key.
CONVENTIONS = {
    "cost_to_all_positives_whole_deciles": (
        "whole deciles (paper convention): deciles_to_all_positives × price × N / 10"),
    "cost_per_decile_whole": "whole deciles (paper convention): price × N / 10",
    "cost_to_last_positive": "per candidate: rank_of_last_positive × price",
    "positives_within_budget": (
        "whole candidates: floor(budget / price) candidates from the top of the ranking"),
    "positives_within_budget_whole_deciles": (
        "whole deciles: floor(budget / (price × N / 10)) deciles from the top"),
    "deciles.cost": "per candidate: price × items in the decile",
    "deciles.marginal_cost_per_positive": "per candidate: decile cost / positives in it",
    "next_decile.cost": "whole deciles (paper convention): price × N / 10",
    "ties": ("tied scores: every figure is its expected value under a uniformly random "
             "order of the tied items (positives may be fractional)"),
}
# The convention of each answer to the three budget situations, by code.
CHOICE_CONVENTIONS = {
    "within_candidates": ("whole candidates: the budget buys floor(budget / price) candidates "
                          "from the top"),
    "within_deciles": "whole deciles: each decile costs price × N / 10 (paper convention)",
    "to_last_positive": "per candidate: expected rank of the last positive × price",
    "to_all_deciles": ("whole deciles: deciles to all positives × price × N / 10 "
                       "(paper convention)"),
}
REASONS = {
    "no_positives": ("no item has a positive gold label, so gain (positives / all positives) "
                     "is undefined"),
}
CHOICES = ("best_model_within_budget", "best_model_within_budget_whole_deciles",
           "earliest_to_all_positives", "earliest_to_all_positives_whole_deciles")


def reason_text(code: str | None) -> str | None:
    """Why gain is undefined, in words (text that is no code is returned as it is)."""
    return None if code is None else REASONS.get(code, code)


def _choice(choice: Any) -> Any:
    if not isinstance(choice, Mapping) or "convention_code" in choice:
        return choice
    code = choice.get("convention")
    return dict(choice, convention=CHOICE_CONVENTIONS.get(str(code), code), convention_code=code,
                reason=reason_text(choice.get("reason")), reason_code=choice.get("reason"))


def gain_words(data: Mapping[str, Any], seen: Sequence[str] | None = None) -> dict[str, Any]:
    """The gain report with its conventions and reasons in words, each code beside it.

    ``seen``: the gold values a file held, named after the reason when no value was positive."""
    out = dict(data)
    if "undefined_reason_code" in data:
        return out
    code = data.get("undefined_reason")
    out["undefined_reason_code"] = code
    text = reason_text(code)
    if text is not None and seen is not None:
        shown = ", ".join(repr(v) for v in seen[:10]) + (" ..." if len(seen) > 10 else "")
        text += (f" (--positive {sorted(data.get('positive_values') or [])}; values in "
                 f"{data.get('gold_column')!r}: {shown})")
    out["undefined_reason"] = text
    for key in CHOICES:
        if key in data:
            out[key] = _choice(data[key])
    conventions = data.get("conventions")
    if conventions is not None and not isinstance(conventions, Mapping):
        out["conventions"] = {k: CONVENTIONS[k] for k in conventions if k in CONVENTIONS}
    return out
