"""A desk killed with SIGKILL loses no acknowledged label and leaves a sound file."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import make_project

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys
from triage.project import open_project
project = open_project(sys.argv[1])
session = project.start_session(sys.argv[2])
while True:
    item = project.next_candidate(session)
    if item is None:
        break
    label_id = project.record_label(session, item.candidate_id,
                                    "idiom" if item.rank % 2 else "literal", seconds=0.1)
    print(label_id, item.candidate_id, flush=True)   # acknowledged only after the commit
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_sigkill_loses_no_acknowledged_label(tmp_path):
    make_project(tmp_path, n=5000).close()
    path = tmp_path / "p.triage"
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(path), "ada"],
                             stdout=subprocess.PIPE, text=True, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    acknowledged: list[tuple[int, int]] = []
    deadline = time.monotonic() + 60
    while len(acknowledged) < 150 and time.monotonic() < deadline:
        line = child.stdout.readline()
        if not line:
            break
        label_id, candidate_id = map(int, line.split())
        acknowledged.append((label_id, candidate_id))
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=10)
    # Whatever was printed after we stopped reading was acknowledged too.
    for line in child.stdout.read().splitlines():
        if line.strip():
            acknowledged.append(tuple(map(int, line.split())))
    assert len(acknowledged) >= 150, "the child did not label fast enough"

    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = set(conn.execute("SELECT id, candidate_id FROM labels").fetchall())
    finally:
        conn.close()
    missing = [a for a in acknowledged if a not in stored]
    assert missing == []
    # No candidate was labeled twice by the single desk.
    assert len({c for _, c in stored}) == len(stored)
