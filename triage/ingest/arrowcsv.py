"""The one CSV writer: Arrow columns to CSV, cell for cell what Python's csv module writes.

Every CSV file Triage writes (exports, the rejects of ``--skip-invalid``, any
:func:`triage.ingest.writer.write_table`) goes through :func:`write_lines`. Python's csv
module over one dict per row spends seconds on a million rows; this module builds the
same bytes with Arrow compute kernels, a batch of rows at a time:

- text cells get the spreadsheet formula guard (:func:`triage.ingest.writer.guard_cell`:
  a leading apostrophe for a cell starting with ``= + - @``, tab or CR, unless it is a
  plain decimal number) and the csv module's minimal quoting (a cell holding ``,``, ``"``,
  CR or LF is quoted, quotes doubled);
- integers are written as ``str(int)``; floats as ``repr(float)`` (Arrow's shortest
  round-trip digits, moved into Python's notation), NaN as an empty cell;
- rows end with CR LF, as the csv module's default dialect does.

``tests/test_export.py`` holds the two writers equal on awkward values.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from triage.base import arrow
from triage.base.hidden import reveal_controls
from triage.ingest.atomic import atomic_file, guard_cell

# The plain numbers guard_cell lets through (Python's \d is any Unicode decimal digit).
_PLAIN_NUMBER = r"^[+-]?(\p{Nd}+(\.\p{Nd}*)?|\.\p{Nd}+)([eE][+-]?\p{Nd}+)?$"


_FORMULA_BYTE = np.zeros(256, dtype=bool)
_FORMULA_BYTE[list(b"=+-@\t\r")] = True
# C0 controls but tab, LF and CR, DEL and the C1 controls: what guard_cell shows as ⟨U+…⟩
# markers. RE2 finds them (and the characters that make a cell quoted) in one pass over
# the text, without a temporary array per comparison.
_CONTROL = "[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f\\x{80}-\\x{9f}]"
_NOT_CONTROL = bytes(b for b in range(256) if not (b < 0x20 or b == 0x7F) or b in b"\t\n\r")
_QUOTED = '[",\\r\\n]'


def _controls_revealed(values: Any) -> Any:
    """``values`` with control characters made visible (as guard_cell does); rare: per row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets, data = arrow.string_buffers(values)
    raw = data[offsets[0]:offsets[-1]].tobytes()
    # Almost always none: bytes.translate drops every byte but C0 controls and DEL in one
    # C pass, and a C1 control needs a 0xC2 lead byte; only then does RE2 look per cell.
    if not raw.translate(None, _NOT_CONTROL) and b"\xc2" not in raw:
        return None
    hits = arrow.to_numpy_bool(pc.match_substring_regex(values, _CONTROL))
    rows = np.flatnonzero(hits)
    if rows.size == 0:
        return None
    fixed = [reveal_controls(v) for v in values.take(arrow.from_numpy(rows)).to_pylist()]
    return pc.replace_with_mask(values, arrow.booleans(hits), pa.array(fixed, pa.large_string()))


