"""``triage new`` killed (SIGKILL) at random points can always be run again to completion.

Issue 27, finding 5: a killed import left a hot journal, the file was refused as "not a
Triage project", and rerunning the same command said the file "already exists".
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


def _kill_new_at(project, pool, seconds: float) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, "-m", "triage.cli", "new", str(project), str(pool),
                              *NEW_ARGS], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    time.sleep(seconds)
    child.send_signal(signal.SIGKILL)
    child.wait()


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
    for when in (0.9, 1.3):  # after start-up, inside the import on this machine
        _kill_new_at(project, pool, when)
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
