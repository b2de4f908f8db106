"""The rule: which files the fast mode (Arrow's C++ readers) may read, the rest going careful.

The format comes from the extension (:func:`format_of`). A text file may take the fast mode
only when Arrow's result is known to equal the careful parser's value for value; this
module holds the checks that prove it before (or beside) the parse: the first line is a
header of unique, non-empty names without surrounding space (:func:`header_names`), a
JSONL file has no blank line (:func:`line_count`), and a CSV/TSV file's quoting is clean
(:func:`scan`). Anything they cannot prove, and anything Arrow itself refuses or the
fast reader finds unclean afterwards, is read by the careful parser, which names file,
line and column of every problem.

The quote scan. Arrow's CSV reader (``newlines_in_values=True``) and Python's csv module (``strict=True``,
the careful path) read a file the same way when every quote character either opens a
field (it follows a delimiter, a line end or the start of the file), closes one (a
delimiter, a line end or the end of the file follows), or is one of a doubled pair inside
a quoted field. Taken in order, quotes then alternate opening and closing (a doubled pair
closes and reopens), which numpy checks on the quote positions alone, chunk by chunk in
bounded memory. Where they differ (``"ab"c``: Arrow reads ``abc``, Python refuses; a quote
inside an unquoted field; a lone CR, which the careful path counts as a line break and
this scan does not) the file is not clean and the careful path reads it.

A line feed outside quotes ends a record; the physical line a record starts on is one
more than the line feeds before it, quoted or not. So the records and their lines come
from two sorted position arrays, not from parsing.
"""

from __future__ import annotations

import codecs
import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from triage.base.errors import TriageError
from triage.ingest.read.columnar import SPREADSHEETS
from triage.ingest.read.dialect import Dialect

BLOCK = 16 << 20
WHOLE_BYTES = 64 << 20  # larger CSV/TSV files: the careful mode a chunk at a time
SCAN_BYTES = 1 << 20
FORMATS = {
    ".csv": "csv", ".txt": "csv",
    ".tsv": "tsv", ".tab": "tsv",
    ".jsonl": "jsonl", ".ndjson": "jsonl",
    ".parquet": "parquet", ".pq": "parquet",
    **SPREADSHEETS,
}
COLUMNAR = ("parquet", "xlsx", "ods")  # read whole by pyarrow or calamine, no lines
QUOTE, LF, CR = ord('"'), ord("\n"), ord("\r")


class NotClean(Exception):
    """The file is not clean (see this module): read it the careful way."""


@dataclass(frozen=True)
class Scan:
    """``records``: data records after the header; ``lines``: the physical line each one
    starts on (only when asked for)."""

    records: int
    lines: np.ndarray | None


def _chunks(source: bytes | Path) -> Iterable[bytes]:
    if isinstance(source, bytes):
        yield source
        return
    with open(source, "rb") as handle:
        yield from iter(lambda: handle.read(BLOCK), b"")


def scan(source: bytes | Path, delimiter: str, lines: bool = False,
         count: bool = True) -> Scan | None:
    """The records (and their start lines) of a cleanly quoted file, or None.

    None when it is not cleanly quoted or cannot be read.

    Without ``count`` only the quoting is checked (``records`` is then -1), which is all
    the stream needs: there Arrow's rows are the csv module's rows, lone CRs included,
    once the quoting is clean, and a blank line shows as a row with an empty text.
    """
    try:
        return _scan(_chunks(source), ord(delimiter), lines, count)
    except OSError:
        return None


def _allowed(values: np.ndarray, delimiter: int) -> np.ndarray:
    """Can a quote border this byte (a delimiter, a line end or another quote)?"""
    return (values == delimiter) | (values == LF) | (values == CR) | (values == QUOTE)


