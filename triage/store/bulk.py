"""The import's small reads and writes around the bulk insert: models, settings.

The pool's candidates and rankings go in through :mod:`triage.store.poolwrite` (one
transaction, Arrow batches). None of these functions opens a transaction; the importer
runs the writes inside its one ``db.atomic()`` so an import is all or nothing.
"""

from __future__ import annotations

from typing import cast

import sqlite_utils


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
