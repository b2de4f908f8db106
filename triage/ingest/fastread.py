"""The fast path of reading: clean CSV, TSV and JSONL files parsed by Arrow's C++ readers.

:mod:`triage.ingest.reader` tries this first. It only accepts a file whose result is known
to equal the precise parser's (:mod:`triage.ingest.parsing`) value for value, and returns
None for anything else, after which the precise parser runs and, when something is wrong,
names file, line and column. So the fast path never has to explain an error: every
problem (bad quoting, a ragged row, a non-number, an empty text, a duplicate key...) just
means "not clean".

Delimited files are clean when their quoting is (see :mod:`triage.ingest.scan`: quoted
fields with delimiters, doubled quotes and line breaks inside are clean; a quote inside an
unquoted field or text after a closing quote is not), they have no blank line, a header
of unique, non-empty names without surrounding space, and every row of the header's
width; the scan gives the physical line each record starts on.
Numbers must be finite; the text of string columns is kept byte for byte (Arrow checks
it is UTF-8). JSONL is clean when it has no blank line, every object has every column,
and each column holds only strings, or only numbers (integers; or any numbers in a
numeric column), so that its text is what ``json.dumps`` would have given.

String columns come back as Arrow arrays (no Python object per value), numeric columns
as float64 numpy arrays.
"""

from __future__ import annotations

import codecs
import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from triage.base import arrow
from triage.ingest.scan import scan

SCAN_BYTES = 1 << 20
# Every character Python's str.strip() removes (str.isspace), so that "blank" means the
# same on both paths; tests/test_reader.py checks the list against Python itself.
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
              "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_BLANK = "^[" + "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE) + "]*$"

Columns = dict[str, Any]  # name -> pyarrow string array, or float64 numpy array


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


def _line_count(path: Path) -> int | None:
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


def _source(source: str | bytes | Path) -> Any:
    import pyarrow as pa

    if isinstance(source, Path):
        return str(source)
    return pa.BufferReader(source.encode("utf-8") if isinstance(source, str) else source)


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


def csv_options(delimiter: str) -> Any:
    """Arrow's parse options that read a cleanly quoted file as the csv module does."""
    import pyarrow.csv as pacsv

    return pacsv.ParseOptions(delimiter=delimiter, quote_char='"', double_quote=True,
                              escape_char=False, newlines_in_values=True,
                              ignore_empty_lines=False)


def fast_delimited(source: str | bytes | Path, delimiter: str, numeric: list[str],
                   total: int = 0, progress: Any = None
                   ) -> tuple[list[str], Columns, np.ndarray] | None:
    """Columns of a clean CSV/TSV (text, bytes or a path); None when it is not clean."""
    first = first_line(source)
    if first is None:
        return None
    names = header_names(first, delimiter)
    if names is None:
        return None
    data = source.encode("utf-8") if isinstance(source, str) else source
    found = scan(data, delimiter, lines=True)
    if found is None or found.lines is None:
        return None
    import pyarrow as pa
    import pyarrow.csv as pacsv

    # Strings with int32 offsets: each chunk is small, and 4 bytes a row less than large.
    types = {n: pa.float64() if n in numeric else pa.string() for n in names}
    try:
        table = pacsv.read_csv(
            _source(source), parse_options=csv_options(delimiter),
            convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                                 strings_can_be_null=False,
                                                 check_utf8=True))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    if table.column_names != names or table.num_rows != found.records:
        return None
    out = _columns(table, numeric)
    if out is None:
        return None
    if len(names) == 1 and not isinstance(out[names[0]], np.ndarray) \
            and _has_empty(out[names[0]]):
        return None  # a blank line, which the precise parser skips (wider rows fail above)
    if progress is not None:
        progress(table.num_rows + 1, max(total, table.num_rows + 1))
    return names, out, found.lines


def _columns(table: Any, numeric: list[str]) -> Columns | None:
    """name -> values; None when a number is not finite or anything is null.

    String columns stay chunked Arrow arrays (concatenating would copy them); numbers
    become one float64 array.
    """
    out: Columns = {}
    for name in table.column_names:
        column = table.column(name)
        if column.null_count:
            return None
        if name in numeric:
            values = arrow.to_numpy(column)
            if not np.isfinite(values).all():
                return None
            out[name] = values
        else:
            out[name] = column
    return out


