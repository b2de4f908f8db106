"""Opening project files: connection settings, the project marker, migrations, backups.

A project is one SQLite file. We open it through sqlite-utils with WAL (readers never
block the desk), foreign keys on, and ``synchronous=FULL`` so a committed label survives
power loss, not only a crash of the process.

Before touching a file we look at it read-only: a file that is not a Triage project, or
one written by a newer Triage, is refused without a single byte changed (enabling WAL
would already rewrite the header).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import sqlite3
import stat
import weakref
from pathlib import Path

import sqlite_utils

from triage.base.errors import BusyError, ProjectError
from triage.store import integrity, logwatch
from triage.store.schema import APPLICATION_ID, MIGRATIONS, step_names

SQLITE_MAGIC = b"SQLite format 3\x00"
# How long a write waits for another connection's lock. Read whenever a connection opens
# (never baked into a constant), so a test or a caller that changes it is obeyed.
BUSY_TIMEOUT_S = 10.0


def is_sqlite_file(path: str | Path) -> bool:
    """True when ``path`` is an SQLite file (starts with the SQLite header).

    Asked of SQLite itself, the one engine of this process: an ``open()`` and ``close()``
    of our own would drop every lock SQLite holds on the file if this process has it open
    (a desk writing a report), and the next process to close it could then delete the
    write-ahead log the desk still writes to. SQLite's own descriptors are safe: it defers
    closing them while it holds locks. Only a file SQLite cannot read (no database, or a
    damaged header) has its first bytes read here, to tell the two apart.
    """
    try:
        info = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_size < len(SQLITE_MAGIC):
        return False
    try:
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?immutable=1", uri=True,
                               isolation_level=None)
        try:
            conn.execute("PRAGMA schema_version").fetchone()
            return True
        finally:
            conn.close()
    except sqlite3.Error:
        pass
    try:
        with open(path, "rb") as handle:
            return handle.read(16) == SQLITE_MAGIC
    except OSError:
        return False


# Page size is fixed when a file is created. 16 KiB pages make the bulk import somewhat
# faster, but every label commit then writes 16 KiB log frames and label-and-next slows
# more than the import gains; the desk matters more, so we keep SQLite's default.
PAGE_SIZE = 4096
WAL_AUTOCHECKPOINT_PAGES = 8000


# Every connection's settings (the ADBC bulk writer applies them too), besides the busy
# timeout (:func:`busy_timeout_pragma`, read at connect time). Checkpoints copy the log
# into the file; SQLite runs one inside whichever commit crosses the threshold. A larger
# threshold keeps that work off most key presses; the desk checkpoints while the annotator
# pauses (Project.checkpoint).
PRAGMAS = (
    f"PRAGMA wal_autocheckpoint={WAL_AUTOCHECKPOINT_PAGES}",
    "PRAGMA foreign_keys=ON",
    "PRAGMA synchronous=FULL",
)


def busy_timeout_pragma() -> str:
    """The busy-timeout setting for a connection opening now (:data:`BUSY_TIMEOUT_S`)."""
    return f"PRAGMA busy_timeout={max(0, int(BUSY_TIMEOUT_S * 1000))}"


def _raw_connect(path: Path, page_size: int | None = None) -> sqlite3.Connection:
    # isolation_level=None: we open transactions explicitly with db.atomic(); the driver
    # must not open implicit ones behind our back.
    conn = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None,
                           check_same_thread=False)
    if page_size is not None:
        conn.execute(f"PRAGMA page_size={int(page_size)}")
    conn.execute("PRAGMA journal_mode=WAL")
    for pragma in (*PRAGMAS, busy_timeout_pragma()):
        conn.execute(pragma)
    return conn


def _connect(path: Path, page_size: int | None = None) -> sqlite_utils.Database:
    # No sqlite-utils plugins: Triage registers none, and looking for them reads every
    # installed package's entry points at every command's start.
    return _opened(sqlite_utils.Database(_raw_connect(path, page_size), execute_plugins=False),
                   path)


def database_path(db: sqlite_utils.Database) -> str | None:
    """The file behind ``db``'s main database; None for an in-memory or temporary one."""
    for _seq, name, file in db.conn.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return file or None
    return None


