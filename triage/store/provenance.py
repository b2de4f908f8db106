"""Where a project's data came from: each imported file with its hash, and its models.

The importer records one entry per imported file (inside its transaction, so a failed
import records nothing); the report reads them back as its data-provenance section.
"""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

SOURCES_KEY = "sources"


def record_source(db: sqlite_utils.Database, entry: dict[str, Any]) -> None:
    """Append ``entry`` (file, sha256, imported_at, kind, models, rows) to the sources list."""
    found = db.execute("SELECT value FROM project WHERE key = ?", [SOURCES_KEY]).fetchone()
    entries = json.loads(found[0]) if found else []
    entries.append(entry)
    db.conn.execute(
        "INSERT INTO project(key, value) VALUES (?, ?) "
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [SOURCES_KEY, json.dumps(entries, ensure_ascii=False)])


def sources(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """Every recorded import, oldest first (empty for files imported before they were kept)."""
    found = db.execute("SELECT value FROM project WHERE key = ?", [SOURCES_KEY]).fetchone()
    return list(json.loads(found[0])) if found else []


def model_sources(db: sqlite_utils.Database) -> list[dict[str, Any]]:
    """Each model: name, score column, source file, import time and tied items."""
    rows = db.execute("SELECT name, source_column, source_file, imported_at, tied_items "
                      "FROM models ORDER BY id").fetchall()
    return [{"name": r[0], "column": r[1], "file": r[2], "imported_at": r[3],
             "tied_items": r[4]} for r in rows]
