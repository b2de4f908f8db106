"""Writing tables to CSV or JSONL: atomically, and safe to open in a spreadsheet.

Atomic: see :mod:`triage.ingest.atomic`. CSV is written by the one CSV writer,
:mod:`triage.ingest.arrowcsv` (Arrow kernels, cell for cell what Python's csv module
writes).

Formula guard (CSV only): candidate text is untrusted, and a spreadsheet runs a cell
starting with ``=``, ``+``, ``-`` or ``@`` (and, in some, tab or CR) as a formula. Such
text cells get a leading apostrophe (``'=cmd()``), which spreadsheets hide and treat as
"this is text". Plain numbers stay numbers: a cell that is exactly a decimal number such
as ``-0.5``, ``+3`` or ``-1e-3`` (and every ``int``/``float`` value) is written as is, since
no spreadsheet evaluates those as anything but that number. JSONL is data for programs and
is never altered.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from triage.ingest.arrowcsv import value_cells, write_csv
from triage.ingest.atomic import atomic_file as atomic_file
from triage.ingest.atomic import current_umask as current_umask
from triage.ingest.atomic import guard_cell as guard_cell

FORMATS = ("csv", "jsonl")
ROWS_PER_BATCH = 50_000


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None  # JSON has no NaN/inf; "no value" is the honest spelling
    if hasattr(value, "item") and callable(value.item):  # numpy scalar
        return _jsonable(value.item())
    return value


def _as_mapping(row: Mapping[str, Any] | Sequence[Any], fieldnames: list[str]) -> Mapping:
    if isinstance(row, Mapping):
        return row
    return dict(zip(fieldnames, row))


def write_table(path: str | Path, fieldnames: Sequence[str],
                rows: Iterable[Mapping[str, Any] | Sequence[Any]], fmt: str = "csv") -> int:
    """Write ``rows`` (dicts, or sequences in ``fieldnames`` order) to ``path`` atomically.

    Returns the number of rows written. Keys of a dict row that are not in ``fieldnames``
    are ignored; missing ones are written empty (CSV) or null (JSONL). CSV goes through
    the one CSV writer, :func:`triage.ingest.arrowcsv.write_csv`, a batch of rows at a time.
    """
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
    names = list(fieldnames)
    if fmt == "csv":
        return write_csv(path, names, _cell_batches(rows, names))
    count = 0
    with atomic_file(path) as handle:
        for row in rows:
            row = _as_mapping(row, names)
            obj = {n: _jsonable(row.get(n)) for n in names}
            handle.write(json.dumps(obj, ensure_ascii=False, allow_nan=False))
            handle.write("\n")
            count += 1
    return count


def _cell_batches(rows: Iterable[Mapping[str, Any] | Sequence[Any]],
                  names: list[str]) -> Iterator[list[Any]]:
    """The CSV cells of every field, :data:`ROWS_PER_BATCH` rows at a time."""
    batch: list[Mapping[str, Any]] = []
    for row in rows:
        batch.append(_as_mapping(row, names))
        if len(batch) == ROWS_PER_BATCH:
            yield value_cells([[r.get(n) for r in batch] for n in names])
            batch = []
    if batch:
        yield value_cells([[r.get(n) for r in batch] for n in names])
