"""A helper process reads the project the desk has open: read-only, without the scan."""

from __future__ import annotations

import os

import pytest

from tests.helpers import label_top, make_project
from triage.base.errors import TriageError
from triage.project.files import open_for_reading
from triage.views.analysis import disagreements_at


def test_a_helper_reads_what_the_desk_has_committed_and_writes_nothing(tmp_path):
    desk = make_project(tmp_path)            # the desk holds the file open (its log too)
    label_top(desk, "ada", 5)
    path = tmp_path / "p.triage"
    before = sorted(os.listdir(tmp_path))
    with open_for_reading(path) as helper:
        assert helper.snapshot().events == 5          # the desk's commits, log included
        with pytest.raises(TriageError):
            helper.start_session("bo")                # it cannot write
    label_top(desk, "bo", 2)                          # the desk goes on writing
    with open_for_reading(path) as helper:
        assert helper.snapshot().events == 7
    assert sorted(os.listdir(tmp_path)) == before     # no file left or removed
    assert disagreements_at(path) == []
    desk.close()


def test_without_the_desk_the_file_is_opened_and_checked_as_usual(tmp_path):
    project = make_project(tmp_path)
    project.close()                                   # no log beside it now
    path = tmp_path / "p.triage"
    with open_for_reading(path) as helper:
        assert helper.snapshot().events == 0
    assert not (tmp_path / "p.triage-wal").exists()   # closed as the desk closes it
