"""Reads of the candidate pool: ids, keys, gold labels and raw candidate rows."""

from __future__ import annotations

import sqlite_utils


def exist(db: sqlite_utils.Database) -> bool:
    """True when the project holds at least one candidate."""
    return db.execute("SELECT 1 FROM candidates LIMIT 1").fetchone() is not None


def ids_by_key(db: sqlite_utils.Database) -> dict[str, int]:
    """Every candidate's id by its key."""
    return dict(db.execute("SELECT key, id FROM candidates").fetchall())


def ids(db: sqlite_utils.Database) -> list[int]:
    """Every candidate id, ascending."""
    return [r[0] for r in db.execute("SELECT id FROM candidates ORDER BY id").fetchall()]


def golds(db: sqlite_utils.Database) -> list[str | None]:
    """Gold labels in candidate-id order (None where a candidate has none)."""
    return [r[0] for r in db.execute("SELECT gold FROM candidates ORDER BY id").fetchall()]


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
