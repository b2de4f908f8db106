"""The careful mode: the bytes of a CSV, TSV or JSONL text parsed into raw fields, lines kept.

The csv module (``strict=True``) and ``json`` line by line, which keep exact physical
line numbers for error messages and handle anything unusual (quotes, blank lines, ragged
rows). :func:`triage.ingest.read.read_table` validates what comes back; clean files take
the fast mode (:mod:`triage.ingest.read.fast`) instead, which gives the same result.
:func:`json_lines` is the one loop over JSON Lines, which the Prodigy reader shares.

Numbers as people write them in text files (:func:`to_float`): ``0.731``, ``0,731`` (a
decimal comma, when the file's dialect says so) and ``73%`` (a whole column of
percentages reads as fractions); a value that is not a number gets a reason, with the
option that would read it when there is one (``--decimal ,``).
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
from collections.abc import Iterable, Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from triage.base.errors import InputError, Problem, TriageError
from triage.base.progress import Progress as Progress

PROGRESS_EVERY = 50_000
VALUE_SHOWN = 40


def _breaks(record: list[str]) -> int:
    """Line breaks inside the fields of one parsed record (CR, LF and CRLF each count 1)."""
    return sum(f.count("\n") + f.count("\r") - f.count("\r\n") for f in record)


def record_chunks(path: Path, lines: Iterable[str], delimiter: str, strict: bool = True,
                  size: int | None = None) -> Iterator[tuple[list[list[str]], np.ndarray]]:
    """The records of delimited text, ``size`` at a time, with the line each starts on.

    ``lines`` is a text stream opened with ``newline=""`` (a file, or ``io.StringIO``);
    ``size`` None is :data:`PROGRESS_EVERY`. ``strict`` False reads stray quotes as the csv
    module does by default (for a preview).
    """
    size = size or PROGRESS_EVERY
    csv.field_size_limit(2**31 - 1)  # long texts are legitimate; the default is 128 KiB
    reader = csv.reader(lines, delimiter=delimiter, strict=strict)
    end = 0
    while True:
        try:
            chunk = list(itertools.islice(reader, size))
        except csv.Error as error:
            raise fail(path, reader.line_num, None, f"cannot parse ({error}); check the "
                        "quoting on this line or the one it continues") from error
        if not chunk:
            return
        new_end = reader.line_num
        if new_end - end == len(chunk):  # the usual case: one record per line
            starts = np.arange(end + 1, new_end + 1, dtype=np.int64)
        else:  # quoted line breaks inside fields: count them per record
            spans = np.fromiter((1 + _breaks(r) for r in chunk), np.int64, len(chunk))
            starts = end + 1 + np.concatenate(([0], np.cumsum(spans)[:-1]))
        end = new_end
        yield chunk, starts


def parse_delimited(path: Path, text: str, delimiter: str, total: int,
                     progress: Progress | None, strict: bool = True
                     ) -> tuple[list[list[str]], np.ndarray]:
    """All records (header included) and the physical start line of each.

    ``strict`` False reads stray quotes as the csv module does by default (for a preview).
    """
    records: list[list[str]] = []
    starts: list[np.ndarray] = []
    for chunk, lines in record_chunks(path, io.StringIO(text, newline=""), delimiter, strict):
        records.extend(chunk)
        starts.append(lines)
        tick(progress, len(records), total)
    lines = np.concatenate(starts) if starts else np.zeros(0, np.int64)
    return records, lines


def _json_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def json_lines(text: str) -> Iterator[tuple[int, Any, json.JSONDecodeError | None]]:
    """(line, value, None) per non-blank line of JSON Lines text; (line, None, error) if not JSON."""
    for number, raw in enumerate(text.split("\n"), start=1):
        if not raw.strip():
            continue
        try:
            yield number, json.loads(raw), None
        except json.JSONDecodeError as error:
            yield number, None, error


def parse_jsonl(path: Path, text: str, total: int, progress: Progress | None,
                 problems: list[tuple[int, str | int | None, str]]
                 ) -> tuple[list[str], list[list[str]], np.ndarray]:
    """Columns, records (aligned to the columns) and source lines of a JSONL text."""
    columns: dict[str, int] = {}
    objects: list[dict] = []
    lines: list[int] = []
    for number, obj, error in json_lines(text):
        if error is not None:
            problems.append((number, error.colno, f"not valid JSON: {error.msg}"))
            continue
        if not isinstance(obj, dict):
            problems.append((number, None, f"expected a JSON object, found {type(obj).__name__}"))
            continue
        for key in obj:
            columns.setdefault(key, len(columns))
        objects.append(obj)
        lines.append(number)
        if len(lines) % PROGRESS_EVERY == 0:
            tick(progress, len(lines), total)
    names = list(columns)
    records = [[_json_text(obj.get(name)) for name in names] for obj in objects]
    return names, records, np.asarray(lines, dtype=np.int64)


def delimited_columns(path: Path, text: str, delimiter: str, total: int,
                       progress: Progress | None, problems: list, ragged: list,
                       header_row: int | None = None
                       ) -> tuple[list[str], list[list[str]], np.ndarray]:
    """Header names, data columns and data-row lines of a CSV/TSV file.

    The header is the first non-blank record, or the first one starting on or after line
    ``header_row``; records above it (a title) are left out.
    """
    rows, starts = parse_delimited(path, text, delimiter, total, progress)
    first = next((i for i, r in enumerate(rows)  # csv gives [] if blank
                  if r and (header_row is None or starts[i] >= header_row)), None)
    if first is None:
        if header_row is not None and any(rows):
            raise fail(path, header_row, None, f"no header on or after line {header_row} "
                       f"(the file has {int(starts[-1])} lines): check --header-row")
        raise fail(path, 1, None, "the file is empty; a header row is required")
    names = check_header(path, rows[first], int(starts[first]))
    records, kept = split_ragged(rows, starts, first, len(names), problems, ragged)
    del rows
    values = [list(c) for c in zip(*records)] if records else [[] for _ in names]
    return names, values, starts[np.asarray(kept, dtype=np.int64)]


def split_ragged(rows: list[list[str]], starts: np.ndarray, header: int, width: int,
                  problems: list, ragged: list) -> tuple[list[list[str]], list[int]]:
    """Records of the right width and their indexes; the others go to ``problems``."""
    widths = set(map(len, rows[header + 1:]))
    if widths <= {width}:  # the usual case: no per-row loop
        return rows[header + 1:], list(range(header + 1, len(rows)))
    records, kept = [], []
    for i in range(header + 1, len(rows)):
        record = rows[i]
        if len(record) == width:
            records.append(record)
            kept.append(i)
        elif record:  # [] is a blank line, which is allowed
            problems.append((int(starts[i]), None,
                             f"expected {width} fields, found {len(record)}"))
            ragged.append(record)
    return records, kept


def fail(path: Path, line: int | None, column: str | int | None, reason: str) -> InputError:
    """An :class:`InputError` holding one problem, for the caller to raise."""
    return InputError([Problem(str(path), line, column, reason)])


def tick(progress: Progress | None, done: int, total: int) -> None:
    """Report progress; TriageError("cancelled") when the callback returns False."""
    if progress is not None and progress(done, max(total, done)) is False:
        raise TriageError("cancelled")


def check_header(path: Path, header: list[str], line: int) -> list[str]:
    """The stripped header names; InputError for empty or duplicate names."""
    names = [h.strip() for h in header]
    problems = []
    seen: dict[str, int] = {}
    for i, name in enumerate(names, start=1):
        if not name:
            problems.append(Problem(str(path), line, i, "empty column name in the header"))
        elif name in seen:
            problems.append(Problem(str(path), line, name,
                                    f"duplicate column name (columns {seen[name]} and "
                                    f"{i}): rename one of them"))
        else:
            seen[name] = i
    if problems:
        raise InputError(problems)
    return names


def shorten(value: str, limit: int = VALUE_SHOWN) -> str:
    """``repr`` of ``value`` cut to ``limit`` characters, for error messages."""
    if len(value) > limit:
        value = value[: limit - 1] + "…"
    return repr(value)


def _written(values: Sequence[str], decimal: str) -> Sequence[str]:
    """Numbers as Python reads them: a decimal comma made a point (never beside a point);
    a column whose every non-empty value is a percentage (``73%``) as fractions."""
    if decimal == ",":
        values = [v if "." in v else v.replace(",", ".") for v in values]
    present = [v.strip() for v in values if v.strip()]
    if present and all(v.endswith("%") for v in present):
        return [_fraction(v) for v in values]
    return values


def _fraction(value: str) -> str:
    """``'73%'`` as ``'0.73'`` (the shortest float of the decimal text / 100)."""
    text = value.strip()
    if not text.endswith("%"):
        return value
    try:
        return repr(float(Decimal(text[:-1].strip()) / 100))
    except ArithmeticError:
        return value


def to_float(values: Sequence[str], decimal: str = "."
              ) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Parse finite floats; returns (array with NaN where bad, [(index, reason)]).

    Plain numbers take one C loop; anything else goes through :func:`_written` first.
    """
    try:
        array = np.fromiter(map(float, values), np.float64, len(values))
        bad: list[tuple[int, str]] = []
    except ValueError:
        original, values = values, _written(values, decimal)
        array, bad = _parsed(values, original)
    failed = {i for i, _ in bad}
    for i in np.flatnonzero(~np.isfinite(array)).tolist():
        if i not in failed:
            bad.append((i, f"{shorten(values[i])} is not a finite number"))
    bad.sort()
    return array, bad


def _parsed(values: Sequence[str], original: Sequence[str]
            ) -> tuple[np.ndarray, list[tuple[int, str]]]:
    """Each value as a float (NaN where it is not a number), and the reasons."""
    array = np.empty(len(values), dtype=np.float64)
    bad: list[tuple[int, str]] = []
    for i, value in enumerate(values):
        try:
            array[i] = float(value)
        except ValueError:
            array[i] = math.nan
            reason = ("empty value where a number is required" if not value.strip()
                      else f"{shorten(original[i])} is not a number{_hint(original[i])}")
            bad.append((i, reason))
    return array, bad


def _hint(value: str) -> str:
    """The option that reads a number written another way (``0,731``, ``73%``)."""
    text = value.strip()
    if "," in text and "." not in text:
        try:
            float(text.replace(",", "."))
            return " (a decimal comma? give --decimal ,)"
        except ValueError:
            return ""
    if text.endswith("%"):
        return " (percentages are read only when every value of the column is one)"
    return ""
