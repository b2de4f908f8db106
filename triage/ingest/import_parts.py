"""What the importer checks and records around its one transaction.

The project's seed, the model names and column roles checked before anything is
written, the provenance entry of an imported file, the image column (``--image COLUMN``:
how it maps onto candidates and where the project records it; see
:mod:`triage.base.pictures` for what a cell may hold), and the GC pause bulk work runs
under.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import sqlite_utils

from triage.base.errors import TriageError
from triage.store import bulk, provenance
from triage.store.records import now_iso

DEFAULT_SEED = 20181
_P = ParamSpec("_P")   # without_gc keeps the signature of what it decorates
_R = TypeVar("_R")


def project_seed(db: sqlite_utils.Database) -> int:
    """The project's seed for tie orders (the default for a project that stored none)."""
    value = bulk.stored_setting(db, "seed")
    return int(json.loads(value)) if value is not None else DEFAULT_SEED


def check_models(db: sqlite_utils.Database, path: Path,
                 scores: Sequence[tuple[str, str]]) -> None:
    """Refuse model names that are missing, empty, repeated or already in the project."""
    names = [name for name, _ in scores]
    if not names:
        raise TriageError("give at least one model score column (NAME=COLUMN)")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise TriageError(f"model name(s) {', '.join(map(repr, dupes))} given twice")
    taken = bulk.model_names(db)
    clash = [n for n in names if n in taken]
    if clash:
        raise TriageError(f"{path}: the project already has model(s) "
                          f"{', '.join(map(repr, clash))}; choose another name")
    if any(not name.strip() for name in names):
        raise TriageError("model names must not be empty")


def source_entry(path: Path, kind: str, models: list[str], rows: int,
                 digest: str | None = None) -> dict[str, Any]:
    """The provenance entry of an imported file: its SHA-256, when, what it brought."""
    if digest is None:
        digest = file_digest(path)
    return {"file": str(path.resolve()), "sha256": digest, "imported_at": now_iso(),
            "kind": kind, "models": models, "rows": rows}


def file_digest(path: Path) -> str:
    """The SHA-256 of the file at ``path``, in hex."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def record_source(db: sqlite_utils.Database, path: Path, kind: str, models: list[str],
                  rows: int) -> None:
    """Note the imported file, its SHA-256 and when, for the report's provenance."""
    provenance.record_source(db, source_entry(path, kind, models, rows))


def without_gc(func: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``func`` with the cyclic GC paused.

    Millions of fresh tuples would trigger it hundreds of times over a heap of a million
    row lists, for nothing (no cycles here).
    """
    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        enabled = gc.isenabled()
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()
    return wrapper


# The importer's ColumnMapping (not imported: the importer imports this module).
Mapping = TypeVar("Mapping", bound=Any)


def with_image(mapping: Mapping) -> Mapping:
    """The mapping to write: without text, the image column stands as the text too.

    With text, the image column is kept in each candidate's metadata (read there at
    display time). Nothing is done per row: a million paths import like a million texts.
    """
    if not mapping.image:
        return mapping
    if not mapping.text:
        return replace(mapping, text=mapping.image)
    if mapping.metadata is not None and mapping.image not in mapping.metadata:
        return replace(mapping, metadata=(*mapping.metadata, mapping.image))
    return mapping


def image_rows(mapping: Any, path: Path) -> list[tuple[str, str]]:
    """The ``project`` rows that say where the pictures are.

    Their column, the caption column ("" for none) and the pool file's folder, which
    relative paths resolve against.
    """
    if not mapping.image:
        return []
    caption = mapping.text if mapping.text != mapping.image else ""
    return [("image_column", mapping.image), ("image_caption", caption),
            ("image_folder", str(path.resolve().parent))]
