"""Reading a project file's header must never drop the SQLite locks this process holds.

POSIX drops every lock a process holds on a file when it closes *any* descriptor of that
file; a plain ``open``/``close`` of the project while a desk holds the write lock would let
another process write (or remove the log) under it.
"""

from __future__ import annotations

import subprocess
import sys

from triage.project import create_project, open_project
from triage.store import connection


def test_another_desk_closing_does_not_remove_the_log_under_an_open_desk(tmp_path):
    # In WAL mode every connection holds a shared lock on the file; the last one to close
    # deletes the log. If our own header read dropped the desk's shared lock, another
    # process closing would think it was the last and remove the log the desk is using.
    path = tmp_path / "p.triage"
    create_project(path).close()
    desk = open_project(path)
    try:
        session = desk.start_session("ada")
        assert connection.is_sqlite_file(path)
        subprocess.run([sys.executable, "-c",
                        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]);"
                        "c.execute('SELECT count(*) FROM labels').fetchone(); c.close()",
                        str(path)], check=True)
        assert (tmp_path / "p.triage-wal").exists()
        desk.end_session(session)                        # still writes without an I/O error
    finally:
        desk.close()


def test_a_file_not_open_here_is_still_read_from_its_header(tmp_path):
    other = tmp_path / "notes.triage"
    other.write_bytes(b"just some text, not a database")
    assert not connection.is_sqlite_file(other)


def test_the_busy_timeout_is_read_when_a_connection_opens(tmp_path, monkeypatch):
    # It used to be baked into the pragmas at import, so changing it did nothing.
    create_project(tmp_path / "p.triage").close()
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 0.25)
    with open_project(tmp_path / "p.triage") as project:
        assert project.db.execute("PRAGMA busy_timeout").fetchone()[0] == 250
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 3.0)
    with open_project(tmp_path / "p.triage") as project:
        assert project.db.execute("PRAGMA busy_timeout").fetchone()[0] == 3000
