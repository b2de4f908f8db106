"""Every project that labels keeps ``FILE.backup``; ``triage backup`` copies a project safely."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

import pytest

from tests.helpers import label_top, make_project
from triage.cli.program import main
from triage.project import open_project
from triage.store import backups


def _labels(path: Path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM labels").fetchone()[0]
    finally:
        conn.close()


def test_labelling_through_the_python_api_leaves_a_backup_holding_the_labels(tmp_path):
    project = make_project(tmp_path)
    label_top(project, "ann", 5)
    project.close()
    backup = tmp_path / "p.triage.backup"
    assert _labels(backup) == 5
    assert not list(tmp_path.glob("*.partial"))


def test_a_project_only_read_or_imported_makes_no_backup(tmp_path):
    make_project(tmp_path).close()
    open_project(tmp_path / "p.triage").close()
    assert not (tmp_path / "p.triage.backup").exists()


def test_a_writer_labelling_for_days_refreshes_a_backup_older_than_a_day(tmp_path, monkeypatch):
    project = make_project(tmp_path)
    now = [0.0]
    project.backups = backups.RollingBackup(project.db, clock=lambda: now[0])
    label_top(project, "ann", 2)
    backup = tmp_path / "p.triage.backup"
    assert not backup.exists()            # the first look waits a minute
    now[0] += 61
    label_top(project, "ann", 1)
    assert _labels(backup) == 3           # none yet: made at once
    now[0] += 61
    label_top(project, "ann", 1)
    assert _labels(backup) == 3           # looked at again only every few minutes
    day_old = time.time() - backups.REFRESH_AFTER_S - 10
    os.utime(backup, (day_old, day_old))
    now[0] += backups.LOOK_EVERY_S
    label_top(project, "ann", 1)
    assert _labels(backup) == 5           # a day old: refreshed
    project.close()


def test_triage_backup_copies_an_open_project_with_its_latest_labels(tmp_path, capsys):
    project = make_project(tmp_path)
    label_top(project, "ann", 4)          # still open: the labels are in its -wal
    dest = tmp_path / "copy.triage"
    assert main(["backup", str(project.path), str(dest)]) == 0
    assert "copy.triage" in capsys.readouterr().out
    assert _labels(dest) == 4
    assert main(["backup", str(project.path), str(dest)]) == 2   # never replaces a file
    assert "already exists" in capsys.readouterr().err
    assert main(["backup", str(project.path)]) == 0              # default: FILE.backup
    assert _labels(tmp_path / "p.triage.backup") == 4
    project.close()


def test_triage_backup_refuses_to_copy_a_damaged_project(tmp_path, capsys):
    from tests.test_faults_cli import corrupt_a_candidates_page

    project = make_project(tmp_path, 400)
    project.close()
    corrupt_a_candidates_page(tmp_path / "p.triage")
    assert main(["backup", str(tmp_path / "p.triage"), str(tmp_path / "c.triage")]) == 2
    assert "damaged" in capsys.readouterr().err
    assert not (tmp_path / "c.triage").exists()


@pytest.mark.parametrize("where", ["project", "wal"])
def test_triage_backup_never_writes_over_the_project(tmp_path, capsys, where):
    project = make_project(tmp_path)
    project.close()
    dest = tmp_path / ("p.triage" if where == "project" else "p.triage-wal")
    assert main(["backup", str(tmp_path / "p.triage"), str(dest)]) == 2
    assert "project itself" in capsys.readouterr().err
