"""Is a project file sound, writable and whole? The checks :mod:`.connection` runs at open.

- a rollback journal left by a killed import is rolled back (SQLite does it on the first
  read by a connection that may write; a read-only look could not, and refused the file);
- ``PRAGMA quick_check`` refuses a damaged file before anything writes to it, and
  :func:`integrity_problems` runs the full check for ``triage check``;
- a file or folder that cannot be written is opened read-only;
- a failed open removes the ``-wal``/``-shm`` files it created itself.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from triage.base.errors import BusyError, DamagedProject, ProjectError
from triage.store.faults import damaged_message, explain, free_mb, kind_of

__all__ = ["QUICK_CHECK_MAX_BYTES", "backup_file", "hot_journal", "integrity_problems",
           "kind_of", "no_leftovers", "no_room", "quick_check", "read_only_connection", "refusal",
           "roll_back_journal", "rolling_backup", "writable"]

# quick_check reads every page, so its time grows with the file; past this size the check
# at open is left to `triage check`, so a very large project still opens in seconds.
QUICK_CHECK_MAX_BYTES = 256 * 2**20


def refusal(error: sqlite3.DatabaseError, path: Path) -> ProjectError:
    """Why a file that looks like SQLite cannot be read, as the matching project error."""
    text = str(error).lower()
    if "malformed" in text or "not a database" in text or "corrupt" in text:
        return DamagedProject(damaged_message(str(path), str(error)))
    explained = explain(error, path)
    if isinstance(explained, ProjectError):
        return explained
    if explained is not None:
        return ProjectError(str(explained))
    return ProjectError(f"{path} is not a Triage project ({error})")


def quick_check(conn: sqlite3.Connection, path: Path) -> None:
    """Refuse a damaged project (PRAGMA quick_check) before anything writes to it."""
    try:
        if path.stat().st_size > QUICK_CHECK_MAX_BYTES:
            return
    except OSError:
        return
    rows = [r[0] for r in conn.execute("PRAGMA quick_check(5)").fetchall()]
    if rows != ["ok"]:
        raise DamagedProject(damaged_message(str(path), "; ".join(rows)))


def integrity_problems(path: Path, timeout: float, limit: int = 100) -> list[str]:
    """PRAGMA integrity_check and foreign_key_check, read-only: the problems ([] when sound)."""
    problems: list[str] = []
    try:
        with no_leftovers(path):
            conn = read_only_connection(path, timeout)
            try:
                rows = [r[0] for r in
                        conn.execute(f"PRAGMA integrity_check({int(limit)})").fetchall()]
                fk = conn.execute("PRAGMA foreign_key_check").fetchmany(limit)
            finally:
                conn.close()
            problems = [] if rows == ["ok"] else rows
            problems += [f"row {rowid} of {table} points to a missing row of {parent}"
                         for table, rowid, parent, _fk in fk]
            if problems:
                raise _Refused  # damaged: leave no log files beside it
    except _Refused:
        return problems
    except sqlite3.DatabaseError as error:
        if kind_of(error, path) != "damaged":
            raise refusal(error, path) from error  # not damage: a full disk, a lock...
        return [str(error)]
    return problems


def writable(path: str | Path) -> bool:
    """Can this process write the project file and create its log files beside it?"""
    path = Path(path)
    folder = path.resolve().parent
    return os.access(path, os.W_OK) and os.access(folder, os.W_OK | os.X_OK)


def no_room(path: Path) -> bool:
    """Too little free space to create the log files at all (a write-ahead log and its index)."""
    free = free_mb(path)
    return free is not None and free < 1.0


def hot_journal(path: Path) -> bool:
    """Is a non-empty rollback journal beside ``path`` (a write was interrupted)?"""
    try:
        return Path(f"{path}-journal").stat().st_size > 0
    except OSError:
        return False


def roll_back_journal(path: Path, timeout: float) -> bool:
    """Let SQLite roll back a hot journal beside ``path``; True when one was rolled back."""
    if not hot_journal(path):
        return False
    if not writable(path):
        raise DamagedProject(
            f"{path} was left half-written by an interrupted import or write (its journal "
            f"{path.name}-journal is beside it) and cannot be rolled back because the file "
            "or its folder is read-only: make them writable and open it again")
    conn = sqlite3.connect(str(path), timeout=timeout)
    try:
        conn.execute("PRAGMA schema_version").fetchone()
    except sqlite3.DatabaseError as error:
        raise refusal(error, path) from error
    finally:
        conn.close()
    return not hot_journal(path)


def read_only_connection(path: Path, timeout: float) -> sqlite3.Connection:
    """A connection that can only read ``path`` (``mode=ro``, else ``immutable``)."""
    uri = path.resolve().as_uri()
    immutable = uri + "?immutable=1"
    if no_room(path) and not _has_log(path):  # even empty log files would not fit
        return sqlite3.connect(immutable, uri=True, isolation_level=None,
                               check_same_thread=False)
    try:
        with no_leftovers(path):
            conn = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=timeout,
                                   isolation_level=None, check_same_thread=False)
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except BaseException:
                conn.close()
                raise
        return conn
    except sqlite3.OperationalError as error:
        # Reading a WAL file needs its -shm, which a read-only folder or a full disk may
        # not let SQLite create. With no log to read, the file as it stands is the whole
        # project: read it as immutable. With a log, say why it cannot be read.
        if kind_of(error, path) not in ("readonly", "full", "io", "cantopen") or \
                _has_log(path):
            raise
    return sqlite3.connect(immutable, uri=True, isolation_level=None, check_same_thread=False)


def _has_log(path: Path) -> bool:
    try:
        return Path(f"{path}-wal").stat().st_size > 0
    except OSError:
        return False


class _Refused(Exception):
    """Raised inside :func:`no_leftovers` to clean up after a block that found damage."""


@contextmanager
def no_leftovers(path: Path) -> Iterator[None]:
    """If the block fails, remove the -wal/-shm files it created (none existed before).

    A read-only connection makes these files to read a WAL file but cannot remove them
    when it closes; a refused file must not keep them. (Only files that did not exist
    before are removed, so another desk's log is never touched.)
    """
    logs = [Path(f"{path}-wal"), Path(f"{path}-shm")]
    existed = [log.exists() for log in logs]
    try:
        yield
    except BaseException as error:
        if isinstance(error, BusyError) or kind_of(error, path) == "busy":
            raise  # another program is at work on the file: its logs may be new
        for log, was in zip(logs, existed):
            if not was:
                with suppress(OSError):  # a read-only folder: nothing was created there
                    log.unlink(missing_ok=True)
        raise


def backup_file(path: Path) -> Path:
    """Where the rolling backup of ``path`` lives: ``FILE.backup`` beside it."""
    return path.with_name(path.name + ".backup")


def rolling_backup(path: Path, timeout: float, *, max_age_s: float = 86400.0) -> Path | None:
    """Copy ``path`` to ``FILE.backup`` unless that copy is younger than ``max_age_s``.

    Returns the backup, or None when none was made. SQLite's online backup API copies
    a consistent state while desks keep writing.
    The copy goes to a temporary name first and replaces the old backup only once whole,
    so a full disk or a kill never leaves a half backup in place of a good one. A damaged
    file is never copied over its backup.
    """
    import time

    target = backup_file(path)
    try:
        if target.exists() and time.time() - target.stat().st_mtime < max_age_s:
            return None
    except OSError:
        return None
    # A name of its own (as triage.store.backups makes them), so that two copies never
    # write one file and a writer can see that this one is under way.
    partial: Path | None = None
    try:
        fd, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                    suffix=".partial")
        os.close(fd)
        partial = Path(name)
        src = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True, timeout=timeout)
        try:
            if src.execute("PRAGMA quick_check(1)").fetchone()[0] != "ok":
                return None
            dst = sqlite3.connect(str(partial))
            try:
                src.backup(dst)
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(partial, target)
    except (sqlite3.Error, OSError):
        return None
    finally:
        if partial is not None:
            partial.unlink(missing_ok=True)
    return target


def counts(path: Path, timeout: float, tables: tuple[str, ...]) -> list[int]:
    """Rows in each of ``tables`` (schema names; 0 for one not created yet), read-only."""
    conn = read_only_connection(path, timeout)
    try:
        present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        return [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]  # noqa: S608
                if t in present else 0 for t in tables]
    finally:
        conn.close()


def bare(path: Path, timeout: float) -> bool:
    """An SQLite file with no tables at all (a create killed before its first step)."""
    try:
        conn = read_only_connection(path, timeout)
        try:
            return conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
        finally:
            conn.close()
    except sqlite3.Error:
        return False
