"""A write that went into a write-ahead log deleted under the desk is never acknowledged.

The drop of SQLite's locks is provoked on purpose: an ``open()`` + ``close()`` of the
project file in this process, then another process reads the file and, believing itself
the last connection, checkpoints and deletes the log.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import make_project
from triage.base.errors import LogLost
from triage.project import open_project

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX locks")

READ = ("import sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1])\n"
        "print(conn.execute('SELECT count(*) FROM labels').fetchone()[0])\n"
        "conn.close()\n")


def labels_seen_elsewhere(path: Path) -> int:
    """Labels another process sees (it closes the file after: the last one out)."""
    done = subprocess.run([sys.executable, "-c", READ, str(path)], capture_output=True,
                          text=True, check=True)
    return int(done.stdout)


def drop_locks(path: Path) -> None:
    """What a file dialog's content sniffing did: open and close the file in-process."""
    with open(path, "rb") as handle:
        handle.read(16)


def label_next(project, session) -> int:
    item = project.next_candidate(session)
    return project.record_label(session, item.candidate_id, project.settings.labels[0].value)


@pytest.fixture
def project(tmp_path):
    make_project(tmp_path, n=30).close()
    with open_project(tmp_path / "p.triage") as opened:
        yield opened


def test_a_label_written_into_a_deleted_log_is_refused_then_saved_after_reopen(project):
    session = project.start_session("ada")
    acknowledged = [label_next(project, session) for _ in range(2)]
    drop_locks(project.path)
    assert labels_seen_elsewhere(project.path) == 2
    assert not Path(f"{project.path}-wal").exists()   # the reader deleted the desk's log
    item = project.next_candidate(session)
    value = project.settings.labels[0].value
    with pytest.raises(LogLost, match="deleted the write-ahead log .* was not saved"):
        project.record_label(session, item.candidate_id, value)
    project.reopen()
    acknowledged.append(project.record_label(session, item.candidate_id, value))
    acknowledged += [label_next(project, session) for _ in range(2)]
    assert labels_seen_elsewhere(project.path) == 5
    assert len(set(acknowledged)) == 5


@pytest.mark.parametrize("proc", [True, False], ids=["proc-self-fd", "dev-fd-only"])
def test_the_watch_sees_the_log_replaced(project, monkeypatch, proc):
    """With /proc/self/fd (Linux) and without it (macOS lists /dev/fd only)."""
    if not proc:
        monkeypatch.setattr("triage.store.logwatch._log_descriptors", lambda _log: None)
    project.writer.log.log_fd = None
    session = project.start_session("ada")
    label_next(project, session)
    assert project.writer.log.intact()
    drop_locks(project.path)
    labels_seen_elsewhere(project.path)
    assert not project.writer.log.intact()


@pytest.mark.parametrize("proc", [True, False], ids=["proc-self-fd", "dev-fd-only"])
def test_no_false_alarm_after_an_import_reopened_the_connection(tmp_path, monkeypatch, proc):
    """The import lends the file to its bulk writer and opens it again: a new log, ours."""
    if not proc:
        monkeypatch.setattr("triage.store.logwatch._log_descriptors", lambda _log: None)
    project = make_project(tmp_path, n=30)   # created, then imported, in this process
    try:
        session = project.start_session("ada")
        assert len({label_next(project, session) for _ in range(3)}) == 3
    finally:
        project.close()
    assert labels_seen_elsewhere(tmp_path / "p.triage") == 3
