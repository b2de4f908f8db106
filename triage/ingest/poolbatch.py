"""The streamed pool import's middle: parsed batches to candidate rows, through a bounded pipe.

:func:`triage.ingest.poolstream.import_stream` reads a clean file as record batches from
the fast mode (:func:`triage.ingest.read.open_batches`) on a reader thread, turns each
into candidate rows here (:func:`candidate_batch`: key, text, meta, gold; the scores and
keys kept aside in :class:`Collected`) and hands them through a :class:`Pipe` to SQLite,
which stores them meanwhile. So parsing overlaps writing, and memory stays bounded:
parsed batches wait in a queue of at most :data:`AHEAD_BYTES`, and what is kept per row
is small (the scores, and the keys for ordering ties and checking uniqueness). When the
whole file fits in the queue, reading ends long before writing does and the models are
ranked on the reader thread while SQLite is still busy.

A batch that is not clean (a null, a number not finite, a blank text or key) raises
:class:`~triage.ingest.read.NotClean`, from the reader thread through the write, which is
rolled back; the importer then reads the file the careful way, which names file, line
and column of every problem. So the result of an import never depends on the path it
took.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from triage.base import arrow
from triage.ingest import metajson
from triage.ingest.read import NotClean, any_blank, blank_mask

AHEAD_BYTES = 128 << 20  # parsed batches held ahead of the writer, at most (a million
# rows of the benchmark take about 60 MB: all of them, so reading ends early)
BEHIND_BYTES = 16 << 20  # the queue of a file that will not fit anyway (see ahead_bytes)


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
    if any_blank(text):
        raise NotClean()
    if shape.key is None:
        numbers = np.arange(first_row + 1, first_row + batch.num_rows + 1, dtype=np.int64)
        key = pc.cast(arrow.from_numpy(numbers), pa.string())
    else:
        key = batch.column(shape.key)
        if any_blank(key):
            raise NotClean()
    kept.keys.append(key)
    kept.rows += batch.num_rows
    columns = {"key": key, "text": text}
    meta = meta_columns(shape, names)
    if meta:
        columns["meta"] = _metadata(batch, meta)
    if shape.gold:  # a blank gold cell is no gold label
        gold = batch.column(shape.gold)
        empty = blank_mask(gold)
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
