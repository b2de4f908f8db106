"""Parquet files and spreadsheets (``.xlsx``, ``.xlsm``, ``.xls``, ``.ods``) as raw columns.

Parquet is read by pyarrow with its column types kept: a numeric score column arrives as
numbers, nothing is parsed from text. A column read as text is Arrow's cast of its values
(an integer key ``7`` is ``"7"``); a null is an empty value, as in JSONL. Rows have no
lines; an error names the row (1-based, as ``line``).

Spreadsheets are read by python-calamine (Rust's calamine: xlsx, xlsm, xls, xlsb, ods in
one library, tens of times faster than openpyxl, and no pandas). Each cell becomes the
text the spreadsheet shows: a whole number without ``.0``, a date as ``2024-01-05`` (with
the time when it has one, ``2024-01-05 13:45:00``), a boolean as ``TRUE``/``FALSE``, an
empty cell as an empty value. The first non-empty row is the header; entirely empty rows
are skipped like blank lines; an error names the spreadsheet's own row number (the one
its program shows at the left), as ``line``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from triage.base.errors import TriageError
from triage.ingest.read.careful import check_header, fail

SPREADSHEETS = {".xlsx": "xlsx", ".xlsm": "xlsx", ".xls": "xlsx", ".xlsb": "xlsx",
                ".ods": "ods"}
EXACT_INTEGERS = 2.0 ** 53


def parquet_file(path: Path) -> Any:
    """The open ``pyarrow.parquet.ParquetFile``; InputError when it is not Parquet."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        return pq.ParquetFile(str(path))
    except (pa.ArrowException, OSError) as error:
        raise fail(path, None, None, f"cannot be read as Parquet ({error})") from error


def is_number(kind: Any) -> bool:
    """Is this Arrow type a number a score can be (integers, floats, decimals)?"""
    import pyarrow as pa

    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind)
                or pa.types.is_decimal(kind))


def as_text(column: Any) -> Any:
    """A column's values as a string array (nulls stay null; the caller decides)."""
    import pyarrow as pa

    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = column.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return column
    if _nested(kind):  # lists, structs, maps: their JSON, as JSONL keeps nested values
        return pa.array([None if v is None else json.dumps(v, ensure_ascii=False, default=str)
                         for v in column.to_pylist()], pa.string())
    if pa.types.is_decimal(kind):  # the decimal's own digits: 0.950 is "0.950"
        return column.cast(pa.string())
    try:
        return column.cast(pa.string())
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return pa.array([None if v is None else str(v) for v in column.to_pylist()],
                        pa.string())


def _nested(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_list(kind) or pa.types.is_large_list(kind)
                or pa.types.is_fixed_size_list(kind) or pa.types.is_struct(kind)
                or pa.types.is_map(kind))


def as_float(column: Any) -> Any:
    """A numeric column as float64; a decimal as the float nearest its decimal text.

    0.950 is 0.95, where Arrow's own cast of the decimal gives 0.9500000000000001.
    """
    import pyarrow as pa

    if pa.types.is_decimal(column.type):
        return column.cast(pa.string()).cast(pa.float64())
    return column.cast(pa.float64())


def read_parquet(path: Path, numeric: list[str]) -> tuple[list[str], dict[str, Any],
                                                          np.ndarray]:
    """Header names, raw columns and row numbers of a Parquet file.

    Numeric columns of a numeric type come back as float64 arrays (a null is NaN, which
    the caller reports as an empty value); every other column as ``list[str]``.
    """
    import pyarrow as pa

    try:
        table = parquet_file(path).read()
    except (pa.ArrowException, OSError) as error:
        raise fail(path, None, None, f"cannot be read as Parquet ({error})") from error
    names = check_header(path, table.column_names, 1)
    data: dict[str, Any] = {}
    for name, column in zip(names, table.columns):
        if name in numeric and is_number(column.type):
            data[name] = as_float(column).fill_null(math.nan).to_numpy()
        else:
            data[name] = as_text(column).fill_null("").to_pylist()
    return names, data, np.arange(1, table.num_rows + 1, dtype=np.int64)


