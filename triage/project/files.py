"""Creating and opening project files: the entry points that hand out a :class:`Project`."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from triage.base.address import is_server_url
from triage.base.address import project_location as project_location  # the CLI argument type
from triage.base.errors import ProjectError
from triage.project.core import Project
from triage.store import connection as dbmod
from triage.store.settings import Settings
from triage.store.writer import FileWriter, write_new_project


def create_project(path: str | Path, settings: Settings | None = None) -> Project:
    """Create a new, empty project file and open it."""
    path = Path(path)
    settings = (settings or Settings()).validate()
    database = dbmod.create_database(path)
    try:
        with database.atomic():
            write_new_project(FileWriter(database), settings)
    except BaseException:
        database.close()
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):  # a full disk
            leftover.unlink(missing_ok=True)
        raise
    return Project(path, database)


def open_project(path: str | Path) -> Project:
    """Open an existing project file (migrating a copy-protected older one), or a server URL."""
    if is_server_url(path):
        from triage.project.team import open_team_project

        return open_team_project(str(path))
    path = Path(path)
    database, backup = dbmod.open_database(path)
    try:
        return Project(path, database, backup)
    except sqlite3.DatabaseError as error:
        database.close()
        raise ProjectError(f"{path} is damaged: {error}") from error


def open_for_reading(path: str | Path) -> Project:
    """Open, read-only, a project the desk has open: in one of its helper processes.

    The desk checked and migrated the file when it opened it, so this skips what
    :func:`open_project` does first (SQLite's integrity scan, which reads the whole file,
    paid by every analysis the lead window asks for) and every write."""
    if is_server_url(path) or not Path(f"{path}-wal").exists():
        return open_project(path)   # the desk has not got it open: the careful way
    path = Path(path)
    dbmod.check_project_header(path)
    database = dbmod.open_read_only(path)
    try:
        return Project(path, database)
    except sqlite3.DatabaseError as error:
        database.close()
        raise ProjectError(f"{path} is damaged: {error}") from error


@contextmanager
def opened(path: str | Path) -> Iterator[Project]:
    """Open a project for a ``with`` block; it is closed when the block ends."""
    project = open_project(path)
    try:
        yield project
    finally:
        project.close()
