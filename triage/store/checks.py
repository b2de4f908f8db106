"""The checks every write of a project makes, on a project file and on a team server alike.

The project file's store functions (:mod:`triage.store.records`) and the team server's
writer (:class:`triage.store.teamwriter.TeamWriter`) both call these, so a value one
refuses the other refuses in the same words (the server's functions check again).
"""

from __future__ import annotations

import math

from triage.base.errors import TriageError
from triage.store.schema import LABEL_KINDS

MAX_NAME = 80   # characters of an annotator's name


def annotator_name(name: str) -> str:
    """``name`` stripped, or TriageError when it is empty or too long."""
    name = name.strip()
    if not name:
        raise TriageError("annotator name must not be empty")
    if len(name) > MAX_NAME:
        raise TriageError(f"annotator name is too long ({MAX_NAME} characters at most)")
    return name


def hourly_rate(rate: float | None) -> float | None:
    """``rate`` when it is a finite, non-negative number (or None), else TriageError."""
    if rate is None:
        return None
    if not math.isfinite(rate):
        raise TriageError("hourly rate must be a finite number")
    if rate < 0:
        raise TriageError("hourly rate must not be negative")
    return float(rate)


def label_fields(kind: str, seconds: float) -> float:
    """Check a label event's kind; its seconds, never below 0 (NaN counts as 0)."""
    if kind not in LABEL_KINDS:
        raise TriageError(f"unknown label kind {kind!r}")
    return max(0.0, float(seconds))
