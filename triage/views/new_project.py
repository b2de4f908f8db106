"""Qt-free logic behind the new-project and settings dialogs: read the form, build the file.

The dialogs only collect text; turning it into :class:`Settings` and a column mapping, and
creating a project that is either complete or absent, happens here (and is unit-tested).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from triage.base.errors import TriageError

# ColumnMapping, Settings and preview are the dialog's vocabulary: ui/ takes them from here.
from triage.ingest.importer import ColumnMapping as ColumnMapping
from triage.ingest.importer import ImportResult
from triage.ingest.importer import preview as preview
from triage.project import create_project
from triage.store.settings import Settings as Settings
from triage.store.settings import scheme_from_text

Progress = Callable[[int, int], "bool | None"]

_KEY_NAMES = ("key", "id", "candidate_id", "uid")
_TEXT_NAMES = ("text", "candidate", "phrase", "sentence", "title")
_GOLD_NAMES = ("gold", "label", "gold_label", "truth")


def parse_amount(text: str, what: str, *, optional: bool = False) -> float | None:
    """A non-negative finite number from a form field ('' gives None when optional)."""
    cleaned = text.strip().replace(",", "").lstrip("$").strip()
    if not cleaned:
        if optional:
            return None
        raise TriageError(f"{what} is required")
    try:
        value = float(cleaned)
    except ValueError:
        raise TriageError(f"{what} must be a number, not {text.strip()!r}") from None
    if not math.isfinite(value) or value < 0:
        raise TriageError(f"{what} must be a finite number of zero or more")
    return value


def parse_positives(text: str) -> tuple[str, ...]:
    """``idiom`` or ``idiom, maybe`` into a tuple of label names."""
    return tuple(p.strip() for p in re.split(r"[,;]", text) if p.strip())


def form_changes(*, scheme: str, positives: str, price_model: str, price: str,
                 hourly_rate: str = "", budget: str, currency: str, value: str
                 ) -> dict:
    """The Settings fields a money/scheme form describes (raises TriageError with a reason)."""
    labels = scheme_from_text(scheme)
    if not labels:
        raise TriageError("the label scheme needs at least one label, e.g. idiom:i,literal:l")
    chosen = parse_positives(positives) or (labels[0].value,)
    currency = currency.strip().upper()
    if not re.fullmatch(r"[A-Z]{3}", currency):
        raise TriageError(f"currency must be a three-letter code such as USD or EUR, "
                          f"not {currency!r}")
    changes = {
        "labels": labels, "positive_labels": chosen, "price_model": price_model,
        "price_per_item": parse_amount(price, "price per item"),
        "budget": parse_amount(budget, "budget", optional=True),
        "currency": currency,
        "value_per_positive": parse_amount(value, "value per positive", optional=True),
    }
    if hourly_rate.strip() or price_model == "per_hour":
        changes["default_hourly_rate"] = parse_amount(hourly_rate or "0", "hourly rate")
    return changes


def settings_changes(old: Settings, new: dict) -> dict:
    """Only the fields whose value differs from ``old`` (after validating the result)."""
    old.with_changes(**new)  # raises TriageError naming the first bad setting
    return {k: v for k, v in new.items() if getattr(old, k) != v}


def guess_columns(header: list[str], rows: list[list[str]]) -> dict:
    """Likely key, text, gold and score columns, to pre-fill the mapping."""
    lower = {h.lower(): h for h in header}
    pick = lambda names: next((lower[n] for n in names if n in lower), None)  # noqa: E731
    key, gold = pick(_KEY_NAMES), pick(_GOLD_NAMES)
    text = pick(_TEXT_NAMES) or next((h for h in header if h not in (key, gold)), None)
    scores = [h for i, h in enumerate(header)
              if h not in (key, text, gold) and rows and _numeric(r[i] if i < len(r) else ""
                                                                  for r in rows)]
    return {"key": key, "text": text, "gold": gold, "scores": scores}


def guess_scheme(values: list[str]) -> tuple[str, str]:
    """Scheme text and positive label from a gold column's values (first seen = positive).

    Keys are first letters when they are distinct and not reserved (s/u/n: skip, undo,
    note), else 1..9. Only a pre-fill: the user confirms both fields.
    """
    names = list(dict.fromkeys(v.strip() for v in values if v.strip()))[:9]
    if not names:
        return "positive:1,negative:2", "positive"
    firsts = [n[0].lower() for n in names]
    letters = len(set(firsts)) == len(firsts) and not set(firsts) & {"s", "u", "n"}
    keys = firsts if letters else [str(i + 1) for i in range(len(names))]
    return ",".join(f"{n}:{k}" for n, k in zip(names, keys)), names[0]


_POSITIVE_NAMES = ("positive", "pos", "yes", "true", "1", "relevant", "include", "match")


def value_counts(rows: list[list[str]], column: int) -> list[tuple[str, int]]:
    """(value, rows) of a column's non-empty values, most frequent first."""
    counts: dict[str, int] = {}
    for row in rows:
        value = row[column].strip() if column < len(row) else ""
        if value:
            counts[value] = counts.get(value, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], list(counts).index(kv[0])))


def guess_positive(counts: list[tuple[str, int]]) -> str | None:
    """The value that most likely marks a find: a yes-like name, else the rarest value.

    Positives are what the ranking is for, and they are the minority.
    """
    if not counts:
        return None
    for value, _n in counts:
        if value.lower() in _POSITIVE_NAMES:
            return value
    return min(counts, key=lambda kv: kv[1])[0]


def check_positives(chosen: tuple[str, ...], counts: list[tuple[str, int]]) -> None:
    """Every positive label must occur in the gold column (else nothing would count)."""
    present = {value for value, _n in counts}
    missing = [p for p in chosen if p not in present]
    if counts and missing:
        raise TriageError(f"positive label {', '.join(map(repr, missing))} matches no row of "
                          f"the gold column (its values: {', '.join(sorted(present))})")


def target_for(source: str | Path) -> Path:
    """Where a new project from ``source`` goes: ``name.triage`` beside it (``name-2``... if taken)."""
    source = Path(source)
    target = source.with_suffix(".triage")
    n = 2
    while any(f.exists() for f in project_files(target)):
        target = source.with_name(f"{source.stem}-{n}.triage")
        n += 1
    return target


def _numeric(values: Iterable[str]) -> bool:
    """True when there is at least one value and every value reads as a number."""
    seen = False
    for value in values:
        try:
            float(value)
        except ValueError:
            return False
        seen = True
    return seen


def project_files(path: str | Path) -> list[Path]:
    """The project file and SQLite's companions (WAL, shared memory, journal)."""
    path = Path(path)
    return [path, *(Path(f"{path}{s}") for s in ("-wal", "-shm", "-journal"))]


def remove_project(path: str | Path) -> None:
    """Delete a half-made project and its companions (nothing left behind)."""
    for file in project_files(path):
        file.unlink(missing_ok=True)


def build_project(path: str | Path, settings: Settings, source: str | Path,
                  mapping: ColumnMapping, progress: Progress | None = None) -> ImportResult:
    """Create ``path`` and import ``source`` into it: afterwards it is complete or absent.

    Refuses an existing file (never deletes what it did not create). A validation error,
    a cancel from ``progress`` or any crash removes the new file before re-raising.
    """
    path = Path(path)
    if any(f.exists() for f in project_files(path)):
        raise TriageError(f"{path} already exists; choose another name")
    project = create_project(path, settings)
    try:
        result = project.import_file(source, mapping, progress=progress)
    except BaseException:
        project.close()
        remove_project(path)
        raise
    project.close()
    return result
