"""The one transaction of a pool import: candidates from Arrow, then each model's ranking.

Candidates arrive as an Arrow table (``key``, ``text`` and, when present, ``meta`` and
``gold``) and go in by ADBC's bulk ingest (``adbc_driver_sqlite``), which binds Arrow
batches in C: about twice as fast as ``executemany`` over Python tuples, and no Python
object per value. The models, their rankings and the source file follow in the same
transaction, so an import is all or nothing: an error, a cancel from the progress
callback or a crash leaves the file as it was.

One SQLite engine per process. The ADBC driver carries its own copy of SQLite, and POSIX
file locks belong to the process, not to the library: a second copy in the process that
holds the project open drops the first one's locks when it closes the file
(https://sqlite.org/howtocorrupt.html, section 2.2.1). So the bulk ingest runs in a child
process (:mod:`triage.store.bulkrun` drives :mod:`triage.store.bulkchild`), which gets
the candidates as an Arrow IPC stream; this process keeps its own connection open and
untouched, and between processes locks work as usual. A small pool (under
:data:`SMALL_ROWS`, where starting the child would cost more than it saves) and a pool
written with ``after`` (which needs the caller's connection) go in through the caller's
connection with ``executemany``: slower per row, same result.

The unique index on candidate keys is dropped here and not rebuilt: keys were checked
unique before writing, and only look-ups by key need it, so
:func:`triage.store.candidates.ensure_key_index` builds it on first use.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import sqlite_utils

from triage.base.errors import TriageError
from triage.store import bulkchild, bulkrun, connection
from triage.store.content import HAS_CHECKSUMS, TextHashes, store_ranking_hashes

_INSERT_MODEL = bulkchild.INSERT_MODEL
_INSERT_RANKING = bulkchild.INSERT_RANKING
_PROJECT_INFO = bulkchild.PROJECT_INFO
_DROP_KEY_INDEX = bulkchild.DROP_KEY_INDEX
_INSERT_OVERLAP = ("INSERT INTO plan(candidate_id, kind) "
                   "SELECT value, 'overlap' FROM json_each(?)")
_ANY_CANDIDATE = bulkchild.ANY_CANDIDATE
_ID_RANGE = bulkchild.ID_RANGE
COLUMNS = bulkchild.COLUMNS
# Fewer candidates than this are written in this process: the child's start (an
# interpreter, Arrow and the driver) would take longer than executemany.
SMALL_ROWS = 50_000
SMALL_BYTES = 4_000_000  # a source file this big is likely to hold more than SMALL_ROWS
ALREADY = bulkchild.ALREADY


@dataclass(frozen=True)
class NewModel:
    """A model to add with its frozen ranking: candidate ids best first, and their scores."""

    name: str
    source_column: str
    source_file: str
    imported_at: str
    tied_items: int
    candidate_ids: np.ndarray
    scores: np.ndarray

    def row(self) -> list[Any]:
        """Parameters of the models INSERT."""
        return [self.name, self.source_column, self.source_file, self.imported_at,
                self.tied_items]

    def blobs(self) -> tuple[memoryview, memoryview]:
        """The ranking as little-endian int64 ids and float64 scores (see records.ranking).

        Views of the arrays' bytes: no copy of them (tens of MB at five million).
        """
        ids = np.ascontiguousarray(self.candidate_ids, dtype="<i8")
        scores = np.ascontiguousarray(self.scores, dtype="<f8")
        return memoryview(ids.data).cast("B"), memoryview(scores.data).cast("B")


Models = Callable[[], Iterable[NewModel]]
Plan = Callable[[NewModel], "np.ndarray | None"]  # the overlap plan drawn from a ranking
Advance = Callable[[int], None]
Info = Callable[[], list[tuple[str, str]]]


def write_pool(db: sqlite_utils.Database, rows: Any, models: Models, *, info: Info,
               chunk: int, advance: Advance,
               after: Callable[[sqlite_utils.Database], None] | None = None,
               plan: Plan | None = None, size_hint: int | None = None) -> None:
    """Append ``rows`` as candidates 1..N and add ``models()``, atomically.

    ``rows`` is an Arrow table, or a record batch reader (a stream, read once: its batches
    may still be arriving while earlier ones are written).
    ``models`` is called once the candidates are in (so rankings can be computed
    meanwhile; it may yield them one at a time), then ``info()``, whose (key, value) pairs go to the ``project`` table;
    ``advance(rows)`` reports progress and may raise to cancel. ``after(db)`` runs last,
    inside the transaction, on ``db``'s own connection (so ADBC is not used then).
    ``plan(model)``, for each model, may give candidate ids to store as the overlap plan
    (in place of any before), in the same transaction: no second commit for it.
    ``size_hint`` is about how many rows a stream holds (a table knows its own).
    """
    path = connection.database_path(db)
    if after is None and path is not None and bulkrun.available() \
            and (bulkrun.has_spare(path) or not _small(rows, size_hint)):
        _write_child(db, path, rows, models, info, chunk, advance, plan)
        return
    with db.atomic():
        _write_sqlite(db, rows, models, info, chunk, advance, plan)
        if after is not None:
            after(db)


@contextlib.contextmanager
def warmed(db: sqlite_utils.Database, source: Path) -> Iterator[None]:
    """Start the bulk writer's child now when ``source`` is big enough to want it.

    Its start then overlaps reading the file; one not used by the block is stopped after it.
    """
    try:
        big = source.stat().st_size >= SMALL_BYTES
    except OSError:
        big = False
    with bulkrun.warmed(connection.database_path(db) if big else None):
        yield


def _small(rows: Any, size_hint: int | None) -> bool:
    """Is the pool known to be small (see SMALL_ROWS)?"""
    n = rows.num_rows if hasattr(rows, "num_rows") else size_hint
    return n is not None and n < SMALL_ROWS


def _write_sqlite(db: sqlite_utils.Database, rows: Any, models: Models, info: Info,
                  chunk: int, advance: Advance, plan: Plan | None) -> None:
    conn = db.conn
    if conn.execute(_ANY_CANDIDATE).fetchone()[0]:  # someone imported while we were reading
        raise TriageError(ALREADY)
    conn.execute(_DROP_KEY_INDEX)
    names = rows.schema.names
    if not set(names) <= set(COLUMNS):
        raise ValueError(f"unexpected candidate columns {names}")
    # Only names from COLUMNS and "?" placeholders are joined in; values are parameters.
    sql = (f"INSERT INTO candidates({', '.join(names)}) "  # noqa: S608
           f"VALUES ({', '.join('?' * len(names))})")
    written = 0
    hashes = TextHashes()
    for batch in bulkrun.chunks(rows, chunk):
        hashes.add(batch)
        conn.executemany(sql, zip(*(c.to_pylist() for c in batch.columns)))
        written += batch.num_rows
        advance(batch.num_rows)
    first, last = conn.execute(_ID_RANGE).fetchone()
    bulkrun.check_ids(first, last, written)
    checksums = conn.execute(HAS_CHECKSUMS).fetchone()[0] > 0
    if checksums:
        hashes.store(conn.execute)
    for model in models():
        conn.execute(_INSERT_MODEL, model.row())
        conn.execute(_INSERT_RANKING, [model.name, *model.blobs()])
        if checksums:
            store_ranking_hashes(conn.execute, model.name, *model.blobs())
        _store_plan(conn.execute, plan, model)
        advance(len(model.candidate_ids))
        del model  # tens of MB at five million: gone before the next ranking is made
    for key, value in info():
        conn.execute(_PROJECT_INFO, [key, value])


def _write_child(db: sqlite_utils.Database, path: str, rows: Any, models: Models, info: Info,
                 chunk: int, advance: Advance, plan: Plan | None) -> None:
    """The ADBC ingest in the child process (see the module), with the import's checksums
    computed here and sent as statements."""
    checksums = db.execute(HAS_CHECKSUMS).fetchone()[0] > 0
    hashes = TextHashes()

    def after_rows() -> list[tuple[str, list[Any]]]:
        statements: list[tuple[str, list[Any]]] = []
        if checksums:
            hashes.store(lambda sql, params: statements.append((sql, params)))
        return statements

    def per_model(model: NewModel) -> list[tuple[str, list[Any]]]:
        statements: list[tuple[str, list[Any]]] = []
        if checksums:
            store_ranking_hashes(lambda sql, params: statements.append((sql, params)),
                                 model.name, *model.blobs())
        return statements

    with bulkrun.rollback_journal(db.conn):  # the rows written once, not log then file
        bulkrun.write(path, rows, models, info=info, chunk=chunk, advance=advance, plan=plan,
                      on_batch=hashes.add, after_rows=after_rows, per_model=per_model)


def _store_plan(run: Callable[..., Any], plan: Plan | None, model: NewModel) -> None:
    """The overlap plan drawn from ``model``'s ranking, if any, in place of the one before,
    as one JSON array parameter, as claims.replace_overlap_plan does."""
    ids = plan(model) if plan is not None else None
    if ids is None:
        return
    run(bulkchild.DROP_OVERLAP)
    run(_INSERT_OVERLAP, [json.dumps(np.asarray(ids, dtype=np.int64).tolist())])


__all__ = ["NewModel", "warmed", "write_pool"]
