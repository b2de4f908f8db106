"""The client's side of a team project: its replica file and the server's readiness for desks.

A replica is an ordinary project file holding the server's rows with the server's ids;
the link writes to it only by pulling (:func:`triage.store.pg.copy.pull_into`). It needs
no durability of its own (the server is the truth and a lost replica is pulled again), so
the link's connection to it commits without waiting for the disk.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import sqlite_utils

from triage.base.errors import TriageError
from triage.store import connection as dbmod
from triage.store.pg.url import ServerUrl


def replica_database(path: Path) -> sqlite_utils.Database:
    """The link's own connection to the replica at ``path`` (created empty if missing).

    Several processes may open a team project at once on a machine with no replica yet:
    creation is guarded by a lock beside the replica (never the replica itself) and
    atomic (built under a temporary name, then renamed), so each process either makes
    the whole file or finds it whole.
    """
    if not path.exists():
        with creation_lock(path):
            if not path.exists():
                _build_aside(path)
    db, _backup = dbmod.open_database(path)
    db.conn.execute("PRAGMA synchronous=NORMAL")
    return db


@contextmanager
def creation_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``FILE.lock`` beside ``path`` for the block.

    The lock file is left in place (removing it would let two processes lock two files).
    Where ``fcntl`` is missing the block runs unguarded and only the rename protects it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on POSIX
        yield
        return
    fd = os.open(path.with_name(path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _build_aside(path: Path) -> None:
    """Create an empty project under a temporary name beside ``path`` and rename it there."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")
    os.close(fd)
    aside = Path(name)
    aside.unlink()   # create_database makes the file itself
    try:
        dbmod.create_database(aside).close()   # the last close folds its log into the file
        if path.exists():   # made meanwhile by a process that had no lock to take
            return
        os.replace(aside, path)
    finally:
        for leftover in (aside, Path(f"{aside}-wal"), Path(f"{aside}-shm")):
            with suppress(OSError):
                leftover.unlink()


def others_without_value(db: sqlite_utils.Database, role: str) -> int:
    """Active label events of other annotators that reached this replica without a value."""
    row = db.execute(
        "SELECT count(*) FROM labels l JOIN annotators a ON a.id = l.annotator_id "
        "WHERE l.undone_at IS NULL AND l.value IS NULL AND a.name != ?", [role]).fetchone()
    return int(row[0])


def check_project(conn: Any, url: ServerUrl) -> str:
    """The login role of ``conn``, once the server is known to hold ``url``'s project."""
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("SELECT session_user, to_regclass(%s) IS NOT NULL",
                    [f"{url.schema}.project"])
        role, exists = cur.fetchone()
    if not exists:
        raise TriageError(f"{url.display}: there is no project {url.project!r} on this server "
                          "(the lead creates it with `triage new URL FILE …` or `triage push`)")
    return str(role)
