"""One pass over the bytes of a CSV/TSV file: is its quoting clean, and where do records start?

Arrow's CSV reader (``newlines_in_values=True``) and Python's csv module (``strict=True``,
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
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

BLOCK = 16 << 20
QUOTE, LF, CR = ord('"'), ord("\n"), ord("\r")


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


def scan(source: bytes | Path, delimiter: str, lines: bool = False) -> Scan | None:
    """The records (and their start lines) of a cleanly quoted file; None when it is not
    cleanly quoted or cannot be read."""
    try:
        return _scan(_chunks(source), ord(delimiter), lines)
    except OSError:
        return None


def _allowed(values: np.ndarray, delimiter: int) -> np.ndarray:
    """Can a quote border this byte (a delimiter, a line end or another quote)?"""
    return (values == delimiter) | (values == LF) | (values == CR) | (values == QUOTE)


def _scan(chunks: Iterable[bytes], delimiter: int, want_lines: bool) -> Scan | None:
    # long: one loop carries the state between chunks (quote parity, the byte before, a
    # closing quote or CR at the very end whose next byte is in the next chunk)
    parity = 0  # quotes seen so far, mod 2: 1 inside a quoted field
    before = LF  # the byte before this chunk (the start of the file acts as a line end)
    pending_quote = pending_cr = False
    seen_lf = outside = 0  # line feeds seen; line feeds outside quotes
    starts: list[np.ndarray] = []
    last = LF
    first = True
    for raw in chunks:
        if first:
            raw = raw.removeprefix(codecs.BOM_UTF8)
            first = False
        if not raw:
            continue
        data = np.frombuffer(raw, dtype=np.uint8)
        if pending_quote and not _allowed(data[:1], delimiter)[0]:
            return None
        if pending_cr and data[0] != LF:
            return None
        quotes = np.flatnonzero(data == QUOTE)
        feeds = np.flatnonzero(data == LF)
        crs = np.flatnonzero(data == CR)
        if len(crs):  # every CR must start a CR LF
            inner = crs[crs < len(data) - 1]
            if (data[inner + 1] != LF).any():
                return None
        pending_cr = bool(len(crs)) and crs[-1] == len(data) - 1
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
        else:
            pending_quote = False
        quoted = (np.searchsorted(quotes, feeds) + parity) % 2 == 1
        ends = np.flatnonzero(~quoted)
        if want_lines:
            starts.append(ends + seen_lf + 2)
        outside += len(ends)
        seen_lf += len(feeds)
        parity = (parity + len(quotes)) % 2
        before = last = int(data[-1])
    if parity or pending_cr or first:
        return None
    records = outside + (last != LF) - 1
    if records < 0:
        return None
    found = np.concatenate(starts)[:records] if want_lines and starts else None
    return Scan(records, found if want_lines else None)
