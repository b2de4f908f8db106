"""Streaming a clean file into the pool: Arrow's C++ readers, batch by batch, beside the write.

:func:`triage.ingest.importer.import_candidates` tries this first for a pool file. A
reader thread parses the file with ``pyarrow.csv.open_csv`` (CSV and TSV: one C path, the
delimiter is an option) or ``pyarrow.json.open_json`` (JSONL, against an explicit schema),
checks each batch and turns it into candidate rows, which SQLite stores meanwhile (ADBC
bulk ingest on the calling thread). So parsing overlaps writing, and memory stays
bounded: parsed batches wait in a queue of at most :data:`AHEAD_BYTES`, and what is kept
per row is small (the scores, and the keys for ordering ties and checking uniqueness).
When the whole file fits in the queue, reading ends long before writing does and the
models are ranked on the reader thread while SQLite is still busy.

Only clean files are accepted, exactly as in :mod:`triage.ingest.fastread` (whose rules
this module applies batch by batch): a file that is not clean raises :class:`NotClean`,
from the reader thread through the write, which is rolled back; the importer then reads
the file the careful way, which names file, line and column of every problem. So the
result of an import never depends on the path it took.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from triage.base import arrow
from triage.base.errors import InputError
from triage.ingest import columnar, fastread, metajson
from triage.ingest.scan import scan

READ_BLOCK = 4 << 20  # bytes of file per parsed batch
AHEAD_BYTES = 128 << 20  # parsed batches held ahead of the writer, at most (a million
# rows of the benchmark take about 60 MB: all of them, so reading ends early)
BEHIND_BYTES = 16 << 20  # the queue of a file that will not fit anyway (see ahead_bytes)


class NotClean(Exception):
    """The file is not clean (see :mod:`triage.ingest.fastread`): read it the careful way."""


@dataclass(frozen=True)
class Shape:
    """Which file columns make the candidates. ``key`` None: the row number is the key."""

    text: str
    key: str | None
    gold: str | None
    numeric: tuple[str, ...]
    meta: tuple[str, ...] | None  # None: every column not used otherwise


@dataclass
class Collected:
    """What the reader keeps of every row: the scores, the keys, and the row count.

    Score arrays start at the estimated row count (``expect``) and double when the file
    has more, so per-batch pieces are not joined (a copy of each) at the end.
    """

    expect: int
    rows: int = 0
    scores: dict[str, np.ndarray] = field(default_factory=dict)
    keys: list[Any] = field(default_factory=list)

    def add_scores(self, name: str, values: np.ndarray) -> None:
        """Store one batch's values of a numeric column (rows from ``self.rows`` on)."""
        end = self.rows + len(values)
        if name not in self.scores:
            self.scores[name] = np.empty(max(self.expect, end, 1), dtype=np.float64)
        held = self.scores[name]
        if end > len(held):
            grown = np.empty(max(end, 2 * len(held)), dtype=np.float64)
            grown[:self.rows] = held[:self.rows]
            self.scores[name] = held = grown
        held[self.rows:end] = values

    def numbers(self, name: str) -> np.ndarray:
        """Every row's value of a numeric column, in file order."""
        return self.scores[name][:self.rows]

    def key_array(self) -> Any:
        """Every row's key, as one chunked Arrow string array."""
        import pyarrow as pa

        return pa.chunked_array(self.keys, type=pa.string())


def estimate_rows(path: Path) -> int:
    """About how many rows a file has, from its size and its first megabyte's line breaks.

    For progress only; the exact count comes from :func:`count_rows`.
    """
    if path.suffix.lower() in (".parquet", ".pq"):
        return max(1, count_rows(path, "parquet") or 1)
    try:
        size = path.stat().st_size
        with open(path, "rb") as handle:
            head = handle.read(fastread.SCAN_BYTES)
    except OSError as error:
        raise NotClean() from error
    return max(1, round(size * max(head.count(b"\n"), 1) / max(len(head), 1)))


def count_rows(path: Path, kind: str) -> int | None:
    """Rows of a clean JSONL file (its lines); None for a CSV/TSV whose quoting is clean.

    NotClean for a CSV/TSV whose quoting is not (:mod:`triage.ingest.scan`), or a file
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
            for chunk in iter(lambda: handle.read(fastread.SCAN_BYTES), b""):
                lines += chunk.count(b"\n")
                last = chunk[-1:]
    except OSError as error:
        raise NotClean() from error
    return lines + (last != b"\n")


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

    first = fastread.first_line(path)
    if first is None:
        raise NotClean()
    try:
        if kind == "jsonl":
            head = json.loads(first)
            if not isinstance(head, dict) or not head:
                raise NotClean()
            names = list(head)
        else:
            names = fastread.header_names(first, "\t" if kind == "tsv" else ",") or []
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise NotClean() from error
    if len(set(names)) != len(names) or any(not n or n != n.strip() for n in names) \
            or len(names) < 2:  # one column: a blank line would be a row (fastread)
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
        parse_options=fastread.csv_options(delimiter),
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


def candidate_batch(batch: Any, shape: Shape, names: list[str], first_row: int,
                    kept: Collected) -> Any:
    """The candidate rows of one parsed batch (key, text, [meta], [gold]).

    NotClean when a value is null, a number not finite or a key or text blank. The
    scores and keys go into ``kept``.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if any(column.null_count for column in batch.columns):
        raise NotClean()
    for name in shape.numeric:
        values = arrow.to_numpy(batch.column(name))
        if not np.isfinite(values).all():
            raise NotClean()
        kept.add_scores(name, values)
    text = batch.column(shape.text)
    if fastread.any_blank(text):
        raise NotClean()
    if shape.key is None:
        numbers = np.arange(first_row + 1, first_row + batch.num_rows + 1, dtype=np.int64)
        key = pc.cast(arrow.from_numpy(numbers), pa.string())
    else:
        key = batch.column(shape.key)
        if fastread.any_blank(key):
            raise NotClean()
    kept.keys.append(key)
    kept.rows += batch.num_rows
    columns = {"key": key, "text": text}
    meta = meta_columns(shape, names)
    if meta:
        columns["meta"] = _metadata(batch, meta)
    if shape.gold:  # a blank gold cell is no gold label
        gold = batch.column(shape.gold)
        empty = fastread.blank_mask(gold)
        columns["gold"] = gold if empty is None else \
            pc.if_else(arrow.booleans(empty), pa.nulls(len(gold), gold.type), gold)
    return pa.record_batch(list(columns.values()), schema=candidate_schema(shape, names))