def shown(value: Any) -> str:
    """A cell's value as its spreadsheet shows it (see the module docstring)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        if value.is_integer() and abs(value) < EXACT_INTEGERS:
            return str(int(value))
        return repr(value)
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else \
            value.isoformat(sep=" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


def sheet_names(path: Path) -> list[str]:
    """The names of a workbook's sheets, in order."""
    return list(_workbook(path).sheet_names)


def _workbook(path: Path) -> Any:
    from python_calamine import CalamineWorkbook

    try:
        return CalamineWorkbook.from_path(str(path))
    except Exception as error:  # calamine raises its own error types and OSError
        raise fail(path, None, None, f"cannot be read as a spreadsheet ({error})") from error


def sheet_rows(path: Path, sheet: str | None, limit: int | None = None
               ) -> tuple[str, list[list[Any]]]:
    """(name, rows of cell values) of a workbook's sheet (None: the first).

    With ``limit``, only the first ``limit`` rows (calamine reads no further).
    """
    book = _workbook(path)
    names = list(book.sheet_names)
    if not names:
        raise fail(path, None, None, "the workbook has no sheets")
    if sheet is not None and sheet not in names:
        raise TriageError(f"{path}: no sheet {sheet!r}; the workbook has "
                          f"{', '.join(map(repr, names))}")
    name = sheet or names[0]
    found = book.get_sheet_by_name(name)
    if limit is not None and hasattr(found, "iter_rows"):
        import itertools

        return name, list(itertools.islice(found.iter_rows(), limit))
    return name, found.to_python(skip_empty_area=False)


def read_sheet(path: Path, sheet: str | None, header_row: int | None = None
               ) -> tuple[list[str], dict[str, Any], np.ndarray]:
    """Header names, raw columns (``list[str]``, as shown) and row numbers of a sheet.

    ``sheet`` None is the first sheet; a name the workbook lacks is a TriageError that
    lists the sheets it has. The header is the first non-empty row, or the first on or
    after row ``header_row``. Formulas saved without their results are refused (they
    read as empty cells).
    """
    sheet_name, rows = sheet_rows(path, sheet)
    lines = [i + 1 for i, row in enumerate(rows) if any(v not in (None, "") for v in row)]
    if not lines:
        raise fail(path, 1, None, f"the sheet {sheet_name!r} is empty; a header row is required")
    if header_row is not None:
        lines = [i for i in lines if i >= header_row]
        if not lines:
            raise fail(path, header_row, None, f"no header on or after row {header_row} of "
                       f"sheet {sheet_name!r}: check --header-row")
    header = [shown(v) for v in rows[lines[0] - 1]]
    if header_row is not None and lines[0] > 1:  # a header over two rows (merged cells):
        above = [shown(v) for v in rows[lines[0] - 2]]  # an empty name takes the one above
        header = [h or (above[j] if j < len(above) else "") for j, h in enumerate(header)]
    while header and not header[-1]:  # empty cells right of the last name
        header.pop()
    columns = check_header(path, header, lines[0])
    width = len(columns)
    body = [[shown(v) for v in rows[i - 1][:width]] for i in lines[1:]]
    body = [row + [""] * (width - len(row)) for row in body]
    if path.suffix.lower() in (".xlsx", ".xlsm") and any("" in row for row in body):
        _refuse_unsaved(path, sheet_name)
    data = {name: [row[j] for row in body] for j, name in enumerate(columns)}
    return columns, data, np.asarray(lines[1:], dtype=np.int64)


def _refuse_unsaved(path: Path, sheet: str) -> None:
    """Refuse a sheet with formulas saved without results (they would read as empty)."""
    unsaved = formulas_without_results(path, sheet)
    if unsaved:
        more = f" and {len(unsaved) - 3} more" if len(unsaved) > 3 else ""
        raise fail(path, None, None, f"cells {', '.join(unsaved[:3])}{more} of sheet "
                   f"{sheet!r} are formulas without saved results: open and save the file "
                   "in a spreadsheet program")


