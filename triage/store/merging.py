"""The SQL of merging project copies: reads of a source or the target, writes to the target.

Every function takes a plain ``sqlite3.Connection`` (sources are opened read-only, the
target's writes run inside one ``BEGIN IMMEDIATE`` ... ``COMMIT`` that the caller drives).
Table and column names are joined into statements only from the schema
(:func:`columns`), never from user input; values always travel as parameters.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any, cast

# -- the candidate pool and label scheme ------------------------------------------------


def pool_in_key_order(conn: sqlite3.Connection) -> Iterable[tuple[str, str]]:
    """(key, text) of every candidate in key order, streamed."""
    return conn.execute("SELECT key, text FROM candidates ORDER BY key")


def pool_texts(conn: sqlite3.Connection) -> dict[str, str]:
    """Every candidate's text by its key."""
    return dict(conn.execute("SELECT key, text FROM candidates"))


def label_values(conn: sqlite3.Connection) -> set[str]:
    """The distinct label values used (skips, which have none, left out)."""
    return {r[0] for r in conn.execute(
        "SELECT DISTINCT value FROM labels WHERE value IS NOT NULL")}


# -- identities ---------------------------------------------------------------------------


def candidate_ids(conn: sqlite3.Connection) -> dict[str, int]:
    """Candidate id by key."""
    return dict(conn.execute("SELECT key, id FROM candidates"))


def annotator_ids(conn: sqlite3.Connection) -> dict[str, int]:
    """Annotator id by name."""
    return dict(conn.execute("SELECT name, id FROM annotators"))


def session_ids(conn: sqlite3.Connection) -> dict[str, int]:
    """Session id by uid."""
    return dict(conn.execute("SELECT uid, id FROM sessions"))


def label_marks(conn: sqlite3.Connection) -> Iterable[tuple[str, str | None, str | None]]:
    """(uid, undone_at, note) of every label event, streamed."""
    return conn.execute("SELECT uid, undone_at, note FROM labels")


def max_undo_seq(conn: sqlite3.Connection) -> int:
    """The highest undo sequence number used (0 when nothing was ever undone)."""
    return int(conn.execute("SELECT coalesce(max(undo_seq), 0) FROM labels").fetchone()[0])


def columns(conn: sqlite3.Connection, table: str) -> list[str]:
    """The column names of ``table`` in this file, in schema order."""
    return [r[1] for r in conn.execute("SELECT * FROM pragma_table_info(?)", [table])]


# -- rows of a source (columns from :func:`columns` only) -----------------------------------


def annotator_rows(conn: sqlite3.Connection, names: Sequence[str]) -> Iterable[tuple[Any, ...]]:
    """The given columns of every annotator, in id order, streamed."""
    return conn.execute(f"SELECT {', '.join(names)} FROM annotators ORDER BY id")  # noqa: S608


def session_rows(conn: sqlite3.Connection, names: Sequence[str]) -> Iterable[tuple[Any, ...]]:
    """(annotator name, *the given session columns) of every session, in id order, streamed."""
    select = ", ".join(f"s.{c}" for c in names)
    return conn.execute(f"SELECT a.name, {select} FROM sessions s "  # noqa: S608
                        "JOIN annotators a ON a.id = s.annotator_id ORDER BY s.id")


def label_rows(conn: sqlite3.Connection, names: Sequence[str]) -> Iterable[tuple[Any, ...]]:
    """(candidate key, annotator name, session uid, *the given label columns), in log order."""
    select = ", ".join(f"l.{c}" for c in names)
    return conn.execute(
        f"SELECT c.key, a.name, s.uid, {select} FROM labels l "  # noqa: S608
        "JOIN candidates c ON c.id = l.candidate_id "
        "JOIN annotators a ON a.id = l.annotator_id JOIN sessions s ON s.id = l.session_id "
        # The source's log order (ids), so that within what a source adds its latest event
        # stays last whatever its desks' clocks said.
        "ORDER BY l.id")


# -- writes to the target --------------------------------------------------------------------


def insert_row(conn: sqlite3.Connection, table: str, names: Sequence[str],
               values: Sequence[Any]) -> int:
    """Insert one row (schema names only) and return its id."""
    sql = (f"INSERT INTO {table}({', '.join(names)}) "  # noqa: S608 - schema names only
           f"VALUES ({', '.join('?' * len(names))})")
    return int(cast(int, conn.execute(sql, values).lastrowid))


def end_session(conn: sqlite3.Connection, uid: str, ended_at: str) -> None:
    """Set the end of session ``uid`` unless it already has one."""
    conn.execute("UPDATE sessions SET ended_at = ? WHERE uid = ? AND ended_at IS NULL",
                 [ended_at, uid])


def mark_undone(conn: sqlite3.Connection, uid: str, undone_at: str, undo_seq: int) -> None:
    """Mark label event ``uid`` undone with ``undo_seq``, unless it is undone already."""
    conn.execute("UPDATE labels SET undone_at = ?, undo_seq = ? "
                 "WHERE uid = ? AND undone_at IS NULL", [undone_at, undo_seq, uid])


def add_note(conn: sqlite3.Connection, uid: str, note: str) -> None:
    """Write a note on label event ``uid`` unless it has one."""
    conn.execute("UPDATE labels SET note = ? WHERE uid = ? AND note IS NULL", [note, uid])


# -- the target's transaction ------------------------------------------------------------------


def begin_immediate(conn: sqlite3.Connection) -> None:
    """Open a write transaction now (raises sqlite3.OperationalError when the file is busy)."""
    conn.execute("BEGIN IMMEDIATE")


def commit(conn: sqlite3.Connection) -> None:
    """Commit the open transaction."""
    conn.execute("COMMIT")


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if one is open."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")
