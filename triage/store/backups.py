"""The rolling backup ``FILE.backup`` every writer keeps, and consistent copies on demand.

Copies are made with SQLite's online backup API from a connection the process already
has open on the file (never by opening the file a second way: see "One engine, one owner
per file" in the design notes), into a temporary file beside the target that replaces it
only once whole, so a full disk or a kill never leaves a half copy in place of a good one.
A file that fails ``PRAGMA quick_check`` is never copied over its backup.

When: a writer that has labelled looks at the backup's age now and then (a ``stat``, at
most every :data:`LOOK_EVERY_S`) and refreshes it when older than :data:`REFRESH_AFTER_S`;
when it closes it refreshes it unless it is younger than :data:`AT_CLOSE_AFTER_S`. A
project only read or only imported into makes none.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import sqlite_utils

from triage.store.integrity import backup_file

__all__ = ["AT_CLOSE_AFTER_S", "LOOK_EVERY_S", "REFRESH_AFTER_S", "RollingBackup",
           "backup_age", "copy_database"]

REFRESH_AFTER_S = 86400.0   # while labelling: a fresh backup at most once a day
AT_CLOSE_AFTER_S = 3600.0   # closing after labelling: unless one was made within the hour
LOOK_EVERY_S = 300.0        # how often a labelling writer looks at the backup's age
_IN_PROGRESS_S = 120.0      # a partial copy touched this recently is another's, under way


def copy_database(source: sqlite3.Connection, target: Path) -> None:
    """Copy the database open on ``source`` to ``target`` (atomically replacing it)."""
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                suffix=".partial")
    os.close(fd)
    partial = Path(name)
    try:
        copy = sqlite3.connect(str(partial))
        try:
            source.backup(copy)
        finally:
            copy.close()
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)
        Path(f"{partial}-journal").unlink(missing_ok=True)


def sound(conn: sqlite3.Connection) -> bool:
    """Does the database on ``conn`` pass SQLite's quick check (worth backing up)?"""
    return bool(conn.execute("PRAGMA quick_check(1)").fetchone()[0] == "ok")


def backup_age(path: Path) -> float | None:
    """Seconds since ``FILE.backup`` of ``path`` was written; None when there is none."""
    try:
        return max(0.0, time.time() - backup_file(path).stat().st_mtime)
    except OSError:
        return None


def _copy_under_way(path: Path) -> bool:
    """Is another connection (a desk's session start) writing the backup right now?"""
    target = backup_file(path)
    now = time.time()
    for partial in target.parent.glob(f".{target.name}.*.partial"):
        try:
            if now - partial.stat().st_mtime < _IN_PROGRESS_S:
                return True
        except OSError:
            continue
    return False


def refresh(conn: sqlite3.Connection, path: Path) -> Path | None:
    """Copy the sound database on ``conn`` (the file ``path``) to ``FILE.backup``.

    Returns the backup, or None when none was made (a damaged file, a full disk, a lock).
    """
    target = backup_file(path)
    try:
        if not sound(conn):
            return None
        copy_database(conn, target)
    except (sqlite3.Error, OSError):
        return None
    return target


class RollingBackup:
    """The rolling backup one open project keeps, through its own connection."""

    def __init__(self, db: sqlite_utils.Database,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.db = db
        self.clock = clock
        path = db.conn.execute("PRAGMA database_list").fetchone()[2]
        self.path = Path(path) if path else None
        self.labelled = False
        # The first look waits a little: a desk refreshes the backup as its session starts.
        self.next_look = clock() + 60.0

    def after_label(self) -> Path | None:
        """A label was written: refresh the backup if it is due (a stat now and then)."""
        self.labelled = True
        now = self.clock()
        if now < self.next_look:
            return None
        self.next_look = now + LOOK_EVERY_S
        return self.keep(REFRESH_AFTER_S)

    def at_close(self) -> Path | None:
        """The project is closing: refresh the backup if this project labelled."""
        return self.keep(AT_CLOSE_AFTER_S) if self.labelled else None

    def keep(self, older_than: float) -> Path | None:
        """Refresh ``FILE.backup`` unless it is younger than ``older_than`` seconds."""
        try:
            busy = self.db.conn.in_transaction
        except sqlite3.ProgrammingError:  # closed already (closing twice): nothing to keep
            return None
        if self.path is None or busy:
            return None
        age = backup_age(self.path)
        if age is not None and age < older_than:
            return None
        if _copy_under_way(self.path):
            return None
        return refresh(self.db.conn, self.path)
