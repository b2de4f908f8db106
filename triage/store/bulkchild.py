"""The ADBC side of bulk work, run in a child process: the one place the driver's SQLite runs.

The ADBC driver (``adbc_driver_sqlite``) carries its own copy of SQLite. POSIX file locks
belong to a process, not to a library, so a second SQLite in the process that holds the
project open would drop the first one's locks whenever it closed the file
(https://sqlite.org/howtocorrupt.html, section 2.2.1), and another process could then
delete the write-ahead log still in use. So every process of Triage has exactly one
SQLite engine, the standard library's; bulk work that wants ADBC runs here, in a child
running this file (``python -I bulkchild.py``), where ADBC is the only engine. Between
processes, locks work as usual. The file needs only the standard library, Arrow and the
driver (no package of ours: importing ``triage.store`` would double the child's start).

Two jobs:

``write PATH OUT PRAGMAS FD``
    The pool import's one transaction (:mod:`triage.store.poolwrite` is the parent's
    side). Candidates arrive as one Arrow IPC stream on descriptor ``FD`` and go in by
    bulk ingest; then, on standard input, pickled messages: ``("count", n)``, each
    ``("model", row, ids, scores, plan)``, ``("run", sql, params)`` (checksums), ``("info", pairs)`` and ``("commit",)``. Any
    other end (the parent cancelled, failed or died) rolls the transaction back.
``read PATH OUT PRAGMAS SQL``
    A query's result as an Arrow IPC stream on standard output (``triage push``).

``PRAGMAS`` are the connection's settings, joined by ``;``. The outcome goes back as one pickled tuple on descriptor ``OUT``: ``("ok",)`` or
``("error", type name, message)``; the parent raises it again (see :func:`triage.store.bulkrun.raise_reported`).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import sys
from typing import Any, BinaryIO

ALREADY = "this project already has its candidates; use --add-scores"
ANY_CANDIDATE = "SELECT count(*) FROM (SELECT 1 FROM candidates LIMIT 1)"
DROP_KEY_INDEX = "DROP INDEX IF EXISTS candidates_key"
# Two subqueries: SQLite answers a lone min() or max() of the rowid from the b-tree's
# ends, but min() and max() in one SELECT scan the whole table.
ID_RANGE = "SELECT (SELECT min(id) FROM candidates), (SELECT max(id) FROM candidates)"
INSERT_MODEL = ("INSERT INTO models(name, source_column, source_file, imported_at, tied_items) "
                "VALUES (?, ?, ?, ?, ?)")
INSERT_RANKING = ("INSERT INTO rankings(model_id, candidate_ids, scores) "
                  "VALUES ((SELECT id FROM models WHERE name = ?), ?, ?)")
PROJECT_INFO = ("INSERT INTO project(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value")
DROP_OVERLAP = "DELETE FROM plan WHERE kind = 'overlap'"
COLUMNS = ("key", "text", "meta", "gold")  # the candidate columns a pool may bring
BATCH_ROWS = 65536  # rows per Arrow batch of a query's result


class Refused(Exception):
    """A refusal with a sentence for the user; the parent raises it as a TriageError."""


class Abandoned(Exception):
    """The parent went away (a cancel, its own error) before asking for the commit."""


ABANDONED = Abandoned.__name__


class Adbc:
    """A minimal ADBC connection: statements with Arrow parameters, queries as streams."""

    def __init__(self, path: str, pragmas: list[str]):
        import adbc_driver_manager
        import adbc_driver_sqlite

        self.lib = adbc_driver_manager
        self.database = adbc_driver_sqlite.connect(path)
        self.conn = adbc_driver_manager.AdbcConnection(self.database)
        for pragma in pragmas:  # the busy timeout first: it covers the others
            self.run(pragma)

    def run(self, sql: str, params: list[Any] | None = None) -> None:
        """Execute one statement, with ``params`` bound to its ``?`` placeholders."""
        import nanoarrow as na

        statement = self.lib.AdbcStatement(self.conn)
        try:
            statement.set_sql_query(sql)
            if params is not None:
                columns = [_param(v) for v in params]
                fields = {f"p{i}": c.schema for i, c in enumerate(columns)}
                row = na.c_array_from_buffers(na.struct(fields), 1, [None], children=columns)
                schema, array = row.__arrow_c_array__()
                statement.bind(array, schema)
            statement.execute_update()
        finally:
            statement.close()

    def query(self, sql: str) -> Any:
        """A query's result as a nanoarrow stream; close the statement when done with it."""
        import nanoarrow as na

        statement = self.lib.AdbcStatement(self.conn)
        statement.set_sql_query(sql)
        statement.set_options(**{"adbc.sqlite.query.batch_rows": str(BATCH_ROWS)})
        handle, _ = statement.execute_query()
        return statement, na.ArrayStream(handle)

    def row(self, sql: str) -> tuple[Any, ...]:
        """The first row of a query's result."""
        statement, stream = self.query(sql)
        try:
            return next(iter(stream.iter_tuples()))
        finally:
            stream.close()
            statement.close()

    def ingest(self, table: str, batches: Any) -> None:
        """Append an Arrow stream of record batches to ``table`` (ADBC bulk ingest)."""
        statement = self.lib.AdbcStatement(self.conn)
        try:
            statement.set_options(**{self.lib.INGEST_OPTION_TARGET_TABLE: table,
                                     self.lib.INGEST_OPTION_MODE:
                                     self.lib.INGEST_OPTION_MODE_APPEND})
            statement.bind_stream(batches.__arrow_c_stream__())
            statement.execute_update()
        finally:
            statement.close()

    def close(self) -> None:
        """Close the connection and the database handle."""
        self.conn.close()
        self.database.close()


