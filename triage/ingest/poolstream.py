"""The pool import of a clean file as one stream: read, check and store batch by batch.

:func:`import_stream` is the importer's first try for a pool file (the batches come from
:func:`triage.ingest.read.open_batches`, become candidates in :mod:`triage.ingest.poolbatch`).
A reader thread parses and checks the file and queues candidate batches, which
:func:`triage.store.poolwrite.write_pool` stores as they come, in the import's one transaction. When the reader has seen every
row it checks the keys are unique, ranks every model and hashes the file, still on its
own thread, usually while SQLite is still writing; the writer then adds the models and
the provenance entry and commits.

Anything unclean (and duplicate keys) raises :class:`~triage.ingest.read.NotClean`
after the transaction is rolled back; the importer then takes the careful path, which
names every problem. A cancel from the progress callback raises ``TriageError``.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import sqlite_utils

from triage.base.errors import TriageError
from triage.base.jobs import lane, start
from triage.ingest import poolbatch
from triage.ingest.ranking import rank_sorted
from triage.ingest.read import (
    NotClean,
    all_unique,
    count_rows,
    estimate_rows,
    format_of,
    open_batches,
)
from triage.store.poolwrite import NewModel, Plan, write_pool
from triage.store.records import now_iso

Entry = Callable[[int, str], list[tuple[str, str]]]  # (rows, sha256) -> project rows


def import_stream(db: sqlite_utils.Database, path: Path, shape: poolbatch.Shape,
                  models: Sequence[tuple[str, str]], *, seed: int, ticker: Any, chunk: int,
                  entry: Entry, plan: Plan | None = None,
                  writer: Callable[..., None] = write_pool) -> tuple[int, dict[str, int]]:
    """Import a clean pool file; returns (rows, tied items per model). NotClean otherwise.

    ``models`` are (name, column) pairs; ``ticker`` is the importer's progress
    (``read``, ``start_writing``, ``advance``); ``entry(rows, sha256)`` gives the
    ``project`` rows recording the file; ``plan`` see ``write_pool``. ``writer`` stores
    the stream: :func:`write_pool` into the file, or a server's (``plan`` is its own then).
    """
    # long: the reader thread and the writer share the pipe, the rows kept and the checks
    rows, names, reader = _open(path, shape)
    if ticker.read(rows, rows) is False:
        reader.close()
        raise TriageError("cancelled")
    ticker.start_writing(rows)
    kept = poolbatch.Collected(rows)
    pipe = poolbatch.Pipe(poolbatch.ahead_bytes(path))
    checked: Future = Future()  # (rankings made on the reader thread or None, sha256)
    # The exact count (and, for CSV/TSV, the check that the quoting is clean) is a pass
    # over the bytes of its own, beside the parse; numpy and file reads release the GIL.
    # The same thread then takes the file's SHA-256, off the path from the last row read
    # to the commit.
    counted: Future = Future()
    digested: Future = Future()
    abandoned = threading.Event()  # the import failed: no SHA-256 is wanted

    def count() -> None:
        poolbatch.settle(counted, lambda: count_rows(path, format_of(path)))
        if abandoned.is_set():  # a reader still waiting for it must not wait forever
            digested.set_exception(TriageError("cancelled"))
        else:
            poolbatch.settle(digested, lambda: _sha256(path))

    counter = start(count, "triage-import-count")

    def read() -> None:
        import pyarrow as pa

        try:
            for batch in reader:
                pipe.put(poolbatch.candidate_batch(batch, shape, names, kept.rows, kept))
            # a blank line Arrow skipped, a lone CR line end, or unclean quoting
            if kept.rows == 0 or counted.result() not in (None, kept.rows):
                raise NotClean()
        except BaseException as error:
            if isinstance(error, pa.ArrowException):  # a ragged row past the first block,
                error = NotClean(str(error))   # say: the careful path names it
            pipe.fail(error)
            checked.set_exception(error)
            return
        finally:
            reader.close()
        # Reading ended early when the whole file fitted in the queue: rank here, while
        # SQLite writes. Otherwise the writer ranks after the rows are in, one model at a
        # time, each stored and freed before the next is made (bounded memory).
        early = not pipe.waited
        pipe.finish()
        poolbatch.settle(checked, lambda: _check(path, shape, models, seed, kept, early,
                                                 digested))

    thread = start(read, "triage-import-read")
    tied: dict[str, int] = {}

    def new_models() -> Iterator[NewModel]:
        made = checked.result()[0]
        ticker.resize(kept.rows)
        for model in made if made is not None else _rankings(path, models, seed, kept):
            tied[model.name] = model.tied_items
            yield model
            del model  # stored by now: free it before the next ranking is made

    try:
        import pyarrow as pa

        # The schema is known, so SQLite gets ready while the first batch is parsed.
        source = pa.RecordBatchReader.from_batches(poolbatch.candidate_schema(shape, names),
                                                   pipe.batches())
        extra = {"plan": plan, "size_hint": rows} if writer is write_pool else {}
        writer(db, source, new_models, info=lambda: entry(kept.rows, checked.result()[1]),
               chunk=chunk, advance=ticker.advance, **extra)
    finally:
        abandoned.set()
        pipe.stop()
        thread.exception()   # waits for it (what it raised went to the futures)
        counter.exception()
    return kept.rows, tied


def _open(path: Path, shape: poolbatch.Shape) -> tuple[int, list[str], Any]:
    """Rows (an estimate, for progress), column names and the batch reader of a file that may
    be clean and has every column the import needs; NotClean otherwise."""
    kind = format_of(path)
    rows = estimate_rows(path)
    names, reader = open_batches(path, kind, shape.numeric)
    needed = [shape.text, shape.key, shape.gold, *shape.numeric, *(shape.meta or ())]
    if any(name and name not in names for name in needed):
        reader.close()
        raise NotClean()
    return rows, names, reader


def _check(path: Path, shape: poolbatch.Shape, models: Sequence[tuple[str, str]], seed: int,
           kept: poolbatch.Collected, rank: bool, digested: Future) -> tuple[list[NewModel] | None,
                                                                         str]:
    """After reading: NotClean when two rows share a key (the careful path reports them);
    else the rankings when ``rank`` (else None) and the file's SHA-256 (from ``digested``)."""
    if not rank:
        if shape.key is not None and not all_unique(kept.key_array()):
            raise NotClean()
        return None, digested.result()
    return _parallel_rankings(path, models, seed, kept, shape.key is not None), \
        digested.result()


