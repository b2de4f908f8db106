"""Money and shares as the panels and the lead's views show them."""

from __future__ import annotations

import math

from triage.base.money import format_money as format_money  # the one money formatter


def format_share(share: float | None, digits: int = 1) -> str:
    """``12.5%``; ``—`` when undefined."""
    if share is None or not math.isfinite(share):
        return "—"
    return f"{100 * share:.{digits}f}%"


def format_count(value: float) -> str:
    """``12,345``: a whole number with thousands separators (a chart tick, a count)."""
    return f"{value:,.0f}"


def format_decimal(value: float | None, digits: int = 3, missing: str = "—") -> str:
    """``0.812`` to ``digits`` places; ``missing`` when there is none or it is not finite."""
    if value is None or not math.isfinite(value):
        return missing
    return f"{value:.{digits}f}"


def format_difference(value: float | None, digits: int = 3, missing: str = "–") -> str:
    """``+0.012`` or ``-0.004`` (never ``-0.000``); ``missing`` when there is none."""
    if value is None:
        return missing
    return f"{round(value, digits) + 0.0:+.{digits}f}"


def format_number(value: float | None) -> str:
    """The shortest plain form (``0.04``, ``10``, ``2.5``); empty for none."""
    return "" if value is None else f"{value:g}"


def share_tick(share: float) -> str:
    """``5%``, or ``2.5%`` when a whole percent would misstate the tick."""
    pct = 100 * share
    return f"{pct:.0f}%" if abs(pct - round(pct)) < 0.05 else f"{pct:.1f}%"


def count_tick(value: float, pool: int) -> str:
    """A gain chart's tick: the count, and below it the share of the pool."""
    return f"{format_count(value)}\n{share_tick(value / pool)}"


def plural(count: int, word: str) -> str:
    """``1 positive``, ``1,204 positives``."""
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def awaiting(count: int, word: str) -> str:
    """``1 candidate awaits a ruling``, ``3 candidates await a ruling`` (verb agrees)."""
    return f"{plural(count, word)} {'awaits' if count == 1 else 'await'} a ruling"


def gain_title(found: int, annotated: int) -> str:
    """The small gain panel's title: ``Cumulative gain · 12 positives in 340``."""
    return f"Cumulative gain · {plural(found, 'positive')} in {annotated:,}"


def comparison_label(model: str, active: bool, found_at_budget: int | None) -> str:
    """A model's legend entry: ``m1 (active): 1,204 at budget``."""
    extra = "" if found_at_budget is None else f": {found_at_budget:,} at budget"
    return f"{model}{' (active)' if active else ''}{extra}"


def budget_buys(items: int | None) -> str:
    """`` budget buys 5,000`` beside the budget line; empty without a budget."""
    return "" if items is None else f" budget buys {items:,}"


def pool_caption(pool: int, model: str | None) -> str:
    """The lead overview's caption: ``pool 20,000 · ranking followed: m1``."""
    return f"pool {pool:,} · ranking followed: {model or '—'}"


def exported_text(count: int, out: object) -> str:
    """The status line after an export."""
    return f"exported {plural(count, 'candidate')} to {out}"