def text_cells(values: Any) -> Any:
    """Guarded, quoted CSV cells of an Arrow string array (null is an empty cell).

    numpy finds the few cells that need work from the raw bytes (a first byte that may
    start a formula; a quote, comma or line break anywhere); Arrow rewrites only those.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks() if values.num_chunks else arrow.strings([])
    values = values.cast(pa.large_string())
    if values.null_count:
        values = pc.coalesce(values, arrow.text(""))
    revealed = _controls_revealed(values)
    if revealed is not None:
        values = revealed
    offsets, data = arrow.string_buffers(values)
    starts, lengths = offsets[:-1], np.diff(offsets)
    risky = np.zeros(len(values), dtype=bool)
    risky[lengths > 0] = _FORMULA_BYTE[data[starts[lengths > 0]]]
    quote = arrow.to_numpy_bool(pc.match_substring_regex(values, _QUOTED))
    rows = np.flatnonzero(risky | quote)
    if rows.size == 0:
        return values
    # Few cells to change: work on those and put them back; many: on the whole column.
    whole = rows.size * 4 > len(values)
    sub = values if whole else values.take(arrow.from_numpy(rows))
    risky, quote = (risky, quote) if whole else (risky[rows], quote[rows])
    if risky.any():
        guard = pc.and_(arrow.booleans(risky),
                        pc.invert(pc.match_substring_regex(sub, _PLAIN_NUMBER)))
        sub = pc.if_else(guard, _concat(arrow.text("'"), sub), sub)
    quoted = _concat(arrow.text('"'), _doubled_quotes(sub), arrow.text('"'))
    sub = quoted if quote.all() else pc.if_else(arrow.booleans(quote), quoted, sub)
    if whole:
        return sub
    mask = np.zeros(len(values), dtype=bool)
    mask[rows] = True
    return pc.replace_with_mask(values, arrow.booleans(mask), sub)


def _doubled_quotes(values: Any) -> Any:
    """``values`` with every ``"`` doubled, made from the raw buffers in one numpy pass
    (Arrow's ``replace_substring`` is several times slower on text full of quotes)."""
    import pyarrow as pa

    offsets, data = arrow.string_buffers(values)
    text = data[offsets[0]:offsets[-1]]
    at = np.flatnonzero(text == 0x22)
    if at.size == 0:
        return values
    doubled = np.insert(text, at, 0x22)
    moved = offsets - offsets[0] + np.searchsorted(at, offsets - offsets[0])
    return pa.Array.from_buffers(pa.large_string(), len(values),
                                 [None, pa.py_buffer(moved), pa.py_buffer(doubled)])


def _concat(*parts: Any) -> Any:
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(*parts, arrow.text(""))


def int_cells(values: np.ndarray) -> Any:
    """CSV cells of an int64 numpy array."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.cast(arrow.from_numpy(np.asarray(values, dtype=np.int64)), pa.large_string())


def float_cells(values: np.ndarray) -> Any:
    """``repr`` of each float64 (an empty cell for NaN and infinities)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    values = np.asarray(values, dtype=np.float64)
    text = pc.cast(arrow.from_numpy(values), pa.large_string())
    magnitude = np.abs(values)
    exponent = arrow.to_numpy_bool(pc.match_substring(text, "e"))
    with np.errstate(invalid="ignore"):
        # Python: fixed notation for 1e-4 <= |x| < 1e16, else an exponent; Arrow chooses by
        # other rules, so where the two may differ Python formats the (rare) value itself.
        odd = ~np.isfinite(values) | ((magnitude < 1e-4) & (magnitude != 0)) \
            | (exponent & (magnitude < 1e16))
        whole = ~odd & ~exponent & (values == np.trunc(values))  # Arrow 3.0: "3"; Python "3.0"
    if whole.any():
        rows = arrow.from_numpy(np.flatnonzero(whole))
        text = pc.replace_with_mask(text, arrow.booleans(whole),
                                    _concat(text.take(rows), arrow.text(".0")))
    if odd.any():
        index = np.flatnonzero(odd)
        fixed = arrow.strings([repr(v) if np.isfinite(v) else "" for v in values[index].tolist()])
        text = pc.replace_with_mask(text, arrow.booleans(odd), fixed)
    return text


def end_lines(cells: Any) -> Any:
    """The cells of a row's last field with the line end appended (see :func:`write_csv`)."""
    return _concat(cells, arrow.text("\r\n"))


def join_cells(*columns: Any) -> Any:
    """Cells of several fields joined into one (with the commas between them)."""
    import pyarrow.compute as pc

    return pc.binary_join_element_wise(*columns, arrow.text(","))


def write_csv(path: str | Path, fieldnames: Sequence[str], batches: Iterable[list[Any]],
              progress: Callable[[int], None] | None = None) -> int:
    """Write the header and every batch (one array of cells per field) atomically.

    The cells come from :func:`text_cells`, :func:`int_cells`, :func:`float_cells` or
    :func:`value_cells`; the last field's cells must already end the line
    (:func:`end_lines`; :func:`value_cells` does), which spares a copy of every row.
    Returns the number of rows; ``progress(rows_so_far)`` may raise to cancel, which
    leaves any previous file at ``path`` untouched.
    """
    return write_lines(path, fieldnames, _lines(batches), progress)


def write_lines(path: str | Path, fieldnames: Sequence[str], lines: Iterable[Any],
                progress: Callable[[int], None] | None = None) -> int:
    """Write the header and every batch of finished lines (Arrow strings) atomically.

    This is the one place a CSV file is written: the header by the csv module (guarded),
    the lines as their bytes. Returns the number of rows; ``progress(rows_so_far)`` may
    raise to cancel, which leaves any previous file at ``path`` untouched.
    """
    import csv
    import io

    header = io.StringIO()
    csv.writer(header).writerow([guard_cell(n) for n in fieldnames])
    count = 0
    with atomic_file(path, binary=True) as handle:
        handle.write(header.getvalue().encode("utf-8"))
        for batch in lines:
            for chunk in getattr(batch, "chunks", [batch]):
                offsets, data = arrow.string_buffers(chunk)
                handle.write(data[int(offsets[0]):int(offsets[-1])].data)
            count += len(batch)
            if progress is not None:
                progress(count)
    return count


def value_cells(columns: Sequence[Sequence[Any]]) -> list[Any]:
    """CSV cells of columns of Python values (text, numbers, booleans, None); lines end.

    Each cell is what the csv module writes for :func:`~triage.ingest.atomic.guard_cell`
    of the value.
    """
    cells = [text_cells(arrow.strings([_plain(v) for v in values])) for values in columns]
    if cells:
        cells[-1] = end_lines(cells[-1])
    return cells


def _plain(value: Any) -> str | None:
    """A value as the csv module writes it (None and non-finite floats: empty)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        return repr(float(value)) if math.isfinite(value) else ""  # numpy: no "np.float64"
    return str(value)


def _lines(batches: Iterable[list[Any]]) -> Iterator[Any]:
    """Each batch's rows as lines, built two batches at a time on two threads (Arrow's
    kernels release the GIL), in order."""
    from triage.base.jobs import lane

    with lane("export-lines", 2) as pool:
        pending: list[Any] = []
        for cells in batches:
            if cells and len(cells[0]):
                pending.append(pool.submit(join_cells, *cells))
            if len(pending) == 2:
                yield pending.pop(0).result()
        for future in pending:
            yield future.result()