def meta_columns(shape: Shape, names: list[str]) -> list[str]:
    """The columns kept as each candidate's JSON ``meta``."""
    used = {shape.key, shape.text, shape.gold, *shape.numeric}
    return list(shape.meta) if shape.meta is not None else [n for n in names if n not in used]


def candidate_schema(shape: Shape, names: list[str]) -> Any:
    """The Arrow schema of the candidate batches (known before the first is read)."""
    import pyarrow as pa

    fields = [("key", pa.string()), ("text", pa.string())]
    if meta_columns(shape, names):
        fields.append(("meta", pa.large_string()))
    if shape.gold:
        fields.append(("gold", pa.string()))
    return pa.schema(fields)


def _metadata(batch: Any, names: list[str]) -> Any:
    """The JSON object of the other columns, per row (as the careful path writes it)."""
    return metajson.objects(names, [batch.column(n) for n in names])


def arrow_is_float(column: Any) -> bool:
    """Is this Arrow array of floating point numbers?"""
    import pyarrow as pa

    return bool(pa.types.is_floating(column.type))


def ahead_bytes(path: Path) -> int:
    """How far the reader may run ahead of the writer.

    Running ahead pays when the whole file fits in the queue: reading then ends early and
    the models are ranked while SQLite writes. A bigger file fills any queue and waits for
    the writer anyway, so a small queue keeps the same pace in less memory.
    """
    try:
        size = path.stat().st_size
    except OSError:
        return AHEAD_BYTES
    if size <= AHEAD_BYTES:
        return AHEAD_BYTES
    # A big file passes through memory many times over: jemalloc keeps freed pages for
    # reuse (its decay time), which at a million long texts is 90 MB more at the peak.
    # Returning them at once costs a little CPU; big files have time to spare.
    import pyarrow as pa

    with contextlib.suppress(NotImplementedError):
        pa.jemalloc_set_decay_ms(0)
    return BEHIND_BYTES


class Pipe:
    """Batches from the reader thread to the writer, at most ``limit`` bytes ahead.

    The reader calls :meth:`put` for each batch, then :meth:`finish`, or :meth:`fail`
    with its exception, which the writer's :meth:`batches` raises. :meth:`stop` (the
    writer gave up) makes the reader's next ``put`` raise, so it ends.
    """

    def __init__(self, limit: int = AHEAD_BYTES):
        self.limit = limit
        self.items: list[Any] = []
        self.held = 0
        self.done = False
        self.error: BaseException | None = None
        self.stopped = False
        self.waited = False  # did the reader ever wait for room (the file did not fit)?
        self.cond = threading.Condition()

    def put(self, batch: Any) -> None:
        """Hand one batch to the writer; waits while the queue is full."""
        size = batch.nbytes
        with self.cond:
            while self.items and self.held + size > self.limit and not self.stopped:
                self.waited = True
                self.cond.wait()
            if self.stopped:
                raise NotClean("the writer stopped")
            self.items.append(batch)
            self.held += size
            self.cond.notify_all()

    def finish(self) -> None:
        """No more batches."""
        with self.cond:
            self.done = True
            self.cond.notify_all()

    def fail(self, error: BaseException) -> None:
        """The reader failed: the writer raises ``error`` instead of taking more batches."""
        with self.cond:
            self.error = error
            self.cond.notify_all()

    def batches(self) -> Iterator[Any]:
        """Every batch, in order; raises the reader's exception."""
        while True:
            with self.cond:
                while not self.items and not self.done and self.error is None:
                    self.cond.wait()
                if self.error is not None:
                    raise self.error
                if not self.items:
                    return
                batch = self.items.pop(0)
                self.held -= batch.nbytes
                self.cond.notify_all()
            yield batch

    def stop(self) -> None:
        """The writer will take no more batches: let the reader end."""
        with self.cond:
            self.stopped = True
            self.items.clear()
            self.held = 0
            self.cond.notify_all()


def settle(future: Future, func: Callable[[], Any]) -> None:
    """Run ``func`` and put its result (or exception) into ``future``."""
    try:
        future.set_result(func())
    except BaseException as error:
        future.set_exception(error)
