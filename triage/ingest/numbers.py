"""Numbers as people write them in text files: ``0.731``, ``0,731`` (a decimal comma, when
the file's dialect says so) and ``73%`` (a whole column of percentages reads as fractions).

The reader parses numeric columns here; a value that is not a number gets a reason, with
the option that would read it when there is one (``--decimal ,``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal

import numpy as np

VALUE_SHOWN = 40


def shorten(value: str, limit: int = VALUE_SHOWN) -> str:
    """``repr`` of ``value`` cut to ``limit`` characters, for error messages."""
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return repr(value)


def _written(values: Sequence[str], decimal: str) -> Sequence[str]:
    """Numbers as Python reads them: a decimal comma made a point (never beside a point);
    a column whose every non-empty value is a percentage (``73%``) as fractions."""
    if decimal == ",":
        values = [v if "." in v else v.replace(",", ".") for v in values]
    present = [v.strip() for v in values if v.strip()]
    if present and all(v.endswith("%") for v in present):
        return [_fraction(v) for v in values]
    return values


def _fraction(value: str) -> str:
    """``'73%'`` as ``'0.73'`` (the shortest float of the decimal text / 100)."""
    text = value.strip()
    if not text.endswith("%"):
        return value
    try:
        return repr(float(Decimal(text[:-1].strip()) / 100))
    except ArithmeticError:
        return value


def to_float(values: Sequence[str], decimal: str = "."
              ) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Parse finite floats; returns (array with NaN where bad, [(index, reason)]).

    Plain numbers take one C loop; anything else goes through :func:`_written` first.
    """
    try:
        array = np.fromiter(map(float, values), np.float64, len(values))
        bad: list[tuple[int, str]] = []
    except ValueError:
        original, values = values, _written(values, decimal)
        array, bad = _parsed(values, original)
    failed = {i for i, _ in bad}
    for i in np.flatnonzero(~np.isfinite(array)).tolist():
        if i not in failed:
            bad.append((i, f"{shorten(values[i])} is not a finite number"))
    bad.sort()
    return array, bad


def _parsed(values: Sequence[str], original: Sequence[str]
            ) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Each value as a float (NaN where it is not a number), and the reasons."""
    array = np.empty(len(values), dtype=np.float64)
    bad: list[tuple[int, str]] = []
    for i, value in enumerate(values):
        try:
            array[i] = float(value)
        except ValueError:
            array[i] = math.nan
            reason = ("empty value where a number is required" if not value.strip()
                      else f"{shorten(original[i])} is not a number{_hint(original[i])}")
            bad.append((i, reason))
    return array, bad


def _hint(value: str) -> str:
    """The option that reads a number written another way (``0,731``, ``73%``)."""
    text = value.strip()
    if "," in text and "." not in text:
        try:
            float(text.replace(",", "."))
            return " (a decimal comma? give --decimal ,)"
        except ValueError:
            return ""
    if text.endswith("%"):
        return " (percentages are read only when every value of the column is one)"
    return ""
