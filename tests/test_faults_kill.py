"""``triage new`` killed (SIGKILL) at random points can always be run again to completion.

Once a killed import left a hot journal, the file was refused as "not a Triage project",
and rerunning the same command said the file "already exists".
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from tests.helpers import pool_rows, write_pool
from tests.test_cli_core import ROOT, triage
from tests.test_faults_cli import NEW_ARGS


def _start_new(project, pool) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "triage.cli", "new", str(project), str(pool),
                             *NEW_ARGS], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _kill_new_at(project, pool, seconds: float) -> None:
    """Kill ``triage new`` after ``seconds`` (any moment will do: random points)."""
    child = _start_new(project, pool)
    time.sleep(seconds)
    child.send_signal(signal.SIGKILL)
    child.wait()


def _kill_new_when(project, pool, ready) -> None:
    """Kill ``triage new`` as soon as ``ready()`` holds (or let it end if it never does)."""
    child = _start_new(project, pool)
    while child.poll() is None and not ready():
        time.sleep(0.002)
    child.send_signal(signal.SIGKILL)
    child.wait()


def _created(project) -> bool:
    """The project file exists: start-up is over, the import begins."""
    return project.exists()


def _importing(project) -> bool:
    """Rows are being written: a rollback journal or write-ahead log with something in it."""
    for log in ("-journal", "-wal"):
        try:
            if os.stat(f"{project}{log}").st_size > 0:
                return True
        except OSError:
            continue
    return False


def _rerun_completes(project, pool, rows: int) -> None:
    again = triage("new", project, pool, *NEW_ARGS)
    assert "Traceback" not in again.stderr
    if again.returncode != 0:  # the kill came after the import had committed
        assert "already exists" in again.stderr, again.stderr
    status = triage("status", project, "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["pool"] == rows, (again.returncode, again.stderr)


@pytest.mark.slow
def test_a_killed_new_is_replaced_when_run_again(tmp_path):
    rows = 20_000
    pool = write_pool(tmp_path / "pool.csv", pool_rows(rows))
    project = tmp_path / "p.triage"
    for ready in (_created, _importing):   # as the import begins, and while it writes
        _kill_new_when(project, pool, lambda ready=ready: ready(project))
        _rerun_completes(project, pool, rows)
        for leftover in ("", "-wal", "-shm", "-journal"):
            (tmp_path / f"p.triage{leftover}").unlink(missing_ok=True)


@pytest.mark.slow
def test_new_killed_at_twenty_random_points_reruns_to_completion(tmp_path):
    rows = 60_000
    pool = write_pool(tmp_path / "pool.csv", pool_rows(rows))
    rng = random.Random(27)
    started = time.perf_counter()
    assert triage("new", tmp_path / "timing.triage", pool, *NEW_ARGS).returncode == 0
    whole = time.perf_counter() - started
    for i in range(20):
        project = tmp_path / f"p{i}.triage"
        _kill_new_at(project, pool, rng.uniform(0.05, whole))
        _rerun_completes(project, pool, rows)
