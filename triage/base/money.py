"""The one money formatter: every amount any surface prints goes through :func:`format_money`."""

from __future__ import annotations

import math

_SYMBOLS = {"USD": "$"}
MISSING = "—"
UNLIMITED = "unlimited"


def format_money(amount: float | None, currency: str) -> str:
    """``$12.40`` for USD, ``12.40 EUR`` otherwise; ``—`` when unknown, ``unlimited`` when infinite.

    Amounts under a cent keep two significant digits (``$0.0041``), never ``$0.00``."""
    if amount is None or (isinstance(amount, float) and math.isnan(amount)):
        return MISSING
    if math.isinf(amount):
        return UNLIMITED if amount > 0 else f"-{UNLIMITED}"
    sign = "-" if amount < 0 else ""
    value = abs(float(amount))
    digits = f"{value:.2g}" if 0 < value < 0.01 else f"{value:,.2f}"
    symbol = _SYMBOLS.get(currency.upper())
    if symbol:
        return f"{sign}{symbol}{digits}"
    return f"{sign}{digits} {currency}".rstrip()
