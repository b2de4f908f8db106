"""A minimal ADBC connection to a project file, and the reads that go through one.

ADBC (``adbc_driver_sqlite``) moves rows between SQLite and Arrow in C: no Python object
per value. The driver carries its own copy of SQLite, so within this process an ADBC
connection must have the file to itself (see :mod:`triage.store.poolwrite` and
:func:`triage.store.connection.released`); :func:`candidate_columns` checks that and
falls back to the standard library's ``sqlite3`` otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from triage.base import arrow
from triage.store import connection, integrity

BATCH_ROWS = 65536
# Candidate columns a reader may ask for, as text ('' for NULL): names joined into SQL
# come from here only.
TEXT_COLUMNS = {"key": "key", "text": "text", "gold": "coalesce(gold, '')",
                "meta": "coalesce(meta, '')"}


class Adbc:
    """A minimal ADBC connection: statements with Arrow parameters, queries to Arrow."""

    def __init__(self, path: str):
        import adbc_driver_manager
        import adbc_driver_sqlite

        self.lib = adbc_driver_manager
        self.database = adbc_driver_sqlite.connect(path)
        self.conn = adbc_driver_manager.AdbcConnection(self.database)
        # Wait for a lock as our other connections do: parallel readers opening a WAL file
        # at once may find another recovering its index, which is "database is locked"
        # at once without a timeout.
        self.run(f"PRAGMA busy_timeout={int(connection.BUSY_TIMEOUT_S * 1000)}")

    def run(self, sql: str, params: list[Any] | None = None) -> None:
        """Execute one statement, with ``params`` bound to its ``?`` placeholders."""
        import pyarrow as pa

        statement = self.lib.AdbcStatement(self.conn)
        try:
            statement.set_sql_query(sql)
            if params is not None:
                batch = pa.record_batch([_param(v) for v in params],
                                        names=[f"p{i}" for i in range(len(params))])
                schema, array = batch.__arrow_c_array__()
                statement.bind(array, schema)
            statement.execute_update()
        finally:
            statement.close()

    def table(self, sql: str) -> Any:
        """The result of a query as an Arrow table."""
        import pyarrow as pa

        statement = self.lib.AdbcStatement(self.conn)
        try:
            statement.set_sql_query(sql)
            statement.set_options(**{"adbc.sqlite.query.batch_rows": str(BATCH_ROWS)})
            handle, _ = statement.execute_query()
            return pa.RecordBatchReader.from_stream(handle).read_all()
        finally:
            statement.close()

    def row(self, sql: str) -> tuple[Any, ...]:
        """The first row of a query's result."""
        return tuple(column[0].as_py() for column in self.table(sql).columns)

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
    """A one-element Arrow array of a parameter; a memoryview becomes a BLOB without a
    copy of its bytes (a ranking's blob is tens of MB at five million candidates)."""
    if isinstance(value, memoryview):
        import numpy as np
        import pyarrow as pa

        data = pa.py_buffer(value)
        offsets = pa.py_buffer(np.array([0, data.size], dtype=np.int64))
        return pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, data])
    return arrow.column_of(value)


def candidate_columns(path: str, names: Sequence[str], parts: int = 1) -> Any:
    """Text columns (see TEXT_COLUMNS) of every candidate in id order, as an Arrow table.

    The caller must have closed its own connections to ``path`` first; when something
    else in this process still has the file open, the rows come through ``sqlite3``.
    ``parts`` > 1 reads that many id ranges on as many threads and connections (the
    driver and Arrow release the GIL), which a multi-core machine does in a fraction of
    the time.
    """
    import pyarrow as pa

    if not set(names) <= set(TEXT_COLUMNS):
        raise ValueError(f"unknown candidate columns {names}")
    # Only expressions from TEXT_COLUMNS and integers are joined in.
    select = "SELECT " + ", ".join(f"{TEXT_COLUMNS[n]} AS {n}" for n in names)
    if connection.open_in_this_process(path) or not integrity.writable(path) \
            or integrity.no_room(Path(path)):
        return _columns_sqlite3(path, select + " FROM candidates ORDER BY id",  # noqa: S608
                                names)
    try:
        last = _max_id(path)
    except Exception:  # noqa: BLE001 - e.g. no room for the driver's -shm on a full disk
        return _columns_sqlite3(path, select + " FROM candidates ORDER BY id",  # noqa: S608
                                names)
    bounds = [last * i // parts for i in range(parts + 1)]
    queries = [select + f" FROM candidates WHERE id > {int(lo)} AND id <= {int(hi)} "  # noqa: S608
               "ORDER BY id" for lo, hi in zip(bounds, bounds[1:])]
    if parts == 1:
        return _read(path, queries[0])
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=parts) as pool:
        tables = list(pool.map(lambda q: _read(path, q), queries))
    return pa.concat_tables(tables)


def _read(path: str, sql: str) -> Any:
    db = Adbc(path)
    try:
        return db.table(sql)
    finally:
        db.close()


def _max_id(path: str) -> int:
    db = Adbc(path)
    try:
        return int(db.row("SELECT coalesce(max(id), 0) FROM candidates")[0])
    finally:
        db.close()


def _columns_sqlite3(path: str, sql: str, names: Sequence[str]) -> Any:

    import pyarrow as pa

    # Read-only; immutable when even that cannot make its -shm (a full disk, a read-only folder).
    conn = integrity.read_only_connection(Path(path), connection.BUSY_TIMEOUT_S)
    try:
        rows = conn.execute(sql).fetchall()
    finally:
        conn.close()
    columns = list(zip(*rows)) if rows else [() for _ in names]
    return pa.table([arrow.strings(list(c)) for c in columns], names=list(names))
