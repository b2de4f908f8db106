"""Reads of the candidates' texts in bulk, through the ADBC driver in a child process.

ADBC (``adbc_driver_sqlite``) moves rows from SQLite to Arrow in C: no Python object per
value. The driver carries its own copy of SQLite, so it runs only in a child process
(:mod:`triage.store.bulkchild`, driven by :func:`triage.store.bulkrun.read`): this
process has one SQLite engine, the standard library's. A file the child cannot open (a
read-only folder, a full disk) is read through ``sqlite3`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from triage.base import arrow
from triage.store import bulkrun, connection, integrity

# Candidate columns a reader may ask for, as text ('' for NULL): names joined into SQL
# come from here only.
TEXT_COLUMNS = {"key": "key", "text": "text", "gold": "coalesce(gold, '')",
                "meta": "coalesce(meta, '')"}


def candidate_columns(path: str, names: Sequence[str], parts: int = 1) -> Any:
    """Text columns (see TEXT_COLUMNS) of every candidate in id order, as an Arrow table.

    ``parts`` is kept for callers that asked for parallel reads; the child reads in one.
    """
    import pyarrow as pa

    del parts
    if not set(names) <= set(TEXT_COLUMNS):
        raise ValueError(f"unknown candidate columns {names}")
    # Only expressions from TEXT_COLUMNS are joined in.
    sql = ("SELECT " + ", ".join(f"{TEXT_COLUMNS[n]} AS {n}" for n in names)  # noqa: S608
           + " FROM candidates ORDER BY id")
    if bulkrun.available() and integrity.writable(path) and not integrity.no_room(Path(path)):
        try:
            return pa.Table.from_batches(list(bulkrun.read(path, sql)))
        except Exception:  # noqa: BLE001 - e.g. no room for the driver's -shm: read it here
            pass
    return _columns_sqlite3(path, sql, names)


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
