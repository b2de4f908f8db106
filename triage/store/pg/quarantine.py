"""Rows from the server that a replica cannot use: set aside, counted, never fatal.

A server row that the project file refuses (a CHECK or FOREIGN KEY, a kind this version
does not know, a time that is not a time, seconds that are not a number of seconds) is
written to the replica's ``_quarantine`` table instead, with the reason, and the pull goes
on. Such a row can only come from an old server or a hand-edited one: the server's own
functions refuse it. When the row is repaired on the server, its change number moves and
the next pull brings it again; stored, it leaves the quarantine.

The replica also keeps ``_replica``: how far it has pulled (the server's change number).
Both tables start with ``_`` so nothing that reads a project file's head schema sees them.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

import sqlite_utils

from triage.store.pg.tables import table
from triage.store.schema import LABEL_KINDS

MAX_SECONDS = 86400.0
_LOCAL = (
    "CREATE TABLE IF NOT EXISTS _replica (key TEXT PRIMARY KEY, value INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS _quarantine (tbl TEXT NOT NULL, row_id INTEGER NOT NULL, "
    "reason TEXT NOT NULL, row TEXT NOT NULL, PRIMARY KEY (tbl, row_id))",
)


def ensure_local_tables(db: sqlite_utils.Database) -> None:
    """Create the replica's own bookkeeping tables unless they exist."""
    for statement in _LOCAL:
        db.conn.execute(statement)


def mark(db: sqlite_utils.Database) -> int:
    """The server change number the replica has pulled up to (0: nothing yet)."""
    try:
        row = db.execute("SELECT value FROM _replica WHERE key = 'seq'").fetchone()
    except sqlite3.OperationalError:   # no pull has made the table yet
        return 0
    return int(row[0]) if row else 0


def set_mark(db: sqlite_utils.Database, seq: int) -> None:
    """Remember that every change up to ``seq`` has been pulled."""
    db.conn.execute("INSERT INTO _replica(key, value) VALUES ('seq', ?) ON CONFLICT(key) "
                    "DO UPDATE SET value = max(value, excluded.value)", [int(seq)])


def _time(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


_L = {name: i for i, name in enumerate(table("labels").names)}
_S = {name: i for i, name in enumerate(table("sessions").names)}


def _label_problem(row: Sequence[Any]) -> str | None:
    kind = row[_L["kind"]]
    if kind not in LABEL_KINDS:
        return f"label kind {str(kind)[:40]!r} is not one this version knows"
    seconds = row[_L["seconds"]]
    if not isinstance(seconds, int | float) or not (
            math.isfinite(seconds) and 0 <= seconds <= MAX_SECONDS):
        return f"seconds {seconds!r} is not a time a label can take"
    undone = row[_L["undone_at"]]
    if not _time(row[_L["created_at"]]) or (undone is not None and not _time(undone)):
        return "its time is not a date and time"
    return None


def _session_problem(row: Sequence[Any]) -> str | None:
    ended = row[_S["ended_at"]]
    if not _time(row[_S["started_at"]]) or (ended is not None and not _time(ended)):
        return "its time is not a date and time"
    return None


_REFUSED = (sqlite3.IntegrityError, sqlite3.InterfaceError, sqlite3.DataError,
            sqlite3.ProgrammingError, OverflowError)
CHECKS: dict[str, Callable[[Sequence[Any]], str | None]] = {
    "labels": _label_problem, "sessions": _session_problem}


def _set_aside(db: sqlite_utils.Database, name: str, row: Sequence[Any], reason: str) -> None:
    key = row[table(name).names.index(table(name).key)]
    shown = json.dumps([v if isinstance(v, int | float | str | None) else repr(v)[:80]
                        for v in row], default=str)[:2000]
    db.conn.execute("INSERT INTO _quarantine(tbl, row_id, reason, row) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(tbl, row_id) DO UPDATE SET reason = excluded.reason, "
                    "row = excluded.row", [name, key, reason, shown])


def store(db: sqlite_utils.Database, name: str, sql: str, rows: Sequence[Sequence[Any]]) -> int:
    """Run ``sql`` (an INSERT of table ``name``) for each row; rows it refuses are set aside.

    All rows go in one ``executemany`` when they can (the common case costs nothing
    extra); after a refusal the batch is retried row by row, each in a savepoint.
    Returns how many rows were set aside. Call inside a transaction.
    """
    check = CHECKS.get(name)
    good: list[Sequence[Any]] = []
    bad = 0
    for row in rows:
        problem = check(row) if check is not None else None
        if problem is None:
            good.append(row)
        else:
            _set_aside(db, name, row, problem)
            bad += 1
    if not good:
        return bad
    stored = good
    try:
        with db.atomic():
            db.conn.executemany(sql, good)
    except _REFUSED:
        stored = []
        for row in good:
            try:
                with db.atomic():
                    db.conn.execute(sql, row)
                stored.append(row)
            except _REFUSED as error:
                _set_aside(db, name, row, f"the project file refused it ({error})")
                bad += 1
    if stored and db.execute("SELECT 1 FROM _quarantine LIMIT 1").fetchone():
        key = table(name).names.index(table(name).key)
        db.conn.executemany("DELETE FROM _quarantine WHERE tbl = ? AND row_id = ?",
                            [(name, r[key]) for r in stored])
    return bad


def summary(db: sqlite_utils.Database) -> str | None:
    """"N rows from the server could not be used: …", or None when every row was used."""
    try:
        rows = db.execute("SELECT tbl, row_id, reason FROM _quarantine "
                          "ORDER BY tbl, row_id").fetchall()
    except sqlite3.OperationalError:   # a replica from before quarantine existed
        return None
    if not rows:
        return None
    shown = "; ".join(f"{t} {i}: {r}" for t, i, r in rows[:3])
    more = f"; and {len(rows) - 3} more" if len(rows) > 3 else ""
    word = "row" if len(rows) == 1 else "rows"
    return (f"{len(rows)} {word} from the server could not be used: {shown}{more} "
            "(set aside in the local copy; ask the lead to repair them on the server)")


__all__ = ["ensure_local_tables", "mark", "set_mark", "store", "summary"]
