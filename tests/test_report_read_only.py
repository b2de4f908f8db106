"""A report only reads: it works on a project nobody may write, and writes nothing to it.

The folder is made read-only the way a user meets it: a read-only bind mount when we are
root (``chmod`` does not stop root), else ``chmod``. The project is small enough that its
overlap plan is empty, which made every opening draw the plan again and store it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from tests.helpers import label_top, make_project, mounted
from tests.test_cli_core import triage
from triage.project import open_project


@contextlib.contextmanager
def read_only_view(folder: Path, where: Path):
    """``folder`` seen read-only at ``where`` (a bind mount as root, else chmod)."""
    if os.geteuid() != 0:
        os.chmod(folder, 0o555)
        try:
            yield folder
        finally:
            os.chmod(folder, 0o755)
        return
    with mounted(where, ["--bind", "-o", "ro", str(folder)], "make a read-only bind mount"):
        yield where


def stored_plan(path: Path) -> int:
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return conn.execute("SELECT count(*) FROM plan WHERE kind = 'overlap'").fetchone()[0]


@pytest.mark.slow
def test_report_of_a_read_only_project_works_and_writes_nothing(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    project = make_project(src)        # 30 candidates: a tenth of a decile of 3 is none
    label_top(project, "ada", 6)
    project.close()
    (src / "pool.csv").unlink()
    before = hashlib.sha256((src / "p.triage").read_bytes()).hexdigest()
    files = sorted(p.name for p in src.iterdir())   # the project and the backup its labels made
    assert "p.triage" in files
    with read_only_view(src, tmp_path / "ro") as folder:
        here = folder / "p.triage"
        out = triage("report", here, "-o", tmp_path / "r.html", "--bootstrap", "0")
        assert out.returncode == 0, out.stderr
        assert "wrote the report" in out.stdout
        assert (tmp_path / "r.html").stat().st_size > 0
        data = triage("report", here, "--json", "--bootstrap", "0")
        assert data.returncode == 0, data.stderr
        assert sorted(p.name for p in folder.iterdir()) == files   # no -wal, -shm or backup
    assert hashlib.sha256((src / "p.triage").read_bytes()).hexdigest() == before


def test_opening_draws_the_missing_plan_without_storing_it_serving_stores_it(tmp_path):
    project = make_project(tmp_path, n=300)
    plan = project.dispatcher.overlap_items()
    assert len(plan) == 30
    project.close()
    path = tmp_path / "p.triage"
    with contextlib.closing(sqlite3.connect(path)) as conn, conn:
        conn.execute("DELETE FROM plan WHERE kind = 'overlap'")   # as a file made without one
    with open_project(path) as reader:
        assert reader.dispatcher.overlap_items() == plan          # drawn the same way
        reader.snapshot()
    assert stored_plan(path) == 0                                 # a read wrote nothing
    with open_project(path) as desk:
        label_top(desk, "ada", 1)
    assert stored_plan(path) == 30                                # the desk stored it