def _sha256(path: Path) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _parallel_rankings(path: Path, models: Sequence[tuple[str, str]], seed: int,
                       kept: poolbatch.Collected, keyed: bool) -> list[NewModel]:
    """Every model's ranking, while SQLite is still writing the candidates (the file fitted
    in memory), beside the check that the keys are unique (NotClean if not): numpy's sorts
    and hashing release the GIL, so the three share the cores."""
    keys = kept.key_array()
    with lane("import-rank", 3) as pool:
        unique = pool.submit(all_unique, keys) if keyed else None
        futures = [pool.submit(_ranking, path, model, column, kept.numbers(column), keys, seed)
                   for model, column in models]
        if unique is not None and not unique.result():
            for future in futures:
                future.cancel()
            raise NotClean()
        return [future.result() for future in futures]


def _ranking(path: Path, model: str, column: str, values: Any, keys: Any,
             seed: int) -> NewModel:
    ids, ordered, tied = rank_sorted(values, keys, seed, model)
    ids += 1  # candidate ids are row numbers
    return NewModel(model, column, str(path), now_iso(), tied, ids, ordered)


def _rankings(path: Path, models: Sequence[tuple[str, str]], seed: int,
              kept: poolbatch.Collected) -> Iterator[NewModel]:
    """Each model's ranking, one at a time (candidate ids are row numbers)."""
    keys = kept.key_array()
    last_use = {column: i for i, (_model, column) in enumerate(models)}
    for i, (model, column) in enumerate(models):
        ids, ordered, tied = rank_sorted(kept.numbers(column), keys, seed, model)
        if last_use[column] == i:
            del kept.scores[column]  # the ranking holds these values now, in rank order
        ids += 1  # candidate ids are row numbers; in place: no second array
        yield NewModel(model, column, str(path), now_iso(), tied, ids, ordered)
        del ids, ordered  # stored by now: free them before the next ranking is made
