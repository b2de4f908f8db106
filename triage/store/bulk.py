"""The import's bulk writes: candidates streamed in chunks, models, the key index, pragmas.

The import path is speed-critical: rows go to ``executemany`` straight from the caller's
iterator (a ``zip`` over plain lists), a chunk at a time, with no per-row Python work here.
None of these functions opens a transaction; the importer runs them inside its one
``db.atomic()`` so an import is all or nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import cast

import sqlite_utils

# Ids are not bound: in the empty table SQLite numbers the rows 1..N in insert order,
# exactly the ids the rankings refer to (the importer checks this after the insert).
# Binding NULLs costs as much as a column, so absent columns are left out of the INSERT.
_CANDIDATE_INSERT = {
    (False, False): "INSERT INTO candidates(key, text) VALUES (?, ?)",
    (True, False): "INSERT INTO candidates(key, text, meta) VALUES (?, ?, ?)",
    (False, True): "INSERT INTO candidates(key, text, gold) VALUES (?, ?, ?)",
    (True, True): "INSERT INTO candidates(key, text, meta, gold) VALUES (?, ?, ?, ?)",
}


@contextmanager
def import_cache(db: sqlite_utils.Database, cache_kib: int) -> Iterator[None]:
    """A ``cache_kib`` page cache and in-memory temp store for the block; both restored after."""
    old = db.execute("PRAGMA cache_size").fetchone()[0]
    old_temp = db.execute("PRAGMA temp_store").fetchone()[0]
    db.conn.execute(f"PRAGMA cache_size=-{int(cache_kib)}")
    db.conn.execute("PRAGMA temp_store=MEMORY")
    try:
        yield
    finally:
        db.conn.execute(f"PRAGMA cache_size={int(old)}")
        db.conn.execute(f"PRAGMA temp_store={int(old_temp)}")


def insert_candidates(db: sqlite_utils.Database, rows: Iterable[tuple], *, meta: bool,
                      gold: bool, chunk: int, advance: Callable[[int], None]) -> None:
    """Append (key, text[, meta][, gold]) rows by ``executemany``, ``chunk`` rows at a time."""
    sql = _CANDIDATE_INSERT[(meta, gold)]
    iterator = iter(rows)
    while True:
        cursor = db.conn.executemany(sql, itertools.islice(iterator, chunk))
        done = max(cursor.rowcount, 0)
        if done:
            advance(done)  # progress between chunks; raising here cancels the import
        if done < chunk:
            return


def drop_key_index(db: sqlite_utils.Database) -> None:
    """Drop the unique index on candidate keys (rebuilt once after a bulk insert)."""
    db.conn.execute("DROP INDEX candidates_key")


def create_key_index(db: sqlite_utils.Database) -> None:
    """Build the unique index on candidate keys."""
    db.conn.execute("CREATE UNIQUE INDEX candidates_key ON candidates(key)")


def id_range(db: sqlite_utils.Database) -> tuple[int | None, int | None]:
    """(smallest, largest) candidate id; (None, None) when there are none."""
    first, last = db.conn.execute("SELECT min(id), max(id) FROM candidates").fetchone()
    return first, last


def insert_model(db: sqlite_utils.Database, name: str, source_column: str, source_file: str,
                 imported_at: str, tied_items: int) -> int:
    """Add one model row and return its id."""
    cursor = db.conn.execute(
        "INSERT INTO models(name, source_column, source_file, imported_at, tied_items) "
        "VALUES (?, ?, ?, ?, ?)",
        [name, source_column, source_file, imported_at, tied_items])
    return cast(int, cursor.lastrowid)


def model_names(db: sqlite_utils.Database) -> set[str]:
    """Names of the models the project already has."""
    return {r[0] for r in db.execute("SELECT name FROM models").fetchall()}


def stored_setting(db: sqlite_utils.Database, key: str) -> str | None:
    """The raw JSON text stored for setting ``key``, or None when it was never set."""
    row = db.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
    return row[0] if row else None
