"""What each stopping rule rests on, in words and figures (the report's "Numbers" column).

The rules return their numbers under internal keys; a lead reads "230 of 236 labelled",
not "labelled 230.0; exhausted False". One function per rule; unknown rules fall back to
the keys with their values formatted.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from triage.views.estimate_words import source_words
from triage.views.formatting import format_money
from triage.views.rule_words import sample_words


def _f(x: Any) -> float | None:
    if x is None or isinstance(x, bool):
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _n(x: Any) -> str:
    """A count as a count: ``230``, ``1,204``; fractional items to one decimal."""
    v = _f(x)
    if v is None:
        return "—"
    return f"{v:,.0f}" if abs(v - round(v)) < 1e-9 or v >= 10 else f"{v:.1f}"


def _pct(x: Any) -> str:
    v = _f(x)
    return "—" if v is None else f"{100 * v:.0f}%"


def _pool(n: Mapping[str, Any], cur: str) -> str:
    text = f"{_n(n.get('labelled'))} of {_n(n.get('pool'))} labelled"
    return text + ("; pool exhausted" if n.get("exhausted") else
                   f"; {_n(n.get('unlabelled'))} unlabelled")


def _budget(n: Mapping[str, Any], cur: str) -> str:
    if n.get("budget") is None:
        return f"{format_money(_f(n.get('spent')), cur)} spent; no budget"
    text = (f"{format_money(_f(n.get('spent')), cur)} spent of "
            f"{format_money(_f(n.get('budget')), cur)}")
    if (_f(n.get("overspent")) or 0) > 0:
        return text + f"; overspent by {format_money(_f(n.get('overspent')), cur)}"
    return (text + f"; {format_money(_f(n.get('left')), cur)} left buys "
            f"{_n(n.get('annotations_affordable'))} annotations")


def _certification(n: Mapping[str, Any], cur: str) -> str:
    if "labelled" in n:
        return f"{sample_words(n)}; p = {(_f(n.get('p_value')) or 0):.3f}"
    items = n.get("plan_items")
    return ("no sample would certify now" if items is None else
            f"a random sample of {_n(items)} labels would certify")


def _recall(n: Mapping[str, Any], cur: str) -> str:
    text = (f"{_n(n.get('audit_positives_above_depth'))} of {_n(n.get('audit_positives'))} "
            f"audit positives above rank {_n(n.get('depth'))}; target {_pct(n.get('target'))} "
            f"at {_pct(n.get('confidence'))}")
    need = n.get("qbcb_required")
    if need is not None:
        text += f"; certifying needs {_n(need)} of them above"
    elif n.get("qbcb_min_positives") is not None:
        text += f"; certifying needs at least {_n(n.get('qbcb_min_positives'))} audit positives"
    return text


def _marginal(n: Mapping[str, Any], cur: str) -> str:
    if "expected_positives" not in n or n.get("expected_positives") is None:
        return (f"next {_n(n.get('batch_items'))} items cost "
                f"{format_money(_f(n.get('batch_cost')), cur)}")
    text = (f"next {_n(n.get('batch_items'))} items cost "
            f"{format_money(_f(n.get('batch_cost')), cur)} for "
            f"{(_f(n.get('expected_positives')) or 0):.1f} expected positives")
    lo, hi = _f(n.get("expected_positives_lower")), _f(n.get("expected_positives_upper"))
    if lo is not None and hi is not None:
        text += f" ({lo:.1f}–{hi:.1f})"
    if n.get("source"):
        text += f", from the {source_words(n)}"
    if n.get("value_per_positive") is not None:
        text += f"; a positive is worth {format_money(_f(n.get('value_per_positive')), cur)}"
    consistent = n.get("calibration_consistent")
    if consistent is not None:
        text += ("; the calibration agrees with the last batch" if consistent else
                 "; the calibration disagrees with the last batch")
    return text


def _knee(n: Mapping[str, Any], cur: str) -> str:
    if "knee" not in n:
        return f"{_n(n.get('reviewed'))} ranked items reviewed"
    return (f"slope ratio {(_f(n.get('slope_ratio')) or 0):.1f} against "
            f"{(_f(n.get('threshold')) or 0):.0f} after the knee at rank {_n(n.get('knee'))} "
            f"of {_n(n.get('reviewed'))} reviewed")


def _reliability(n: Mapping[str, Any], cur: str) -> str:
    a = _f(n.get("alpha"))
    if a is None:
        return "no overlap items yet"
    return (f"α {a:.3f} on {_n(n.get('overlap_items'))} overlap items; pause below "
            f"{(_f(n.get('threshold')) or 0):.3f} on {_n(n.get('min_overlap_items'))} or more")


def _quant(n: Mapping[str, Any], cur: str) -> str:
    if n.get("estimated_recall") is None:
        return "no calibrated scores yet"
    return (f"forecast {_pct(n.get('estimated_recall'))}, sd {_pct(n.get('sd'))}; "
            f"target {_pct(n.get('target'))}")


_WORDS: dict[str, Callable[[Mapping[str, Any], str], str]] = {
    "pool": _pool, "budget": _budget, "certification": _certification, "recall": _recall,
    "marginal_value": _marginal, "knee": _knee, "reliability": _reliability,
    "quant": _quant, "quant_ci": _quant,
}


def rule_numbers_text(rule: str, numbers: Mapping[str, Any] | None, currency: str) -> str:
    """What ``rule`` rests on, in words and figures."""
    nums = numbers or {}
    words = _WORDS.get(rule)
    if words is not None:
        return words(nums, currency)
    return "; ".join(f"{k.replace('_', ' ')} {_n(v) if _f(v) is not None else v}"
                     for k, v in nums.items() if not isinstance(v, Mapping))
