"""Money and shares as the panels and the lead's views show them."""

from __future__ import annotations

import math

_SYMBOLS = {"USD": "$"}


def format_money(amount: float | None, currency: str) -> str:
    """``$12.40`` for USD, ``12.40 EUR`` otherwise; ``—`` for unknown, ``∞`` for infinite."""
    if amount is None or (isinstance(amount, float) and math.isnan(amount)):
        return "—"
    if math.isinf(amount):
        return "∞" if amount > 0 else "-∞"
    sign = "-" if amount < 0 else ""
    digits = f"{abs(amount):,.2f}"
    symbol = _SYMBOLS.get(currency.upper())
    if symbol:
        return f"{sign}{symbol}{digits}"
    return f"{sign}{digits} {currency}".rstrip()


def format_share(share: float | None, digits: int = 1) -> str:
    """``12.5%``; ``—`` when undefined."""
    if share is None or not math.isfinite(share):
        return "—"
    return f"{100 * share:.{digits}f}%"
