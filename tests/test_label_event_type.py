"""There is one type for a label event; the other label-shaped types say what they are.

A label event is "who gave which label to which candidate": a class whose fields name a
candidate (``candidate_id``), an ``annotator``, the ``value`` given and its ``kind``.
Exactly one class in ``triage/`` has that shape: :class:`triage.base.labels.LabelEvent`,
built only where the store reads events. A class that carries a label's parts in another
form (by rank, by the other tool's key, as a positive/negative verdict) is something else
and is named so: it is listed here with why it exists, is not called an event or a row,
and is built in one place.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CANDIDATE = {"candidate_id", "candidate", "key", "rank"}
DECISION = {"value", "positive", "label"}

# Label-shaped types that are not label events, and the one module that builds each.
NOT_EVENTS = {
    # The live tally's projection of a label event onto the active ranking: its rank and
    # the project's verdict (positive, the event it corrects, who is credited).
    "RankedLabel": "triage/project/live_replay.py",
    # A label as another tool's file states it (by that file's key, before import); the
    # exchange import stores it as a label event. Built by each file format's reader.
    "IncomingLabel": None,
}


@cache
def _scan() -> tuple[list[tuple[str, str, set[str]]], dict[str, list[str]]]:
    """Every class of triage/ as (module, name, annotated fields), and for every name called
    (``f(...)`` or ``x.f(...)``) the modules of its calls, once per call: one parse, one walk."""
    classes, calls = [], {}
    for path in sorted((ROOT / "triage").rglob("*.py")):
        module = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = {f.target.id for f in node.body
                         if isinstance(f, ast.AnnAssign) and isinstance(f.target, ast.Name)}
                classes.append((module, node.name, names))
            elif isinstance(node, ast.Call):
                f = node.func
                called = f.id if isinstance(f, ast.Name) else (
                    f.attr if isinstance(f, ast.Attribute) else None)
                if called is not None:
                    calls.setdefault(called, []).append(module)
    return classes, calls


def _label_shaped() -> list[tuple[str, str, set[str]]]:
    """Classes with an annotator, a candidate (by id, key or rank) and a decision."""
    return [(path, name, fields) for path, name, fields in _scan()[0]
            if "annotator" in fields and fields & CANDIDATE and fields & DECISION]


def _calls_of(name: str) -> list[str]:
    """Modules of triage/ that call ``name(...)`` (a constructor), once per call."""
    return _scan()[1].get(name, [])


def test_exactly_one_class_is_a_label_event() -> None:
    events = [(path, name) for path, name, fields in _label_shaped()
              if {"candidate_id", "annotator", "value", "kind"} <= fields]
    assert events == [("triage/base/labels.py", "LabelEvent")]


def test_other_label_shaped_types_are_named_for_what_they_are() -> None:
    others = {name: path for path, name, _ in _label_shaped() if name != "LabelEvent"}
    assert set(others) == set(NOT_EVENTS)
    for name in others:
        assert "Event" not in name and "Row" not in name


def test_label_events_are_built_by_the_store_reads_only() -> None:
    places = _calls_of("LabelEvent")
    assert places and all(p.startswith("triage/store/") for p in places)


def test_each_projection_is_built_in_one_place() -> None:
    for name, home in NOT_EVENTS.items():
        if home is not None:
            assert _calls_of(name) == [home]
