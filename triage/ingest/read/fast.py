"""The fast mode: clean CSV, TSV and JSONL files parsed by Arrow's C++ readers.

Whole (:func:`fast_delimited`, :func:`fast_jsonl`: None for a file that is not clean) or
as record batches (:func:`open_batches`: :class:`~triage.ingest.read.rule.NotClean`).
A file is accepted only when its result is known to equal the careful parser's
(:mod:`triage.ingest.read.careful`) value for value; anything else goes to the careful
parser, which names file, line and column. So this mode never has to explain an error:
every problem (bad quoting, a ragged row, a non-number, an empty text, a duplicate
key...) just means "not clean".

Delimited files are clean when their quoting is (see :func:`triage.ingest.read.rule.scan`:
quoted fields with delimiters, doubled quotes and line breaks inside are clean; a quote
inside an unquoted field or text after a closing quote is not), they have no blank line,
a header of unique, non-empty names without surrounding space, and every row of the
header's width; the scan gives the physical line each record starts on.
Numbers must be finite; the text of string columns is kept byte for byte (Arrow checks
it is UTF-8). JSONL is clean when it has no blank line, every object has every column,
and each column holds only strings, or only numbers (integers; or any numbers in a
numeric column), so that its text is what ``json.dumps`` would have given.

String columns come back as Arrow arrays (no Python object per value), numeric columns
as float64 numpy arrays. The checks on them (:func:`any_blank`, :func:`blank_mask`,
:func:`all_unique`) mean what the careful checks mean: blank is what ``str.strip`` leaves
empty (:data:`WHITESPACE`), unique compares the text byte for byte.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from triage.base import arrow
from triage.base.errors import InputError
from triage.ingest.read import columnar
from triage.ingest.read.rule import (
    SCAN_BYTES,
    NotClean,
    header,
    line_count,
    scan,
)

READ_BLOCK = 4 << 20  # bytes of file per parsed batch

# Every character Python's str.strip() removes (str.isspace), so that "blank" means the
# same on both paths; tests/test_reader.py checks the list against Python itself.
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
              "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_BLANK = "^[" + "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE) + "]*$"

Columns = dict[str, Any]  # name -> pyarrow string array, or float64 numpy array


def _source(source: str | bytes | Path) -> Any:
    import pyarrow as pa

    if isinstance(source, Path):
        return str(source)
    return pa.BufferReader(source.encode("utf-8") if isinstance(source, str) else source)


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
    names = header(source, "csv", delimiter)
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
        return None  # a blank line, which the careful parser skips (wider rows fail above)
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
    names, lines = header(path, "jsonl"), line_count(path)
    if names is None or lines is None:
        return None
    import pyarrow as pa
    import pyarrow.json as pajson

    try:
        table = pajson.read_json(str(path))
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError):
        return None
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
                return None  # numbers written as strings: the careful parser reads them
            out[name] = column.cast(pa.large_string())
        elif pa.types.is_integer(kind) or (pa.types.is_floating(kind) and name in numeric):
            try:
                out[name] = column.cast(pa.float64() if name in numeric else pa.large_string())
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                return None  # an integer beyond float64's exact range: the careful parser
        else:
            return None  # booleans, nested values, floats outside numeric columns
    columns = _columns(pa.table(out), numeric)
    if columns is None:
        return None
    return names, columns, np.arange(1, table.num_rows + 1, dtype=np.int64)


def _has_empty(values: Any) -> bool:
    import pyarrow.compute as pc

    return bool(pc.any(pc.equal(pc.binary_length(values), 0)).as_py())


def open_batches(path: Path, kind: str, numeric: tuple[str, ...]) -> tuple[list[str], Any]:
    """The column names and a reader of record batches of a file that may be clean."""
    import pyarrow as pa

    if kind == "parquet":
        try:
            batches = columnar.ParquetBatches(path, numeric)
        except (ValueError, InputError) as error:
            raise NotClean() from error
        names = batches.schema.names
        if len(set(names)) != len(names) or len(names) < 2 \
                or any(not n or n != n.strip() for n in names):
            raise NotClean()
        return names, batches
    if kind not in ("csv", "tsv", "jsonl"):
        raise NotClean()  # spreadsheets: read whole, the careful way

    names = header(path, kind, "\t" if kind == "tsv" else ",") or []
    if len(set(names)) != len(names) or any(not n or n != n.strip() for n in names) \
            or len(names) < 2:  # one column: a blank line would be a row (fast_delimited)
        raise NotClean()
    types = {n: pa.float64() if n in numeric else pa.string() for n in names}
    try:
        reader = _open_json(path, types) if kind == "jsonl" else \
            _open_delimited(path, "\t" if kind == "tsv" else ",", types)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as error:
        raise NotClean() from error
    if reader.schema.names != names:
        raise NotClean()
    return names, reader


def _pool() -> Any:
    """Arrow's jemalloc pool when this build has it: the parsed batches come and go by the
    hundred, and jemalloc hands their memory back to the system sooner than the default
    (mimalloc): about 70 MB less at the peak of a five-million-row import, less CPU too."""
    import pyarrow as pa

    try:
        return pa.jemalloc_memory_pool()
    except NotImplementedError:
        return pa.default_memory_pool()


def _open_delimited(path: Path, delimiter: str, types: dict[str, Any]) -> Any:
    import pyarrow.csv as pacsv

    return pacsv.open_csv(
        str(path), memory_pool=_pool(), read_options=pacsv.ReadOptions(block_size=READ_BLOCK),
        parse_options=csv_options(delimiter),
        convert_options=pacsv.ConvertOptions(column_types=types, null_values=[],
                                             strings_can_be_null=False, check_utf8=True))


def _open_json(path: Path, types: dict[str, Any]) -> Any:
    import pyarrow as pa
    import pyarrow.json as pajson

    # The explicit schema makes Arrow refuse what the careful reader would read otherwise
    # (a number in a text column, a string or boolean in a numeric one, an unknown key).
    return pajson.open_json(
        str(path), memory_pool=_pool(), read_options=pajson.ReadOptions(block_size=READ_BLOCK),
        parse_options=pajson.ParseOptions(explicit_schema=pa.schema(types),
                                          unexpected_field_behavior="error"))


def estimate_rows(path: Path) -> int:
    """About how many rows a file has, from its size and its first megabyte's line breaks.

    For progress only; the exact count comes from :func:`count_rows`.
    """
    if path.suffix.lower() in (".parquet", ".pq"):
        return max(1, count_rows(path, "parquet") or 1)
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(SCAN_BYTES)
    except OSError as error:
        raise NotClean() from error
    return max(1, round(size * max(head.count(b"\n"), 1) / max(len(head), 1)))


def count_rows(path: Path, kind: str) -> int | None:
    """Rows of a clean JSONL file (its lines); None for a CSV/TSV whose quoting is clean.

    NotClean for a CSV/TSV whose quoting is not (:func:`~triage.ingest.read.rule.scan`), or a file
    that cannot be read. It runs beside the parse. Arrow skips a blank line of JSONL, so
    the rows read then differ from this count (see
    :func:`triage.ingest.poolstream.import_stream`); in CSV it makes a row of empty
    values of it, whose empty text refuses the batch, so no count is needed there.
    """
    if kind == "parquet":
        try:
            return int(columnar.parquet_file(path).metadata.num_rows)
        except InputError as error:
            raise NotClean() from error
    if kind != "jsonl":
        if scan(path, "\t" if kind == "tsv" else ",", count=False) is None:
            raise NotClean()
        return None
    lines, last = 0, b"\n"
    try:
        with open(path, "rb") as handle:
            for chunk in iter(lambda: handle.read(SCAN_BYTES), b""):
                lines += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError as error:
        raise NotClean() from error
    return lines + (last != b"\n")


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