# Every connection this module opened, with its file (weakly: a dropped one leaves).
_OPEN: weakref.WeakKeyDictionary[sqlite_utils.Database, str] = weakref.WeakKeyDictionary()


def _opened(db: sqlite_utils.Database, path: Path) -> sqlite_utils.Database:
    _OPEN[db] = os.path.realpath(path)
    return db


def open_in_this_process(path: str) -> bool:
    """Does a project connection of this process, still open, have ``path``?

    Only the standard library's SQLite opens project files in this process (bulk work
    with another engine runs in a child, see :mod:`triage.store.bulkchild`), and every
    project connection is opened here, so the answer needs no look at descriptors.
    """
    target = os.path.realpath(path)
    for db, file in list(_OPEN.items()):
        if file != target:
            continue
        try:
            db.conn.total_changes  # noqa: B018 - raises once the connection is closed
        except sqlite3.ProgrammingError:
            continue
        return True
    return False


def reopen_after_lost_log(db: sqlite_utils.Database) -> sqlite_utils.Database:
    """A fresh connection to ``db``'s file, whose log was deleted under ``db``.

    ``db`` is closed while a helper process holds a read lock, so that closing it cannot
    checkpoint the lost log's stale pages into the file; BusyError (retry later) while
    another connection of this process still has the file open.
    """
    path = database_path(db)
    if path is None:
        raise ProjectError("an in-memory database has no log to lose")
    logwatch.close_without_checkpoint(db.close, path)
    if open_in_this_process(path):
        raise BusyError(f"{path} is still open elsewhere in this program; the desk will "
                        "reopen it when that is done")
    database, _backup = open_database(path)
    return database


def _inspect_read_only(path: Path) -> tuple[int, list[str]]:
    """Return (application_id, applied migration names) without writing anything."""
    with integrity.no_leftovers(path):  # a refused file keeps no log files beside it
        return _inspect(path)


def _inspect(path: Path) -> tuple[int, list[str]]:
    try:
        conn = integrity.read_only_connection(path, BUSY_TIMEOUT_S)
    except sqlite3.DatabaseError as error:
        raise integrity.refusal(error, path) from error
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        if app_id == APPLICATION_ID:
            integrity.quick_check(conn, path)
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        names: list[str] = []
        if "_sqlite_migrations" in tables:
            names = [r[0] for r in conn.execute(
                "SELECT name FROM _sqlite_migrations WHERE migration_set = ? ORDER BY id",
                [MIGRATIONS.name],
            )]
        return app_id, names
    except sqlite3.DatabaseError as error:
        raise integrity.refusal(error, path) from error
    finally:
        conn.close()


def backup_path(path: Path, version: int) -> Path:
    """Where the pre-migration copy of ``path`` goes (never overwrites an older copy)."""
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    candidate = path.with_name(f"{path.name}.v{version}-{stamp}.bak")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.v{version}-{stamp}-{n}.bak")
        n += 1
    return candidate


def _backup(path: Path, version: int) -> Path:
    """Copy the whole database (WAL included) aside with SQLite's online backup."""
    target = backup_path(path, version)
    src = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S)
    try:
        dst = sqlite3.connect(str(target))
        with dst:
            src.backup(dst)
        dst.close()
    finally:
        src.close()
    return target


def create_database(path: str | Path) -> sqlite_utils.Database:
    """Create a new, empty project file at ``path`` (which must not exist yet)."""
    path = Path(path)
    if path.exists():
        raise ProjectError(f"{path} already exists; choose another name or open it")
    if not path.parent.exists():
        raise ProjectError(f"{path.parent} does not exist")
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise ProjectError(f"cannot create {path}: its folder is read-only; choose a "
                           "folder you may write to")
    db = None
    try:
        db = _connect(path, page_size=PAGE_SIZE)
        db.conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
        MIGRATIONS.apply(db)
    except BaseException:
        if db is not None:
            db.close()
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
        raise
    return db


def check_project(path: str | Path) -> int:
    """Check, reading only, that ``path`` is a Triage project this version can open.

    Returns the number of schema steps the file has (fewer than this version knows means
    it needs migrating). Raises ProjectError naming the problem; never writes a byte.
    """
    path = Path(path)
    check_project_header(path)
    app_id, applied = _inspect_read_only(path)
    if app_id != APPLICATION_ID:
        raise ProjectError(f"{path} is an SQLite database but not a Triage project")
    known = known_migrations()
    unknown = [name for name in applied if name not in known]
    if unknown:
        raise ProjectError(
            f"{path} was written by a newer version of Triage (schema step {unknown[0]!r} "
            "is unknown here); update Triage to open it. The file was not changed."
        )
    return len(applied)


