"""Checked values from another tool's file: times, durations, names, texts, field paths.

Each reader turns a raw JSON value into what Triage stores with one of these; a value
that cannot be stored raises :class:`BadValue` with the reason, and the reader reports
it at the file's line (Prodigy) or JSON path (Label Studio). Nothing here writes.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

# Unix times Triage takes: 1970 up to the year 3000. Prodigy writes seconds; many scripts
# write milliseconds, which are told apart by size (a millisecond time is past 1e11).
_LATEST_SECONDS = 32_503_680_000.0
_MS_FROM = 1e11
MAX_NAME = 80


class BadValue(ValueError):
    """A value of the file that Triage cannot store; ``str()`` is the reason."""


def unix_time(value: Any, what: str) -> str | None:
    """An ISO UTC time from unix seconds or milliseconds; None when absent."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadValue(f"{what} {short(value)} is not a unix time")
    seconds = value / 1000.0 if value >= _MS_FROM else float(value)
    if not 0 <= seconds <= _LATEST_SECONDS:
        raise BadValue(f"{what} {short(value)} is not a unix time in seconds or milliseconds "
                       "between 1970 and 3000")
    return dt.datetime.fromtimestamp(seconds, dt.UTC).isoformat(timespec="microseconds")


def any_time(value: Any, what: str) -> str | None:
    """An ISO time from an ISO string or a unix time; None when absent or empty."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise BadValue(f"{what} {short(value)} is not an ISO time") from None
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.UTC)
        return when.astimezone(dt.UTC).isoformat(timespec="microseconds")
    return unix_time(value, what)


def seconds(value: Any, what: str) -> float:
    """A duration in seconds (a number, or a number written as text); 0 when absent."""
    if value is None or value == "":
        return 0.0
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise BadValue(f"{what} {short(value)} is not a number of seconds") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadValue(f"{what} {short(value)} is not a number of seconds")
    if value < 0:
        raise BadValue(f"{what} {value} is negative")
    return float(value)


def score(value: Any, what: str) -> float:
    """A finite model score."""
    if isinstance(value, str):
        try:
            value = float(value)
        except ValueError:
            raise BadValue(f"{what} {short(value)} is not a finite number") from None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadValue(f"{what} {short(value)} is not a finite number")
    return float(value)


def text(value: Any, what: str, *, required: bool = True) -> str | None:
    """A string that UTF-8 can store (no lone surrogate such as a ``\\ud800`` escape)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        if required:
            raise BadValue(f"{what} is missing or empty")
        return None
    if not isinstance(value, str):
        raise BadValue(f"{what} {short(value)} is not a string")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadValue(f"{what} holds a lone surrogate (a \\ud800-style escape that is not "
                       "a character): not valid Unicode") from None
    return value


def name(value: Any, what: str) -> str | None:
    """An annotator or session name: a string or number, or an object with a name or email."""
    if isinstance(value, dict):
        picked = next((value[k] for k in ("email", "name", "username", "id")
                       if isinstance(value.get(k), str | int) and str(value[k]).strip()), None)
        if picked is None:
            raise BadValue(f"{what} {short(value)} names no one (no email, name or id)")
        value = picked
    if isinstance(value, bool) or (value is not None and not isinstance(value, str | int)):
        raise BadValue(f"{what} {short(value)} is not a name")
    got = text(None if value is None else str(value), what, required=False)
    if got is not None and len(got.strip()) > MAX_NAME:
        raise BadValue(f"{what} is longer than {MAX_NAME} characters")
    return None if got is None else got.strip()


def source_id(prefix: str, value: Any, what: str) -> str | None:
    """The other tool's id of an event, as text (``prefix`` + the id); None when absent."""
    if value is None or isinstance(value, bool) or not isinstance(value, str | int):
        return None
    got = text(f"{prefix}{value}", what, required=False)
    return got[:300] if got else None


def short(value: Any) -> str:
    """``repr`` of a value, cut to 60 characters (surrogates escaped)."""
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


_STEP = re.compile(r"([^.\[\]]+)|\[([^\]]*)\]")


def path_steps(path: str) -> list[str]:
    """``data.text`` -> ['data', 'text']; ``predictions[v1].score`` -> [..., 'v1', 'score']."""
    steps = [a or b for a, b in _STEP.findall(path)]
    if not steps:
        raise BadValue(f"{path!r} is not a field path (e.g. data.text)")
    return steps


def lookup(obj: Any, steps: list[str], *, select: str = "model_version") -> Any:
    """The value at ``steps`` in ``obj``; a list step picks the item whose ``select`` matches.

    ``[n]`` on a list is the n-th item when no item's ``select`` equals it. Returns None
    when the path is absent.
    """
    for step in steps:
        if isinstance(obj, dict):
            obj = obj.get(step)
        elif isinstance(obj, list):
            match = [o for o in obj if isinstance(o, dict) and str(o.get(select)) == step]
            if match:
                obj = match[0]
            elif step.isdigit() and int(step) < len(obj):
                obj = obj[int(step)]
            else:
                return None
        else:
            return None
    return obj
