"""The tables of the SQLite head schema, read from the migrations (one source of truth).

An in-memory SQLite database runs :data:`triage.store.schema.MIGRATIONS`; ``PRAGMA
table_info`` and ``index_list`` then give each table's columns and indexes, from which the
server's DDL (:mod:`.schema`), its functions (:mod:`.functions`) and push/pull
(:mod:`.copy`) are all derived.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import sqlite_utils

from triage.store.schema import MIGRATIONS

TYPES = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text", "BLOB": "bytea"}


@dataclass(frozen=True)
class Column:
    """One column of a head-schema table."""

    name: str
    type: str
    notnull: bool
    default: str | None
    pk: bool


@dataclass(frozen=True)
class Table:
    """One head-schema table: its columns (in order) and its extra indexes' SQL."""

    name: str
    columns: tuple[Column, ...]
    unique: tuple[tuple[str, ...], ...]
    indexes: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        """Column names in table order."""
        return tuple(c.name for c in self.columns)

    @property
    def column_list(self) -> str:
        """The column names joined for a SELECT or INSERT."""
        return ", ".join(self.names)

    @property
    def key(self) -> str:
        """The primary-key column (every head-schema table has a one-column key)."""
        return next(c.name for c in self.columns if c.pk)

    @property
    def identity(self) -> bool:
        """Whether the table's ``id`` draws from an identity on the server."""
        return any(c.pk and c.name == "id" and c.type == "INTEGER" for c in self.columns)


@functools.cache
def head_tables() -> tuple[Table, ...]:
    """Every table of the SQLite head schema, in creation order (no bookkeeping tables)."""
    db = sqlite_utils.Database(memory=True, execute_plugins=False)
    MIGRATIONS.apply(db)
    names = [r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' "
        "AND name NOT LIKE 'sqlite%' ORDER BY rowid")]
    tables = []
    for name in names:
        cols = tuple(Column(r[1], r[2].upper(), bool(r[3]), r[4], bool(r[5]))
                     for r in db.execute("SELECT * FROM pragma_table_info(?)", [name]))
        unique, indexes = [], []
        for _seq, index, is_unique, origin, _partial in db.execute(
                "SELECT * FROM pragma_index_list(?)", [name]).fetchall():
            if origin == "pk":
                continue
            if is_unique:  # NULLs never collide in a PostgreSQL unique index: no WHERE needed
                unique.append(tuple(r[2] for r in db.execute(
                    "SELECT * FROM pragma_index_info(?) ORDER BY seqno", [index])))
            else:
                sql = db.execute("SELECT sql FROM sqlite_master WHERE name = ?", [index]
                                 ).fetchone()[0]
                indexes.append(sql)
        tables.append(Table(name, cols, tuple(unique), tuple(indexes)))
    db.close()
    return tuple(tables)


def table(name: str) -> Table:
    """The head-schema table called ``name``."""
    for t in head_tables():
        if t.name == name:
            return t
    raise KeyError(name)


def pg_type(sqlite_type: str) -> str:
    """The PostgreSQL type of a head-schema column type."""
    return TYPES.get(sqlite_type, "text")


__all__ = ["TYPES", "Column", "Table", "head_tables", "pg_type", "table"]
