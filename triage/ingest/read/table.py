"""Reading candidate files (CSV, TSV, JSONL, Parquet, spreadsheets): validated, errors located.

One entry point, :func:`read_table`. It reads the whole file, checks everything the caller
asks for, and either returns a :class:`Table` or raises :class:`InputError` listing every
problem as ``file:line: column C: reason`` (the first 20, then a count). Line numbers are
*physical* lines of the file (1-based), so a quoted CSV field spanning three lines moves
the following rows down by two, exactly as an editor shows them.

Format choices (documented for users in docs/formats.md; Parquet and spreadsheets are
read whole by :mod:`triage.ingest.read.columnar` and checked here the same way):
- the format comes from the extension: ``.csv``/``.txt`` comma, ``.tsv``/``.tab`` tab (same
  quoting rules as CSV), ``.jsonl``/``.ndjson`` one JSON object per line;
- text must be UTF-8 (a BOM is accepted); header names are stripped of surrounding space;
- blank lines are ignored in every format;
- JSONL keys become columns in first-seen order; a key absent on a line reads as ``""``;
  strings are kept as they are, ``null`` is ``""``, numbers and booleans are their JSON
  spelling, nested objects/arrays are kept as JSON text.

Numeric columns come back as ``np.ndarray[float64]`` (finite values only); every other
column as ``list[str]``.
"""

from __future__ import annotations

import codecs
import gc
import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from triage.base.errors import InputError, Problem
from triage.ingest.read import columnar
from triage.ingest.read.careful import (
    Progress,
    delimited_columns,
    fail,
    parse_jsonl,
    shorten,
    tick,
    to_float,
)
from triage.ingest.read.dialect import PLAIN, Dialect, encoding_name, not_utf8
from triage.ingest.read.fast import all_unique, any_blank, fast_delimited, fast_jsonl
from triage.ingest.read.rule import COLUMNAR, format_of

# Problems kept on the exception (the message shows InputError.SHOWN of them).
PROBLEMS_KEPT = 1000


@dataclass
class Table:
    """A validated table: columns in file order, one physical source line per row.

    ``data`` holds float64 arrays for numeric columns and, for the others, ``list[str]``
    (careful parser) or an Arrow string array (fast mode); :meth:`column` and
    :meth:`arrow` give either form, converting once on demand.
    """

    path: Path
    format: str
    columns: list[str]
    lines: np.ndarray
    data: dict[str, Any]
    rejected: list[tuple[int, dict[str, str], str]] = field(default_factory=list)
    _lists: dict[str, list[str]] = field(default_factory=dict, init=False, repr=False)

    def __len__(self) -> int:
        return len(self.lines)

    def _values(self, name: str) -> Any:
        if name not in self.data:
            raise KeyError(f"{self.path}: no column {name!r} (has: {', '.join(self.columns)})")
        return self.data[name]

    def column(self, name: str) -> list[str] | np.ndarray:
        """Values of ``name``: float64 array for numeric columns, else ``list[str]``."""
        values = self._values(name)
        if isinstance(values, list | np.ndarray):
            return values
        if name not in self._lists:
            self._lists[name] = values.to_pylist()
        return self._lists[name]

    def arrow(self, name: str) -> Any:
        """Values of a text column as an Arrow (large) string array, without Python objects."""
        values = self._values(name)
        if isinstance(values, list):
            from triage.base.arrow import strings

            return strings(values)
        return values

    def numbers(self, name: str) -> np.ndarray:
        """Values of a column read as ``numeric``: a float64 array."""
        values = self.column(name)
        if not isinstance(values, np.ndarray):
            raise TypeError(f"{self.path}: column {name!r} was not read as numeric")
        return values

    def strings(self, name: str) -> list[str]:
        """Values of a column not read as ``numeric``: its text, one string per row."""
        values = self.column(name)
        if isinstance(values, np.ndarray):
            raise TypeError(f"{self.path}: column {name!r} was read as numeric")
        return values

    def row(self, index: int) -> dict[str, object]:
        """Row ``index`` (0-based) as a dict, for previews and error messages."""
        return {name: self.column(name)[index] for name in self.columns}


def decode_utf8(path: Path, data: bytes) -> str:
    """Decode ``data`` as UTF-8 (BOM allowed); errors name line, character and the fix.

    The fix is the encoding the file more likely is in, and the option that reads it so.
    """
    start = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[start:].decode("utf-8")
    except UnicodeDecodeError as error:
        line, character, other = not_utf8(data[start:], error.start)
        raise fail(path, line, None, f"not UTF-8 (byte 0x{data[start + error.start]:02x} at "
                   f"character {character}); it reads as {encoding_name(other)}: give "
                   f"--encoding {other} (or save the file as UTF-8)") from error


