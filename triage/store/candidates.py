"""Reads of the candidate pool: ids, keys, gold labels and raw candidate rows."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import sqlite_utils


def ensure_key_index(db: sqlite_utils.Database) -> None:
    """Build the unique index on candidate keys if it is missing.

    A pool import leaves it out: it costs a third of the import, and only look-ups by key
    need it.
    """
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' "
                  "AND name = 'candidates_key'").fetchone() is None:
        with db.atomic():
            db.conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS candidates_key "
                            "ON candidates(key)")


def exist(db: sqlite_utils.Database) -> bool:
    """True when the project holds at least one candidate."""
    return db.execute("SELECT 1 FROM candidates LIMIT 1").fetchone() is not None


def ids_by_key(db: sqlite_utils.Database) -> dict[str, int]:
    """Every candidate's id by its key."""
    return dict(db.execute("SELECT key, id FROM candidates").fetchall())


def ids(db: sqlite_utils.Database) -> list[int]:
    """Every candidate id, ascending."""
    return [r[0] for r in db.execute("SELECT id FROM candidates ORDER BY id").fetchall()]


def ids_with_gold(db: sqlite_utils.Database, values: list[str]) -> np.ndarray:
    """Ids (int64) of the candidates whose gold label is one of ``values``."""
    if not values:
        return np.empty(0, dtype=np.int64)
    marks = ",".join("?" * len(values))
    # Only "?" placeholders are joined in; the values travel as parameters.
    rows = db.execute("SELECT id FROM candidates WHERE gold IN (" + marks + ")",  # noqa: S608
                      values).fetchall()
    return np.fromiter((r[0] for r in rows), np.int64, len(rows))


def keys_by_id(db: sqlite_utils.Database, ids: list[int]) -> dict[int, str]:
    """The keys of the given candidates, by id (one statement, the ids as a JSON array)."""
    rows = db.execute("SELECT c.id, c.key FROM json_each(?) AS j "
                      "JOIN candidates AS c ON c.id = j.value", [json.dumps(ids)]).fetchall()
    return dict(rows)


def has_gold(db: sqlite_utils.Database) -> bool:
    """True when some candidate has a non-empty gold label."""
    return db.execute(
        "SELECT EXISTS(SELECT 1 FROM candidates WHERE gold IS NOT NULL AND gold != '')"
    ).fetchone()[0] == 1


def rows_by_id(db: sqlite_utils.Database, ids: list[int]) -> dict[int, tuple]:
    """Raw (id, key, text, gold, meta) rows of the given candidates, by id (one query)."""
    marks = ",".join("?" * len(ids))
    return {row[0]: row for row in db.execute(
        # Only "?" placeholders are joined in; the ids travel as parameters.
        "SELECT id, key, text, gold, meta FROM candidates WHERE id IN (" + marks + ")",  # noqa: S608
        ids)}


def picture_cells(db: sqlite_utils.Database, column: str | None, batch: int = 20_000,
                  ids: Sequence[int] | None = None) -> Iterator[list[tuple[str, str | None]]]:
    """(key, image cell) of every candidate (or of ``ids``) in id order, in batches.

    The text itself when ``column`` is None (a pool of pictures only), else that field
    of the metadata. Batches keep a million-row pool's check within a few megabytes.
    """
    cell = "text" if column is None else "json_extract(meta, ?)"
    params: list[Any] = [] if column is None else ['$."' + column.replace('"', '""') + '"']
    where = ""
    if ids is not None:  # the ids travel as one JSON parameter, never formatted in
        where = " WHERE id IN (SELECT value FROM json_each(?))"
        params.append(json.dumps([int(i) for i in ids]))
    cursor = db.execute(f"SELECT key, {cell} FROM candidates{where} ORDER BY id",  # noqa: S608
                        params)
    while rows := cursor.fetchmany(batch):
        yield [(r[0], None if r[1] is None else str(r[1])) for r in rows]
