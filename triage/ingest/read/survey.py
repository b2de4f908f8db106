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

The file is read here too: :func:`preview` gives the first rows (at most the first MiB of
a text file, the careful parser's records, not validated), :func:`inferred` the whole file
with Arrow's readers, the fast mode's parse options and type inference.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from triage.base.errors import InputError, Problem
from triage.ingest.read.careful import check_header, json_lines, parse_delimited
from triage.ingest.read.dialect import PLAIN, Dialect
from triage.ingest.read.rule import format_of
from triage.ingest.read.table import decode

PREVIEW_BYTES = 1 << 20


def inferred(path: Path, sheet: str | None, dialect: Dialect) -> Any:
    """The file as an Arrow table with inferred types (raises on anything unreadable)."""
    import pyarrow as pa

    kind = format_of(path)
    if kind in ("csv", "tsv"):
        import pyarrow.csv as pacsv

        from triage.ingest.read.fast import csv_options

        encoding = "utf8" if dialect.encoding in ("utf-8", "utf-8-sig") else dialect.encoding
        read = pacsv.ReadOptions(encoding=encoding, skip_rows=(dialect.header_row or 1) - 1)
        convert = pacsv.ConvertOptions(decimal_point=dialect.decimal)
        table = pacsv.read_csv(str(path), read_options=read, convert_options=convert,
                               parse_options=csv_options(dialect.delimiter_for(kind)))
        check_header(path, table.column_names, dialect.header_row or 1)
        if encoding == "utf8" and any(pa.types.is_binary(t) for t in table.schema.types):
            decode(path, path.read_bytes(), dialect.encoding)  # the line that is not UTF-8
        return typed(table)
    if kind == "jsonl":
        import pyarrow.json as pajson

        return pajson.read_json(str(path))
    if kind == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(str(path))
    from triage.ingest.read.columnar import read_sheet

    names, data, _lines = read_sheet(path, sheet, dialect.header_row)
    return typed(pa.table({n: pa.array(data[n], pa.string()) for n in names}))


def typed(table: Any) -> Any:
    """Text columns whose every non-empty value is a number, as numbers."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns = {}
    for name, column in zip(table.column_names, table.columns):
        if pa.types.is_string(column.type):
            blank = pc.equal(pc.utf8_trim_whitespace(column), "")
            values = pc.if_else(blank, None, column)
            percent = pc.all(pc.ends_with(pc.utf8_trim_whitespace(values), "%")).as_py()
            if percent:  # a whole column of percentages: fractions
                values = pc.utf8_rtrim(pc.utf8_trim_whitespace(values), "%")
            try:
                number = values.cast(pa.float64())
                if percent:
                    number = pc.divide(number, 100.0)
                column = number if number.null_count < len(number) else column
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                pass
        columns[name] = column
    return pa.table(columns)


def preview(path: str | Path, rows: int = 20, sheet: str | None = None,
            dialect: Dialect | None = None) -> tuple[list[str], list[list[str]]]:
    """Header and the first ``rows`` rows as text, for the new-project dialog.

    Reads at most the first MiB of a text file, so it is instant on any file; the first
    rows of a Parquet file, a spreadsheet's ``sheet`` (None: the first) as its program
    shows it. Rows are not validated.
    """
    path = Path(path)
    kind = format_of(path)
    dialect = dialect or PLAIN
    sheet = sheet or dialect.sheet
    if kind == "parquet":
        return _parquet_head(path, rows)
    if kind in ("xlsx", "ods"):
        from triage.ingest.read.columnar import read_sheet

        names, cells, _lines = read_sheet(path, sheet, dialect.header_row)
        return names, [list(r) for r in zip(*(cells[n][:rows] for n in names))]
    try:
        with open(path, "rb") as handle:
            data = handle.read(PREVIEW_BYTES)
            more = bool(handle.read(1))
    except OSError as error:
        raise InputError([Problem(str(path), None, None, f"cannot be read ({error})")]) from error
    if more and b"\n" in data:
        data = data[: data.rindex(b"\n") + 1]  # never cut a character or a line in half
    text = decode(path, data, dialect.encoding)
    if kind == "jsonl":
        objects = list(itertools.islice((obj for _line, obj, _error in json_lines(text)
                                         if isinstance(obj, dict)), rows))
        header = list(dict.fromkeys(k for obj in objects for k in obj))
        return header, [[_cell(obj.get(k)) for k in header] for obj in objects]
    # Not strict: a stray quote in the first rows still shows them as the csv module reads them.
    records, starts = parse_delimited(path, text, dialect.delimiter_for(kind), 0, None,
                                      strict=False)
    start = dialect.header_row or 1
    wanted = (r for r, line in zip(records, starts.tolist()) if r and line >= start)
    kept = list(itertools.islice(wanted, rows + 1))
    if not kept:
        return [], []
    return [h.strip() for h in kept[0]], kept[1:]


def _cell(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _parquet_head(path: Path, rows: int) -> tuple[list[str], list[list[str]]]:
    from triage.ingest.read.columnar import as_text, parquet_file

    handle = parquet_file(path)
    names = handle.schema_arrow.names
    batch = next(handle.iter_batches(batch_size=max(rows, 1)), None)
    if batch is None:
        return names, []
    columns = [as_text(c).fill_null("").to_pylist() for c in batch.columns]
    return names, [list(r) for r in zip(*columns)]


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