def unparsed(data: dict[str, Any], numeric: list[str]) -> dict[str, Any]:
    """``data`` with numeric arrays holding a null or non-finite value turned back into text.

    So the reader reports those values as it does in a CSV file.
    """
    out = dict(data)
    for name in numeric:
        values = out.get(name)
        if isinstance(values, np.ndarray) and not np.isfinite(values).all():
            out[name] = ["" if math.isnan(v) else repr(v) for v in values.tolist()]
    return out


class ParquetBatches:
    """Record batches of a Parquet file with the stream's types: numeric columns float64,
    every other column text (a :class:`pyarrow.RecordBatchReader` look-alike)."""

    def __init__(self, path: Path, numeric: tuple[str, ...], rows: int = 65_536):
        import pyarrow as pa

        self.file = parquet_file(path)
        self.kinds = {f.name: f.type for f in self.file.schema_arrow}
        if any(not is_number(self.kinds[n]) for n in numeric if n in self.kinds):
            raise ValueError("a score column that is not numeric")
        self.numeric = numeric
        self.rows = rows
        self.schema = pa.schema([(n, pa.float64() if n in numeric else pa.string())
                                 for n in self.kinds])

    def __iter__(self) -> Any:
        import pyarrow as pa

        for batch in self.file.iter_batches(batch_size=self.rows):
            columns = [as_float(c) if n in self.numeric else as_text(c)
                       for n, c in zip(batch.schema.names, batch.columns)]
            yield pa.record_batch(columns, schema=self.schema)

    def close(self) -> None:
        """Close the file."""
        self.file.close()


def formulas_without_results(path: Path, sheet: str) -> list[str]:
    """The cells (``B2``...) of an ``.xlsx`` sheet holding a formula but no saved value.

    openpyxl and other libraries write formulas without computing them; a spreadsheet
    program computes and saves the results when it saves the file. calamine reads such
    cells as empty, so they are looked up in the sheet's XML.
    """
    import re
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            part = _sheet_part(archive, sheet)
            if part is None:
                return []
            xml = archive.read(part).decode("utf-8", errors="replace")
    except (OSError, zipfile.BadZipFile, KeyError):
        return []
    if "<f" not in xml:
        return []
    # A formula (<f>…</f> or <f …/>) followed by the cell's end, or by an empty value.
    found = re.finditer(r"<f\b[^>]*(?:/>|>[^<]*</f>)\s*(?:<v\s*/>|<v>\s*</v>)?\s*</c>", xml)
    cells = []
    for match in found:
        start = xml.rfind("<c ", 0, match.start())
        ref = re.match(r'<c\b[^>]*?\br="([A-Z]+[0-9]+)"', xml[start:match.start()])
        if ref:
            cells.append(ref.group(1))
    return cells


def _sheet_part(archive: Any, sheet: str) -> str | None:
    """The path inside an ``.xlsx`` archive of the sheet called ``sheet``."""
    import re

    book = archive.read("xl/workbook.xml").decode("utf-8", errors="replace")
    rels = archive.read("xl/_rels/workbook.xml.rels").decode("utf-8", errors="replace")
    for tag in re.findall(r"<(?:\w+:)?sheet\b[^>]*>", book):
        name = re.search(r'\bname="([^"]*)"', tag)
        rid = re.search(r'\br:id="([^"]*)"', tag) or re.search(r'\bid="([^"]*)"', tag)
        if name and rid and _unescape(name.group(1)) == sheet:
            for rel in re.findall(r"<Relationship\b[^>]*>", rels):
                if f'Id="{rid.group(1)}"' in rel:
                    target = re.search(r'Target="([^"]*)"', rel)
                    if target:
                        t = target.group(1)
                        return t.lstrip("/") if t.startswith("/") else f"xl/{t}"
    return None


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)
