"""Several desks (processes) labeling one project file at once.

Each child opens the project, starts a session and loops ``next_candidate`` /
``record_label`` until it has made its labels, printing every acknowledged
(label id, candidate id). Afterwards every acknowledged label must be in the file, the
file must pass SQLite's integrity check, and no candidate may carry labels from more
annotators than planned: one, or ``labels_per_overlap_item`` for overlap-plan items.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from tests.helpers import make_project

ROOT = Path(__file__).resolve().parent.parent
DESKS, LABELS, POOL = 4, 500, 5000

CHILD = r"""
import os, sys, time
from triage.base.errors import BusyError
from triage.project import open_project

path, name, count, go = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
while not os.path.exists(go):          # start together, after the imports
    time.sleep(0.01)

def retry(action):
    while True:
        try:
            return action()
        except BusyError:              # nothing was written: safe to try again
            time.sleep(0.005)

with open_project(path) as project:
    session = retry(lambda: project.start_session(name))
    made = 0
    while made < count:
        item = retry(lambda: project.next_candidate(session))
        if item is None:
            break
        value = "idiom" if item.candidate_id % 3 == 0 else "literal"
        label_id = retry(lambda: project.record_label(session, item.candidate_id, value))
        print(label_id, item.candidate_id, flush=True)
        made += 1
"""


def run_desks(path: Path, tmp_path: Path) -> dict[str, list[tuple[int, int]]]:
    """Run DESKS child processes to completion; their acknowledged (label id, candidate id)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    go = tmp_path / "go"
    children = {
        f"desk{i}": subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), f"desk{i}", str(LABELS), str(go)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for i in range(DESKS)
    }
    time.sleep(0.5)
    go.touch()
    acks = {}
    for name, child in children.items():
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, f"{name} failed:\n{err}"
        acks[name] = [tuple(map(int, line.split())) for line in out.splitlines()]
    return acks


def annotators_by_candidate(conn: sqlite3.Connection) -> dict[int, set[str]]:
    out: dict[int, set[str]] = defaultdict(set)
    for cid, name in conn.execute(
            "SELECT l.candidate_id, a.name FROM labels l JOIN annotators a "
            "ON a.id = l.annotator_id WHERE l.undone_at IS NULL"):
        out[cid].add(name)
    return out


def check_common(path: Path, acks: dict[str, list[tuple[int, int]]]) -> sqlite3.Connection:
    """Every acknowledged label is in the file, as acknowledged; the file is sound."""
    assert {name: len(a) for name, a in acks.items()} == {f"desk{i}": LABELS
                                                          for i in range(DESKS)}
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    stored = {lid: (cid, name) for lid, cid, name in conn.execute(
        "SELECT l.id, l.candidate_id, a.name FROM labels l JOIN annotators a "
        "ON a.id = l.annotator_id")}
    for name, pairs in acks.items():
        for label_id, cid in pairs:
            assert stored.get(label_id) == (cid, name)
    assert len(stored) == DESKS * LABELS
    # Nobody labels the same candidate twice.
    twice = conn.execute(
        "SELECT count(*) FROM (SELECT 1 FROM labels WHERE undone_at IS NULL "
        "GROUP BY candidate_id, annotator_id HAVING count(*) > 1)").fetchone()[0]
    assert twice == 0
    return conn


@pytest.fixture
def pool(tmp_path):
    project = make_project(tmp_path, n=POOL, overlap_rate=0.0)
    yield project
    project.close()


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_four_desks_never_get_the_same_candidate(pool, tmp_path):
    pool.close()
    acks = run_desks(pool.path, tmp_path)
    conn = check_common(pool.path, acks)
    try:
        doubles = {cid: names for cid, names in annotators_by_candidate(conn).items()
                   if len(names) > 1}
        assert doubles == {}, f"{len(doubles)} candidates labeled by two desks"
        assert conn.execute("SELECT count(*) FROM plan").fetchone()[0] == 0
    finally:
        conn.close()


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_overlap_items_get_exactly_their_planned_second_label(pool, tmp_path):
    pool.update_settings(overlap_rate=0.2, labels_per_overlap_item=2)
    pool.close()
    acks = run_desks(pool.path, tmp_path)
    conn = check_common(pool.path, acks)
    try:
        plan = {r[0] for r in conn.execute("SELECT candidate_id FROM plan WHERE kind = 'overlap'")}
        assert len(plan) == POOL // 5
        by_candidate = annotators_by_candidate(conn)
        doubles = {cid for cid, names in by_candidate.items() if len(names) > 1}
        assert doubles <= plan, f"{len(doubles - plan)} unplanned double labels"
        assert max(len(names) for names in by_candidate.values()) == 2
        # Overlap really happened (desks prefer an open overlap item to a fresh one), and
        # every second label was served, and recorded, as an overlap label.
        assert len(doubles) > 100
        kinds = dict(conn.execute("SELECT kind, count(*) FROM labels GROUP BY kind").fetchall())
        assert kinds.get("overlap", 0) == len(doubles)
    finally:
        conn.close()