def known_migrations() -> list[str]:
    """Names of the schema steps this version of Triage knows, in order."""
    return step_names()


def open_database(path: str | Path) -> tuple[sqlite_utils.Database, Path | None]:
    """Open an existing project, migrating it if it is older. Returns (db, backup or None).

    What a killed import left is rolled back first; a damaged file is refused before
    anything writes to it; a file that cannot be written opens read-only (see
    :func:`read_only`). A refusal leaves no ``-wal``/``-shm`` file beside the project.
    """
    path = Path(path)
    roll_back_interrupted(path)
    version = check_project(path)
    if not integrity.writable(path) or integrity.no_room(path):
        if version < len(known_migrations()):
            raise ProjectError(f"{path} needs upgrading to this version of Triage, but it "
                               "cannot be written (read-only file or folder): make it writable "
                               "or copy it to a writable folder. The file was not changed.")
        return open_read_only(path), None
    backup = None
    if version < len(known_migrations()):
        backup = _backup(path, version)
    try:
        with integrity.no_leftovers(path):
            db = _connect(path)
            try:
                MIGRATIONS.apply(db)
            except BaseException:
                db.close()
                raise
    except sqlite3.OperationalError as error:
        # A full disk (no room for the log) or a file that turned out read-only: what
        # only reads (status, export, report) still works; every write says why not.
        if version < len(known_migrations()) or \
                integrity.kind_of(error, path) not in ("full", "readonly", "io"):
            raise integrity.refusal(error, path) from error
        return open_read_only(path), None
    return db, backup


def schema_version(db: sqlite_utils.Database) -> int:
    """Number of Triage migrations applied to this file."""
    return len(MIGRATIONS.applied(db))


def copy_project(src: str | Path, dst: str | Path) -> None:
    """Copy a project file byte for byte: one no connection has open (tests make copies).

    Its write-ahead log is not copied; closing the last connection folds it into the file.
    """
    shutil.copyfile(src, dst)


def checkpoint(db: sqlite_utils.Database) -> None:
    """Copy the write-ahead log into the project file now, without waiting for anyone."""
    db.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")


def set_busy_timeout(db: sqlite_utils.Database, seconds: float) -> None:
    """How long a write waits for another connection's lock before failing."""
    db.conn.execute(f"PRAGMA busy_timeout={max(0, int(seconds * 1000))}")


def data_version(db: sqlite_utils.Database) -> int:
    """A number that changes whenever another connection commits to the file."""
    return db.conn.execute("PRAGMA data_version").fetchone()[0]



# -- faults: interrupted imports, damage, read-only files (the checks: store.integrity) ----

_READ_ONLY: weakref.WeakSet[sqlite_utils.Database] = weakref.WeakSet()


def check_project_header(path: Path) -> None:
    """Refuse what is not even an SQLite file (missing, a folder, another format)."""
    if not path.exists():
        raise ProjectError(f"{path} does not exist")
    if not path.is_file():
        raise ProjectError(f"{path} is not a file")
    if not is_sqlite_file(path):
        raise ProjectError(f"{path} is not a Triage project (not an SQLite database)")


def roll_back_interrupted(path: str | Path) -> bool:
    """Roll back what a killed write (an import) left in a rollback journal; True if it did."""
    path = Path(path)
    return integrity.roll_back_journal(path, BUSY_TIMEOUT_S)


def open_read_only(path: Path) -> sqlite_utils.Database:
    """Open a project that cannot be written: reads work, every write is refused."""
    conn = integrity.read_only_connection(path, BUSY_TIMEOUT_S)
    conn.execute("PRAGMA foreign_keys=ON")
    db = sqlite_utils.Database(conn, execute_plugins=False)
    _READ_ONLY.add(db)
    return _opened(db, path)


def read_only(db: sqlite_utils.Database) -> bool:
    """Was ``db`` opened read-only (the file or its folder cannot be written)?"""
    return db in _READ_ONLY

