"""The one transaction of a pool import: candidates from Arrow, then each model's ranking.

Candidates arrive as an Arrow table (``key``, ``text`` and, when present, ``meta`` and
``gold``) and go in by ADBC's bulk ingest (``adbc_driver_sqlite``), which binds Arrow
batches in C: about twice as fast as ``executemany`` over Python tuples, and no Python
object per value. The models, their rankings and the source file follow in the same
transaction, so an import is all or nothing: an error, a cancel from the progress
callback or a crash leaves the file as it was.

Two SQLite libraries in one process. The ADBC driver carries its own copy of SQLite.
POSIX file locks belong to the process, not to the library, so two copies in one process
cannot see each other's locks, and closing a file in one drops the other's locks on it
(https://sqlite.org/howtocorrupt.html, section 2.2.1). So the ADBC connection only ever
has the file to itself within this process: :func:`triage.store.connection.released`
closes the caller's connection first, checks that no other descriptor of this process
still has the file (or its -wal/-shm) open, and reopens the connection afterwards. When
that cannot be shown (another connection of ours is open on the file, no ``/proc/self/fd``
or ``/dev/fd``), the rows go in through the caller's own connection with ``executemany``:
slower, same result. Other processes are unaffected either way: between processes,
locks work as usual.

The unique index on candidate keys is dropped here and not rebuilt: keys were checked
unique before writing, and only look-ups by key need it, so
:func:`triage.store.candidates.ensure_key_index` builds it on first use.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import sqlite_utils

from triage.base import arrow
from triage.base.errors import TriageError
from triage.store import connection
from triage.store.adbc import Adbc
from triage.store.content import HAS_CHECKSUMS, TextHashes, store_ranking_hashes

_INSERT_MODEL = ("INSERT INTO models(name, source_column, source_file, imported_at, tied_items) "
                 "VALUES (?, ?, ?, ?, ?)")
_INSERT_RANKING = ("INSERT INTO rankings(model_id, candidate_ids, scores) "
                   "VALUES ((SELECT id FROM models WHERE name = ?), ?, ?)")
_PROJECT_INFO = ("INSERT INTO project(key, value) VALUES (?, ?) "
                 "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
_DROP_KEY_INDEX = "DROP INDEX IF EXISTS candidates_key"
_DROP_OVERLAP = "DELETE FROM plan WHERE kind = 'overlap'"
_INSERT_OVERLAP = ("INSERT INTO plan(candidate_id, kind) "
                   "SELECT value, 'overlap' FROM json_each(?)")
_ANY_CANDIDATE = "SELECT count(*) FROM (SELECT 1 FROM candidates LIMIT 1)"
# Two subqueries: SQLite answers a lone min() or max() of the rowid from the b-tree's
# ends, but min() and max() in one SELECT scan the whole table.
_ID_RANGE = "SELECT (SELECT min(id) FROM candidates), (SELECT max(id) FROM candidates)"
COLUMNS = ("key", "text", "meta", "gold")
ALREADY = "this project already has its candidates; use --add-scores"


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
               plan: Plan | None = None) -> None:
    """Append ``rows`` as candidates 1..N and add ``models()``, atomically.

    ``rows`` is an Arrow table, or a record batch reader (a stream, read once: its batches
    may still be arriving while earlier ones are written).
    ``models`` is called once the candidates are in (so rankings can be computed
    meanwhile; it may yield them one at a time), then ``info()``, whose (key, value) pairs go to the ``project`` table;
    ``advance(rows)`` reports progress and may raise to cancel. ``after(db)`` runs last,
    inside the transaction, on ``db``'s own connection (so ADBC is not used then).
    ``plan(model)``, for each model, may give candidate ids to store as the overlap plan
    (in place of any before), in the same transaction: no second commit for it.
    """
    if after is None:
        with connection.released(db) as path:
            if path is not None:
                _write_adbc(path, rows, models, info, chunk, advance, plan)
                return
    with db.atomic():
        _write_sqlite(db, rows, models, info, chunk, advance, plan)
        if after is not None:
            after(db)


def _chunks(rows: Any, chunk: int) -> Iterator[Any]:
    """Arrow batches of at most ``chunk`` rows, of a table or a record batch reader."""
    if hasattr(rows, "to_batches"):
        yield from rows.to_batches(max_chunksize=chunk)
        return
    for batch in rows:
        for start in range(0, batch.num_rows, chunk):
            yield batch.slice(start, chunk)


def _batches(rows: Any, chunk: int, advance: Advance, failure: list[BaseException],
             count: list[int], hashes: TextHashes) -> Iterator[Any]:
    """Arrow batches of ``chunk`` rows, hashed; progress after each; an exception is kept."""
    try:
        for batch in _chunks(rows, chunk):
            hashes.add(batch)
            yield batch
            count[0] += batch.num_rows
            advance(batch.num_rows)
    except BaseException as error:
        failure.append(error)
        raise


def _check_ids(first: int | None, last: int | None, n: int) -> None:
    if (first, last) != (1, n):
        raise TriageError(f"internal error: candidate ids {first}..{last}, expected 1..{n}")


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
    for batch in _chunks(rows, chunk):
        hashes.add(batch)
        conn.executemany(sql, zip(*(c.to_pylist() for c in batch.columns)))
        written += batch.num_rows
        advance(batch.num_rows)
    first, last = conn.execute(_ID_RANGE).fetchone()
    _check_ids(first, last, written)
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


def _store_plan(run: Callable[..., Any], plan: Plan | None, model: NewModel,
                ingest: Callable[[str, Any], None] | None = None) -> None:
    """The overlap plan drawn from ``model``'s ranking, if any, in place of the one before:
    by ``ingest`` (ADBC's bulk insert of an Arrow table: no Python object per id) when
    given, else as one JSON array parameter, as claims.replace_overlap_plan does."""
    ids = plan(model) if plan is not None else None
    if ids is None:
        return
    ids = np.asarray(ids, dtype=np.int64)
    run(_DROP_OVERLAP)
    if ingest is None:
        run(_INSERT_OVERLAP, [json.dumps(ids.tolist())])
        return
    import pyarrow as pa

    # Arrow arrays from buffers: ``pa.table`` of a numpy array would look for pandas
    # first (a third of a second to import it)
    ingest("plan", pa.Table.from_arrays([arrow.from_numpy(ids), arrow.repeat("overlap", len(ids))],
                                        names=["candidate_id", "kind"]))


def _write_adbc(path: str, rows: Any, models: Models, info: Info, chunk: int,
                advance: Advance, plan: Plan | None) -> None:
    import pyarrow as pa

    db = Adbc(path)
    journal = False
    try:
        for pragma in connection.PRAGMAS:
            db.run(pragma)
        journal = _rollback_journal(db)
        db.run("BEGIN IMMEDIATE")
        try:
            if db.row(_ANY_CANDIDATE)[0]:
                raise TriageError(ALREADY)
            db.run(_DROP_KEY_INDEX)
            failure: list[BaseException] = []
            written = [0]
            hashes = TextHashes()
            stream = pa.RecordBatchReader.from_batches(
                rows.schema, _batches(rows, chunk, advance, failure, written, hashes))
            try:
                db.ingest("candidates", stream)
            except db.lib.Error:
                if failure:  # our own exception (a cancel), passed through Arrow's stream
                    raise failure[0] from None
                raise
            first, last = db.row(_ID_RANGE)
            _check_ids(first, last, written[0])
            checksums = db.row(HAS_CHECKSUMS)[0] > 0
            if checksums:
                hashes.store(db.run)
            for model in models():
                db.run(_INSERT_MODEL, model.row())
                db.run(_INSERT_RANKING, [model.name, *model.blobs()])
                if checksums:
                    store_ranking_hashes(db.run, model.name, *model.blobs())
                _store_plan(db.run, plan, model, db.ingest)
                advance(len(model.candidate_ids))
                del model  # tens of MB at five million: gone before the next is made
            for key, value in info():
                db.run(_PROJECT_INFO, [key, value])
            db.run("COMMIT")
        except BaseException:
            _quietly(db.run, "ROLLBACK")
            raise
    finally:
        if journal:  # back to the write-ahead log every other connection expects
            _quietly(db.run, "PRAGMA journal_mode=WAL")
        db.close()


def _rollback_journal(db: Adbc) -> bool:
    """Switch the file to a rollback journal for the import, when nothing else has it open.

    With the write-ahead log every new page is written twice: into the log, then by the
    checkpoint into the file. A rollback journal only keeps the old content of the pages a
    transaction changes, and pages appended to the file have none, so the candidates are
    written once, straight into the file (as the ``sqlite3`` shell's ``.import`` does),
    still all or nothing. Leaving WAL needs every other connection, in any process,
    closed (an open one holds a lock), so with a desk open elsewhere this answers False
    at once and the import stays in WAL.
    """
    try:
        db.run("PRAGMA busy_timeout=0")
        try:
            mode = db.row("PRAGMA journal_mode=DELETE")[0]
        finally:
            db.run(f"PRAGMA busy_timeout={int(connection.BUSY_TIMEOUT_S * 1000)}")
    except db.lib.Error:
        return False
    return str(mode).lower() == "delete"


def _quietly(func: Callable[..., Any], *args: Any) -> None:
    # The error that got us here is the one to report, not a failing ROLLBACK.
    with contextlib.suppress(Exception):
        func(*args)


__all__ = ["NewModel", "write_pool"]