def fast_jsonl(path: Path, numeric: list[str]) -> tuple[list[str], Columns, np.ndarray] | None:
    """Columns of a clean JSONL file; None when it is not clean (see the module docstring)."""
    first, lines = first_line(path), _line_count(path)
    if first is None or lines is None:
        return None
    try:
        head = json.loads(first)
    except ValueError:
        return None
    if not isinstance(head, dict) or not head:
        return None
    import pyarrow as pa
    import pyarrow.json as pajson

    try:
        table = pajson.read_json(str(path))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
    names = list(head)
    if table.num_rows != lines or sorted(table.column_names) != sorted(names):
        return None  # some later line has a key the first line lacks
    out: Columns = {}
    for name in names:
        column = table.column(name)
        kind = column.type
        if column.null_count:
            return None
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            if name in numeric:
                return None  # numbers written as strings: the precise parser reads them
            out[name] = column.cast(pa.large_string())
        elif pa.types.is_integer(kind) or (pa.types.is_floating(kind) and name in numeric):
            try:
                out[name] = column.cast(pa.float64() if name in numeric else pa.large_string())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                return None  # an integer beyond float64's exact range: the precise parser
        else:
            return None  # booleans, nested values, floats outside numeric columns
    columns = _columns(pa.table(out), numeric)
    if columns is None:
        return None
    return names, columns, np.arange(1, table.num_rows + 1, dtype=np.int64)


def _has_empty(values: Any) -> bool:
    import pyarrow.compute as pc

    return bool(pc.any(pc.equal(pc.binary_length(values), 0)).as_py())


def blank(values: Any) -> Any:
    """Boolean Arrow array: is the string empty or whitespace only (as ``str.strip`` sees it)?"""
    import pyarrow.compute as pc

    return pc.match_substring_regex(values, _BLANK)


# Is this byte the first byte of (the UTF-8 encoding of) a WHITESPACE character?
_BLANK_START = np.zeros(256, dtype=bool)
_BLANK_START[[c.encode("utf-8")[0] for c in WHITESPACE]] = True


def any_blank(values: Any) -> bool:
    """True when some string is empty or whitespace only.

    Only strings that are empty or start with (the first byte of) a whitespace character
    can be blank; numpy finds those from the first bytes, and the exact test runs on them.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    for chunk in chunks:
        offsets, data = arrow.string_buffers(chunk, narrow=True)
        starts, lengths = offsets[:-1], np.diff(offsets)
        maybe = lengths == 0
        nonempty = ~maybe
        maybe[nonempty] = _BLANK_START[data[starts[nonempty]]]
        if maybe.any() and pc.any(blank(chunk.filter(arrow.booleans(maybe)))).as_py():
            return True
    return False


def blank_mask(values: Any) -> np.ndarray | None:
    """Which strings of an Arrow string array are blank (see :func:`blank`); None if none.

    As in :func:`any_blank`, numpy picks the few that can be from their first bytes, and
    only those are tested exactly: most columns have none, and then no regex runs at all.
    """
    offsets, data = arrow.string_buffers(values, narrow=True)
    starts, lengths = offsets[:-1], np.diff(offsets)
    maybe = lengths == 0
    nonempty = ~maybe
    maybe[nonempty] = _BLANK_START[data[starts[nonempty]]]
    if not maybe.any():
        return None
    rows = np.flatnonzero(maybe)
    exact = arrow.to_numpy_bool(blank(values.take(arrow.from_numpy(rows))))
    mask = np.zeros(len(values), dtype=bool)
    mask[rows[exact]] = True
    return mask if mask.any() else None


def all_unique(values: Any) -> bool:
    """True when no string occurs twice.

    Sorting 64-bit fingerprints finds the candidates for duplicates with a few bytes per
    row (a hash table of the strings, ``pyarrow.compute.unique``, held a copy of every key:
    0.7 GB at five million); only strings whose fingerprints collide are compared.
    """
    import pyarrow as pa

    from triage.ingest.hashing import fingerprints

    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    prints = np.concatenate([fingerprints(c) for c in chunks] or [np.zeros(0, np.uint64)])
    ranked = np.sort(prints)
    same = ranked[1:][ranked[1:] == ranked[:-1]]
    if same.size == 0:
        return True
    rows = np.flatnonzero(np.isin(prints, same))
    suspects = values.take(arrow.from_numpy(rows.astype(np.int64))).to_pylist()
    return len(set(suspects)) == len(suspects)