def decode(path: Path, data: bytes, encoding: str) -> str:
    """Decode ``data`` in ``encoding`` (UTF-8: :func:`decode_utf8`); errors name the line."""
    if encoding.lower().replace("_", "-") in ("utf-8", "utf8", "utf-8-sig"):
        return decode_utf8(path, data)
    try:
        return data.decode(encoding)
    except LookupError:
        raise fail(path, None, None, f"unknown encoding {encoding!r}; use utf-8, cp1252 "
                   "or latin-1") from None
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise fail(path, line, None, f"not {encoding} (byte 0x{data[error.start]:02x}); "
                   "give --encoding latin-1, which reads any byte") from error


def _duplicates(values: list[str], alive: np.ndarray, lines: np.ndarray
                ) -> list[tuple[int, str]]:
    """(index, reason) for each later occurrence of a value among the ``alive`` rows."""
    import pandas as pd

    candidates = values if alive.all() else [values[i] for i in np.flatnonzero(alive)]
    if pd.Index(np.asarray(candidates, dtype=object)).is_unique:  # a C hash table: fast
        return []
    first: dict[str, int] = {}
    out = []
    for i in np.flatnonzero(alive).tolist():
        value = values[i]
        if value in first:
            out.append((i, f"duplicate value {shorten(value)} (first on line "
                           f"{int(lines[first[value]])})"))
        else:
            first[value] = i
    return out


def read_table(
    path: str | Path,
    *,
    numeric: Iterable[str] = (),
    required: Iterable[str] = (),
    nonempty: Iterable[str] = (),
    unique: Iterable[str] = (),
    skip_invalid: bool = False,
    progress: Progress | None = None,
    sheet: str | None = None,
    dialect: Dialect | None = None,
) -> Table:
    """Read and validate a CSV/TSV/JSONL, Parquet or spreadsheet file.

    ``numeric``, ``nonempty`` and ``unique`` columns are implicitly required. Every row is
    checked; problems raise one :class:`InputError`. With ``skip_invalid`` the bad rows
    are left out and listed in ``table.rejected`` as (line, raw row, reason) instead; the
    file being unreadable or lacking a required column still raises.
    ``progress(done_rows, total_estimate)`` is called every 50,000 rows by the careful
    parser, and once by the fast mode (which reads a million rows in about 0.1 s);
    returning False raises ``TriageError("cancelled")``. ``sheet`` names a workbook's
    sheet (None: the first); other formats ignore it. ``dialect`` says how a text file is
    written (delimiter, decimal separator, encoding, header line; see
    :mod:`triage.ingest.read.dialect`) and, for a workbook, its sheet and header row.
    """
    path = Path(path)
    kind = format_of(path)
    dialect = dialect or PLAIN
    sheet = sheet or dialect.sheet
    numeric, nonempty, unique = list(numeric), list(nonempty), list(unique)
    required = list(dict.fromkeys([*required, *numeric, *nonempty, *unique]))
    if kind in COLUMNAR:
        columns, cells, lines = (columnar.read_parquet(path, numeric) if kind == "parquet"
                                 else columnar.read_sheet(path, sheet, dialect.header_row))
        tick(progress, len(lines), len(lines))
        _require(path, kind, columns, required, None if kind == "parquet" else 1)
        return _validate(path, kind, columns, lines, columnar.unparsed(cells, numeric),
                         numeric, nonempty, unique, skip_invalid, [], [], dialect.decimal)
    if dialect.arrow():
        table = _read_fast(path, kind, numeric, required, nonempty, unique, progress,
                           dialect.delimiter_for(kind))
        if table is not None:
            return table
    try:
        data = path.read_bytes()
    except OSError as error:
        raise fail(path, None, None, f"cannot be read ({error.strerror or error})") from error
    text = decode(path, data, dialect.encoding)
    total = data.count(b"\n") + 1
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of small lists: the cyclic GC would triple the parse time
    try:
        return _read(path, kind, text, total, numeric, required, nonempty, unique,
                     skip_invalid, progress, dialect)
    finally:
        if gc_was_enabled:
            gc.enable()


def _read_fast(path: Path, kind: str, numeric: list[str], required: list[str],
               nonempty: list[str], unique: list[str], progress: Progress | None,
               delimiter: str) -> Table | None:
    """The table when the fast mode can read the file and every check passes, else None.

    A file with any problem goes to the careful parser, which reports (or, with
    ``skip_invalid``, drops) exactly what is wrong; so nothing here explains an error.
    """
    if kind == "jsonl":
        parsed = fast_jsonl(path, numeric)
    else:
        parsed = fast_delimited(path, delimiter, numeric)
    if parsed is None:
        return None
    columns, data, lines = parsed
    if any(name not in columns for name in required):
        return None
    for name in nonempty:
        if isinstance(data[name], np.ndarray) or any_blank(data[name]):
            return None
    for name in unique:  # numbers are compared as written ("1" != "1.0"): the careful mode
        if isinstance(data[name], np.ndarray) or not all_unique(data[name]):
            return None
    tick(progress, len(lines) + 1, len(lines) + 1)
    return Table(path, kind, columns, lines, data)


