"""Reading a file to look at it: its first rows as text, or all of it with inferred types.

For the new-project dialog and :mod:`triage.ingest.profile`. :func:`preview` reads at
most the first MiB of a text file (the careful parser's records, not validated) and is
instant on any file; :func:`inferred` reads the whole file with Arrow's readers, the fast
mode's parse options and type inference, and raises whatever Arrow raises on a file it
cannot read whole (a malformed row), for the caller to fall back on the preview.
"""

from __future__ import annotations

import itertools
import json
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