def _scan(chunks: Iterable[bytes], delimiter: int, want_lines: bool,
          count: bool) -> Scan | None:
    # long: one loop carries the state between chunks (quote parity, the byte before, a
    # closing quote or CR at the very end whose next byte is in the next chunk)
    parity = 0  # quotes seen so far, mod 2: 1 inside a quoted field
    before = LF  # the byte before this chunk (the start of the file acts as a line end)
    pending_quote = pending_cr = False
    seen_lf = outside = 0  # line feeds seen; line feeds outside quotes
    starts: list[np.ndarray] = []
    first = True
    for raw in chunks:
        if first:
            raw = raw.removeprefix(codecs.BOM_UTF8)
            first = False
        if not raw:
            continue
        if pending_quote and raw[0] not in (delimiter, LF, CR, QUOTE):
            return None
        if count and pending_cr and raw[0] != LF:
            return None
        # every CR must start a CR LF (bytes.count is a C loop: no numpy pass for this)
        pending_cr = count and raw[-1] == CR
        if count and raw.count(b"\r") - raw.count(b"\r\n") - pending_cr:
            return None
        if b'"' not in raw and not want_lines:  # most chunks of most files: no numpy
            outside += 0 if parity or not count else raw.count(b"\n")
            pending_quote = False
            before = raw[-1]
            continue
        data = np.frombuffer(raw, dtype=np.uint8)
        quotes = np.flatnonzero(data == QUOTE)
        pending_quote = False
        if len(quotes):
            opening = ((np.arange(len(quotes)) + parity) % 2) == 0
            prev = np.where(quotes > 0, data[np.maximum(quotes - 1, 0)], before)
            if not _allowed(prev[opening], delimiter).all():
                return None
            closing = quotes[~opening]
            inner = closing[closing < len(data) - 1]
            if not _allowed(data[inner + 1], delimiter).all():
                return None
            pending_quote = bool(len(closing)) and closing[-1] == len(data) - 1
        if count:
            feeds = np.flatnonzero(data == LF)
            quoted = (np.searchsorted(quotes, feeds) + parity) % 2 == 1
            ends = np.flatnonzero(~quoted)
            if want_lines:
                starts.append(ends + seen_lf + 2)
            outside += len(ends)
            seen_lf += len(feeds)
        parity = (parity + len(quotes)) % 2
        before = raw[-1]
    if parity or pending_cr or first:
        return None
    if not count:
        return Scan(-1, None)
    records = outside + (before != LF) - 1
    if records < 0:
        return None
    found = np.concatenate(starts)[:records] if want_lines and starts else None
    return Scan(records, found if want_lines else None)


def may_stream(dialect: Dialect | None, path: Path) -> bool:
    """May the streamed import (the fast mode in batches) read ``path`` as ``dialect`` says?

    None: as its extension says. Arrow must read it so (UTF-8, a point, the header first),
    with the extension's delimiter.
    """
    if dialect is None:
        return True
    return dialect.fast("tsv" if path.suffix.lower() in (".tsv", ".tab") else "csv")


def suits(path: Path) -> bool:
    """Should the careful mode read ``path`` a chunk at a time (a CSV or TSV over WHOLE_BYTES)?

    Read whole, every field is a Python string: eight times the file in memory.
    """
    try:
        return format_of(path) in ("csv", "tsv") and path.stat().st_size > WHOLE_BYTES
    except OSError:
        return False


def format_of(path: str | Path) -> str:
    """The format (csv, tsv, jsonl, parquet, xlsx, ods) of the extension, or TriageError."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        known = ", ".join(sorted(FORMATS))
        raise TriageError(f"{path}: unknown file type {suffix or '(no extension)'!r}; "
                          f"use one of {known}")
    return FORMATS[suffix]


def first_line(source: str | bytes | Path) -> bytes | None:
    """The first line without BOM and line end (None: empty, unreadable, or a blank first line)."""
    if isinstance(source, Path):
        try:
            with open(source, "rb") as handle:
                data = handle.read(SCAN_BYTES)
                while b"\n" not in data and len(data) % SCAN_BYTES == 0 and data:
                    more = handle.read(SCAN_BYTES)
                    if not more:
                        break
                    data += more
        except OSError:
            return None
    else:
        data = source.encode("utf-8") if isinstance(source, str) else source
    data = data.removeprefix(codecs.BOM_UTF8)
    if not data or data[:1] in (b"\r", b"\n"):
        return None
    return data.split(b"\n", 1)[0].rstrip(b"\r")


def line_count(path: Path) -> int | None:
    """Physical lines of a file with no blank line (LF, CR LF); None when it has one."""
    lines, tail = 0, b"\n"
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(SCAN_BYTES), b""):
                window = tail + chunk
                if b"\n\n" in window or b"\n\r\n" in window or b"\r\r" in window:
                    return None
                lines += chunk.count(b"\n")
                tail = window[-2:]
    except OSError:
        return None
    return lines + (not tail.endswith(b"\n"))


def header_names(first: bytes, delimiter: str) -> list[str] | None:
    """The names of a header line as the csv module splits it (quotes allowed), or None.

    None when they are not unique, non-empty names without surrounding space.
    """
    try:
        line = first.decode("utf-8")
        names = next(csv.reader([line], delimiter=delimiter, strict=True))
    except (UnicodeDecodeError, csv.Error, StopIteration):
        return None
    if len(set(names)) != len(names) or any(not n or n != n.strip() for n in names):
        return None
    return names


def header(source: str | bytes | Path, kind: str, delimiter: str = ",") -> list[str] | None:
    """The column names the fast mode would read, or None when it cannot take the file.

    A CSV/TSV header as :func:`header_names` checks it; a JSONL file's first line as a
    non-empty JSON object, whose keys are the columns.
    """
    first = first_line(source)
    if first is None:
        return None
    if kind != "jsonl":
        return header_names(first, delimiter)
    try:
        head = json.loads(first)
    except ValueError:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None
    return list(head) if isinstance(head, dict) and head else None