def _read(path: Path, kind: str, text: str, total: int, numeric: list[str],
          required: list[str], nonempty: list[str], unique: list[str],
          skip_invalid: bool, progress: Progress | None, dialect: Dialect) -> Table:
    # (line, column, reason) for each problem; row numbers below index the kept records.
    problems: list[tuple[int, str | int | None, str]] = []
    ragged: list[list[str]] = []  # the raw fields of each width problem, for rejects
    if kind == "jsonl":
        columns, records, lines = parse_jsonl(path, text, total, progress, problems)
        if not columns:
            _no_objects(path, text, problems)
        values = [list(c) for c in zip(*records)] if records else [[] for _ in columns]
        del records
    else:
        columns, values, lines = delimited_columns(
            path, text, dialect.delimiter_for(kind), total, progress, problems,
            ragged, header_row=dialect.header_row)
    _require(path, kind, columns, required, None if kind == "jsonl" else 1)
    rejected = [(line, dict(zip(columns, fields)) if fields else {}, reason)
                for (line, _col, reason), fields in itertools.zip_longest(problems, ragged)]
    return _validate(path, kind, columns, lines, dict(zip(columns, values)), numeric,
                     nonempty, unique, skip_invalid, problems, rejected, dialect.decimal)


def _no_objects(path: Path, text: str, problems: list) -> None:
    """Refuse a JSONL file without one JSON object: empty, a JSON array, or other lines."""
    if text.lstrip("\ufeff \t\r\n").startswith("["):
        raise fail(path, 1, None, "the file holds a JSON array, not one JSON object per "
                   "line: save it as JSON Lines (one object per line)")
    if not problems:
        raise fail(path, None, None, "the file is empty (no JSON objects)")
    _raise(path, problems)


def _require(path: Path, kind: str, columns: list[str], required: list[str],
             line: int | None) -> None:
    """InputError naming every required column the file lacks (on the header ``line``)."""
    missing = [name for name in required if name not in columns]
    if missing:
        has = ", ".join(repr(c) for c in columns) or "none"
        raise InputError([Problem(str(path), line, name,
                                  f"required column {name!r} is missing; the file has "
                                  f"columns {has}") for name in missing])


def _validate(path: Path, kind: str, columns: list[str], lines: np.ndarray, raw: dict,
              numeric: list[str], nonempty: list[str], unique: list[str],
              skip_invalid: bool, problems: list, rejected: list,
              decimal: str = ".") -> Table:
    """Check values (numbers, empties, duplicates); raise, or drop bad rows when skipping.

    ``raw`` holds strings, except numeric columns the fast mode has already converted.
    """
    table_data: dict[str, list[str] | np.ndarray] = dict(raw)
    n = len(lines)
    bad: list[tuple[int, str, str]] = []  # (row index, column, reason)
    for name in numeric:
        if isinstance(raw[name], np.ndarray):
            continue
        array, errors = to_float(raw[name], decimal)
        table_data[name] = array
        bad.extend((i, name, reason) for i, reason in errors)
    for name in nonempty:
        column = raw[name]
        if not all(map(str.strip, column)):  # the loop only runs when something is empty
            bad.extend((i, name, "empty value") for i, v in enumerate(column) if not v.strip())
    alive = np.ones(n, dtype=bool)
    if skip_invalid and bad:
        alive[[i for i, _c, _r in bad]] = False
    for name in unique:
        bad.extend((i, name, reason) for i, reason in _duplicates(raw[name], alive, lines))
    if not skip_invalid:
        problems.extend((int(lines[i]), col, reason) for i, col, reason in bad)
        if problems:
            _raise(path, problems)
        return Table(path, kind, columns, lines, table_data)
    return _drop(path, kind, columns, lines, table_data, raw, bad, rejected)


def _drop(path: Path, kind: str, columns: list[str], lines: np.ndarray, data: dict,
          raw: dict[str, list[str]], bad: list[tuple[int, str, str]],
          rejected: list[tuple[int, dict, str]]) -> Table:
    """The table without the ``bad`` rows, which go to ``table.rejected``."""
    reasons: dict[int, list[str]] = {}
    for i, col, reason in bad:
        reasons.setdefault(i, []).append(f"column {col}: {reason}")
    out = list(rejected)
    for i, why in reasons.items():
        out.append((int(lines[i]), {c: raw[c][i] for c in columns}, "; ".join(why)))
    out.sort(key=lambda item: item[0])
    if reasons:
        keep = np.ones(len(lines), dtype=bool)
        keep[list(reasons)] = False
        index = np.flatnonzero(keep).tolist()
        for name, values in data.items():
            if isinstance(values, np.ndarray):
                data[name] = values[keep]
            else:
                data[name] = [values[i] for i in index]
        lines = lines[keep]
    return Table(path, kind, columns, lines, data, out)


def _raise(path: Path, problems: list[tuple[int, str | int | None, str]]) -> None:
    problems.sort(key=lambda p: p[0])
    kept = [Problem(str(path), line, col, reason) for line, col, reason in
            problems[:PROBLEMS_KEPT]]
    raise InputError(kept, total=len(problems))
