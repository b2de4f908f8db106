"""What a candidate file holds, for the new-project dialog and for guessing the mapping.

:func:`preview` gives its first rows as text (the first MiB of a text file, unvalidated),
:func:`profile` summarises every column over the whole file. The dialog and ``triage
new`` without ``--text``/``--score`` guess which column
is the key, the text, the gold label and the scores from names *and* values. Values from
the first rows mislead (a sample of 8,542 of 24,783 rows; a column that looks unique in
the first MiB), so the whole file is read with Arrow's readers and type inference (a
million rows in well under a second) and summarised per column: its type, whether its
values are unique, the range of its numbers, the mean length of its text, the share of
its values that name a picture file (``.jpg``, ``.png``...), and for a column with few
distinct values how many rows hold each. A file Arrow cannot read whole
(a malformed row) is summarised from its first MiB instead (its preview), and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from triage.ingest.read import PLAIN, Dialect, check_header, inferred, preview, typed

FEW_VALUES = 50  # a column with at most this many distinct values gets its counts
# A value that names a picture: a path or address ending in a picture extension (a URL's
# query string or fragment allowed after it).
PICTURE_NAME = r"(?i)\.(jpe?g|png|webp|gif|bmp|tiff?)([?#][^/]*)?\s*$"


@dataclass(frozen=True)
class Column:
    """One column of the file, summarised over every row read."""

    name: str
    kind: str                 # "float", "integer", "text" or "other"
    unique: bool              # every value present and different
    distinct: int
    mean_length: float        # characters per value (text)
    low: float | None         # smallest and largest number (float, integer)
    high: float | None
    counts: tuple[tuple[str, int], ...]  # value -> rows, first seen first; () if many values
    pictures: float = 0.0     # share of the non-empty values that name a picture file


@dataclass(frozen=True)
class Profile:
    """The columns of a file; ``whole`` False: only its first MiB could be summarised."""

    rows: int
    columns: tuple[Column, ...]
    whole: bool

    def column(self, name: str) -> Column | None:
        """The column called ``name``, or None."""
        return next((c for c in self.columns if c.name == name), None)


def profile(path: str | Path, sheet: str | None = None,
            dialect: Dialect | None = None) -> Profile:
    """Summarise every column of ``path`` (see the module docstring).

    A header naming a column twice is refused (the guesses would take both).
    """
    import pyarrow as pa

    path = Path(path)
    dialect = dialect or PLAIN
    sheet = sheet or dialect.sheet
    try:
        table = inferred(path, sheet, dialect)
    except (pa.ArrowException, ValueError, OSError):
        return from_rows(*preview(path, rows=100_000, sheet=sheet, dialect=dialect))
    return Profile(table.num_rows, tuple(_column(n, c) for n, c in
                                         zip(table.column_names, table.columns)), True)


def from_rows(header: list[str], rows: list[list[str]]) -> Profile:
    """Summarise rows already read as text (the first MiB of a file); ``whole`` False."""
    import pyarrow as pa

    if len(set(header)) != len(header):
        check_header(Path("the file"), header, 1)

    names = list(dict.fromkeys(header))  # a duplicate name: the first one
    cells = {h: pa.array([r[i] if i < len(r) else "" for r in rows], pa.string())
             for i, h in enumerate(header) if h in names and header.index(h) == i}
    table = typed(pa.table(cells)) if cells else pa.table({})
    return Profile(table.num_rows, tuple(_column(n, c) for n, c in
                                         zip(table.column_names, table.columns)), False)


def _column(name: str, values: Any) -> Column:
    """One column's summary; a type Arrow cannot count or compare is just "other"."""
    import pyarrow as pa

    try:
        return _summary(name, values)
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
        return Column(name, "other", False, 0, 0.0, None, None, ())


def _summary(name: str, values: Any) -> Column:
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(values.type):  # Parquet's dictionary-encoded text
        values = values.cast(values.type.value_type)
    kind = values.type
    distinct = pc.count_distinct(values).as_py()
    unique = values.null_count == 0 and distinct == len(values)
    low = high = None
    length = pictures = 0.0
    if pa.types.is_floating(kind) or pa.types.is_integer(kind) or pa.types.is_decimal(kind):
        label = "float" if pa.types.is_floating(kind) or pa.types.is_decimal(kind) else "integer"
        bounds = pc.min_max(values)
        low, high = bounds["min"].as_py(), bounds["max"].as_py()
        low = float(low) if low is not None else None
        high = float(high) if high is not None else None
        if label == "float" and all(v is not None and float(v).is_integer()
                                    for v in (low, high)) and distinct <= 2 and \
                pc.all(pc.equal(values, pc.round(values))).as_py():
            label = "integer"  # 0.0 / 1.0 flags read as floats by type inference
    elif pa.types.is_string(kind) or pa.types.is_large_string(kind):
        label = "text"
        length = float(pc.mean(pc.utf8_length(values)).as_py() or 0.0)
        pictures = _picture_share(values)
    else:
        label = "other"
    counts: tuple[tuple[str, int], ...] = ()
    if 0 < distinct <= FEW_VALUES:
        text = values.cast(pa.string()) if label != "text" else values
        if label == "float":  # 1.0 shows as the file wrote it, usually "1"
            text = pc.if_else(pc.equal(values, pc.round(values)),
                              values.cast(pa.int64(), safe=False).cast(pa.string()), text)
        found = pc.value_counts(text)
        pairs = [(str(v), int(n)) for v, n in zip(found.field("values").to_pylist(),
                                                  found.field("counts").to_pylist())
                 if v is not None and str(v).strip()]
        counts = tuple(pairs)
    return Column(name, label, unique, distinct, length, low, high, counts, pictures)


def _picture_share(values: Any) -> float:
    """The share of the non-empty values that name a picture file (:data:`PICTURE_NAME`)."""
    import pyarrow.compute as pc

    present = pc.sum(pc.greater(pc.utf8_length(values), 0)).as_py() or 0
    if not present:
        return 0.0
    named = pc.sum(pc.match_substring_regex(values, PICTURE_NAME)).as_py() or 0
    return float(named) / present
