"""Checking a project file on demand (``triage check``) and keeping its rolling backup."""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path

from triage.base.errors import DamagedProject, ProjectError
from triage.store import backups, connection, content, integrity
from triage.store.faults import damaged_message, explain


@dataclass(frozen=True)
class CheckReport:
    """What ``triage check`` found: the problems ([] when sound) and the backup on hand."""

    path: str
    problems: list[str]
    read_only: bool
    backup: str | None          # FILE.backup, when there is one
    rolled_back: bool           # an interrupted write was rolled back first
    deep: bool = False          # the text and scores were checked against their checksums
    damaged_rows: list[str] = field(default_factory=list)     # --deep: rows that changed
    unhashed_candidates: int = 0          # --deep: candidates with no checksum to compare
    unhashed_models: list[str] = field(default_factory=list)  # --deep: rankings with none

    @property
    def ok(self) -> bool:
        """True when nothing wrong was found (SQLite's check, and the checksums if deep)."""
        return not self.problems and not self.damaged_rows


def check_file(path: str | Path, *, deep: bool = False) -> CheckReport:
    """The full integrity check of a project file (reads only, after rolling back a killed write).

    With ``deep``, every candidate's text and every ranking is also compared with the
    checksums stored when it was imported.
    """
    path = Path(path)
    rolled = connection.roll_back_interrupted(path)
    connection.check_project_header(path)
    problems = integrity.integrity_problems(path, connection.BUSY_TIMEOUT_S)
    if not problems:
        connection.check_project(path)  # a sound SQLite file must still be a Triage project
    found = content.DeepCheck()
    if deep and not problems:
        conn = integrity.read_only_connection(path, connection.BUSY_TIMEOUT_S)
        try:
            found = content.deep_problems(conn)
        finally:
            conn.close()
    backup = integrity.backup_file(path)
    return CheckReport(str(path), problems, not integrity.writable(path),
                       str(backup) if backup.exists() else None, rolled, deep,
                       found.damaged, found.unhashed_candidates, found.unhashed_models)


def record_checksums(path: str | Path) -> tuple[int, int]:
    """Record the checksums a project made before they existed lacks: (candidates, models).

    They describe the data as it stands now, so run ``triage check`` first.
    """
    from triage.project.files import open_project

    with open_project(path) as project:
        return content.record_missing(project.writer.import_target("record checksums of"))


def backup_project(path: str | Path, dest: str | Path | None = None) -> Path:
    """A consistent copy of the project at ``path``, desks open or not; where it went.

    ``dest`` defaults to the rolling backup ``FILE.backup`` beside it; a folder receives a
    copy of the same name. SQLite's online backup API reads the file (reading only, so a
    read-only project is copied too); nothing else in the process opens it.
    """
    path = Path(path)
    target = integrity.backup_file(path) if dest is None else Path(dest)
    if target.is_dir():
        target = target / path.name
    connection.check_project(path)
    if target.resolve() in {path.resolve(), Path(f"{path.resolve()}-wal"),
                            Path(f"{path.resolve()}-shm")}:
        raise ProjectError(f"{target} is the project itself; name another file for the copy")
    if target.exists() and target != integrity.backup_file(path):
        raise ProjectError(f"{target} already exists; choose another name (a copy never "
                           "replaces a file other than the project's own FILE.backup)")
    if not target.parent.is_dir():
        raise ProjectError(f"cannot write {target}: the folder {target.parent} does not exist")
    conn = integrity.read_only_connection(path, connection.BUSY_TIMEOUT_S)
    try:
        if not backups.sound(conn):
            raise DamagedProject(damaged_message(str(path), "its own consistency check failed"))
        backups.copy_database(conn, target)
    except (sqlite3.Error, OSError) as error:
        raise explain(error, target, doing="the project was not changed") or \
            ProjectError(f"cannot write {target}: {error}") from error
    finally:
        conn.close()
    return target


def start_session_backup(path: str | Path) -> threading.Thread:
    """Refresh ``FILE.backup`` (at most once a day) on a background thread; returns it."""
    worker = threading.Thread(
        target=integrity.rolling_backup, args=(Path(path), connection.BUSY_TIMEOUT_S),
        # Not a daemon: the interpreter waits for the copy at exit rather than tearing
        # SQLite down under it (a daemon thread inside sqlite3's backup crashed the process).
        name="triage-backup", daemon=False)
    worker.start()
    return worker


def replace_abandoned(path: str | Path) -> bool:
    """Remove ``path`` if it is a project an interrupted ``triage new`` left empty; True if so.

    Empty means no candidates, no labels and no sessions: a killed import rolled back to
    the bare project, holding nothing but the settings the same command writes again.
    Anything else stays (and ``triage new`` then says the file exists).
    """
    path = Path(path)
    if not path.exists() or connection.open_in_this_process(str(path)):
        return False
    timeout = connection.BUSY_TIMEOUT_S
    try:
        connection.roll_back_interrupted(path)
        try:
            connection.check_project(path)
        except ProjectError:
            if not integrity.bare(path, timeout):  # killed before even the first step?
                return False
        found = integrity.counts(path, timeout, ("candidates", "labels", "sessions"))
    except (ProjectError, sqlite3.Error):
        return False
    if any(found):
        return False
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        leftover.unlink(missing_ok=True)
    return True
