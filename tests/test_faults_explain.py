"""Each file fault becomes one sentence that says what happened and what to do."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from triage.base.errors import BusyError, DamagedProject, ProjectError, WriteFailed
from triage.store.faults import explain


@pytest.mark.parametrize("error, kind, words", [
    (sqlite3.OperationalError("database or disk is full"), WriteFailed, "is full"),
    (OSError(errno.ENOSPC, "No space left on device"), WriteFailed, "free at least"),
    (sqlite3.OperationalError("attempt to write a readonly database"), WriteFailed, "read-only"),
    (OSError(errno.EROFS, "Read-only file system"), WriteFailed, "read-only"),
    (sqlite3.OperationalError("database is locked"), BusyError, "is busy"),
    (sqlite3.DatabaseError("database disk image is malformed"), DamagedProject, "triage check"),
    (sqlite3.DatabaseError("file is not a database"), DamagedProject, "is damaged"),
    (sqlite3.OperationalError("unable to open database file"), ProjectError, "cannot be opened"),
])
def test_faults_are_sentences(tmp_path, error, kind, words):
    target = tmp_path / "p.triage"
    target.write_bytes(b"")
    explained = explain(error, target, doing="your last label is kept")
    assert isinstance(explained, kind)
    assert words in str(explained) and str(target) in str(explained)
    assert "\n" not in str(explained)


def test_what_is_not_a_file_fault_is_left_alone():
    assert explain(ValueError("x")) is None
    assert explain(sqlite3.OperationalError("no such table: x")) is None


def test_a_missing_file_is_not_called_a_disk_fault(tmp_path):
    missing = FileNotFoundError(errno.ENOENT, "No such file or directory", str(tmp_path / "x"))
    assert explain(missing, tmp_path / "x") is None
    assert isinstance(explain(OSError(errno.EIO, "Input/output error"), tmp_path), WriteFailed)