def _param(value: Any) -> Any:
    """A one-element Arrow array of a parameter; bytes become a BLOB without a copy
    (a ranking's blob is tens of MB at five million candidates)."""
    import nanoarrow as na

    if isinstance(value, (bytes, bytearray, memoryview)):
        data = memoryview(value).cast("B")
        offsets = struct.pack("<qq", 0, data.nbytes)
        return na.c_array_from_buffers(na.large_binary(), 1, [None, offsets, data])
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return na.c_array([value], na.string())
    return na.c_array([value], na.int64() if isinstance(value, int) else na.float64())


def _ids_from_count(db: Adbc, n: int) -> None:
    first, last = db.row(ID_RANGE)
    if (first, last) != (1, n):
        raise Refused(f"internal error: candidate ids {first}..{last}, expected 1..{n}")


def _write(path: str, pragmas: list[str], rows_fd: int, control: BinaryIO) -> None:
    import nanoarrow as na

    # Started early (while the parent still reads its file): the database is touched
    # only once the candidates' schema arrives, so nothing is locked before it is needed.
    with os.fdopen(rows_fd, "rb") as source, na.ArrayStream.from_readable(source) as rows:
        db = Adbc(path, pragmas)
        try:
            # The parent's connection stays open, so the import goes through the
            # write-ahead log; copying the log into the file is left to the parent's
            # next checkpoint (the desk's pause, or closing), not done inside the commit.
            db.run("PRAGMA wal_autocheckpoint=0")
            db.run("BEGIN IMMEDIATE")
            try:
                if db.row(ANY_CANDIDATE)[0]:
                    raise Refused(ALREADY)
                db.run(DROP_KEY_INDEX)
                db.ingest("candidates", rows)
                if not _finish(db, control):
                    raise Abandoned("the parent stopped before the commit")
                db.run("COMMIT")
            except BaseException:
                with contextlib.suppress(Exception):
                    db.run("ROLLBACK")
                raise
        finally:
            db.close()


def _finish(db: Any, control: BinaryIO) -> bool:
    """Apply the parent's messages after the candidates; True when told to commit."""
    while True:
        try:
            message = pickle.load(control)  # noqa: S301 - our own parent, over our own pipe
        except EOFError:
            return False
        kind = message[0]
        if kind == "count":
            _ids_from_count(db, message[1])
        elif kind == "model":
            _, row, ids, scores, plan = message
            db.run(INSERT_MODEL, row)
            db.run(INSERT_RANKING, [row[0], ids, scores])
            if plan is not None:
                _store_plan(db, plan)
        elif kind == "run":
            db.run(message[1], message[2])
        elif kind == "info":
            for key, value in message[1]:
                db.run(PROJECT_INFO, [key, value])
        elif kind == "commit":
            return True


def _store_plan(db: Adbc, plan: bytes) -> None:
    """The overlap plan (little-endian int64 ids) in place of the one before."""
    import nanoarrow as na

    db.run(DROP_OVERLAP)
    n = len(plan) // 8
    ids = na.c_array_from_buffers(na.int64(), n, [None, plan])
    kinds = na.c_array_from_buffers(na.string(), n, [None, struct.pack(f"<{n + 1}i", *range(
        0, 7 * (n + 1), 7)), b"overlap" * n])
    table = na.c_array_from_buffers(na.struct({"candidate_id": na.int64(), "kind": na.string()}),
                                    n, [None], children=[ids, kinds])
    db.ingest("plan", na.c_array_stream(table))


def _read(path: str, pragmas: list[str], sql: str, out: BinaryIO) -> None:
    from nanoarrow.ipc import StreamWriter

    db = Adbc(path, pragmas)
    try:
        statement, stream = db.query(sql)
        try:
            with StreamWriter.from_writable(out) as writer:
                writer.write_stream(stream)
        finally:
            stream.close()
            statement.close()
    finally:
        db.close()


def _report(stream: BinaryIO, outcome: tuple[Any, ...]) -> None:
    with contextlib.suppress(OSError):
        pickle.dump(outcome, stream)
        stream.flush()


def main(argv: list[str]) -> int:
    """Run one job (see the module); 0 when it succeeded, 1 when it reported an error."""
    job, path, outcome_fd, pragmas, arg = argv
    report = os.fdopen(int(outcome_fd), "wb")
    try:
        if job == "write":
            _write(path, pragmas.split(";"), int(arg), sys.stdin.buffer)
        else:
            _read(path, pragmas.split(";"), arg, sys.stdout.buffer)
            sys.stdout.buffer.flush()
    except BaseException as error:  # noqa: BLE001 - every failure goes back to the parent
        kind = "TriageError" if isinstance(error, Refused) else type(error).__name__
        _report(report, ("error", kind, str(error)))
        return 1
    _report(report, ("ok",))
    return 0


if __name__ == "__main__":
    import adbc_driver_sqlite  # noqa: F401 - loaded now, while the parent still reads
    import nanoarrow  # noqa: F401

    sys.exit(main(sys.argv[1:]))
