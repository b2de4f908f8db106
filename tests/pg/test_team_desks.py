"""Desks as separate processes on one server: nothing lost, nothing served twice.

Each desk is ``tests.pg.desk_worker`` in its own Python process, labelling through the
same Project API the desk uses, as its own login role.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from tests.pg.team_setup import publish
from triage.project import open_project

ROOT = Path(__file__).resolve().parents[2]
LEASE_S = 8  # long enough that a loaded machine still reaches the first check inside it


def _desk(url: str, role: str, count: int, cache: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ, TRIAGE_CACHE_DIR=str(cache))
    return subprocess.Popen([sys.executable, "-m", "tests.pg.desk_worker", url, role,
                             str(count), *extra], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _acks(text: str) -> list[tuple[int, int]]:
    return [(int(p[1]), int(p[2])) for p in (line.split() for line in text.splitlines())
            if p and p[0] == "ACK"]


def _server_labels(pg, schema: str) -> list[tuple[int, int, str]]:
    with pg.connect() as conn:
        return conn.execute(
            f"SELECT l.id, l.candidate_id, a.name FROM {schema}.labels l "
            f"JOIN {schema}.annotators a ON a.id = l.annotator_id "
            "WHERE l.undone_at IS NULL").fetchall()


def check_team_run(pg, schema: str, desks, outputs, expected: int):
    """The invariants of desks labelling at once: every desk finished, every acknowledged
    label is on the server and nothing else, no candidate served twice outside the overlap
    plan nor more than planned, never twice to one annotator. Returns (plan, per candidate).
    """
    for desk, (out, err) in zip(desks, outputs):
        assert desk.returncode == 0, err[-3000:]
        assert out.rstrip().endswith("DONE")
    acked = [ack for out, _err in outputs for ack in _acks(out)]
    assert len(acked) == expected
    rows = _server_labels(pg, schema)
    by_id = {lid: cid for lid, cid, _who in rows}
    assert all(by_id.get(lid) == cid for lid, cid in acked)   # 0 lost
    assert len(rows) == expected                               # nothing extra either
    with pg.connect() as conn:
        plan = {r[0] for r in conn.execute(f"SELECT candidate_id FROM {schema}.plan")}
    per_candidate = Counter(cid for _lid, cid, _who in rows)
    who = defaultdict(list)
    for _lid, cid, name in rows:
        who[cid].append(name)
    assert [c for c, n in per_candidate.items() if n > 1 and c not in plan] == []
    assert max(per_candidate[c] for c in plan) <= 2              # no more than planned
    assert all(len(set(names)) == len(names) for names in who.values())  # blind: new eyes
    return plan, per_candidate


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_eight_desks_thousand_labels_each(pg, pg_url, project_name, tmp_path):
    roles = tuple(f"desk{i}" for i in range(1, 9))
    publish(pg, pg_url(), tmp_path, n=20_000, annotators=roles, overlap_rate=0.1,
            lease_seconds=LEASE_S, labels_per_overlap_item=2, audit_rate=0.0, retest_rate=0.0)
    schema = f"triage_{project_name}"
    start = time.monotonic()
    desks = [_desk(pg_url(role), role, 1000, tmp_path / "cache") for role in roles]
    outputs = [desk.communicate(timeout=800) for desk in desks]
    elapsed = time.monotonic() - start
    plan, per_candidate = check_team_run(pg, schema, desks, outputs, 8000)
    doubled = [c for c in plan if per_candidate[c] == 2]
    open_items = [c for c in plan if per_candidate[c] == 1]
    assert len(doubled) > 300
    # An overlap item waits for its second label only while a desk has it on screen.
    assert len(open_items) <= 16
    busy = sum(out.count("BUSY") for out, _err in outputs)
    print(f"8 desks x 1000 labels: {elapsed:.1f} s; times every candidate tried was taken (busy, retried): {busy}")


@pytest.mark.slow
def test_killed_desk_loses_nothing_and_its_lease_expires(pg, pg_url, project_name, tmp_path,
                                                         monkeypatch):
    publish(pg, pg_url(), tmp_path, n=200, annotators=("victim", "other"), overlap_rate=0.0,
            lease_seconds=LEASE_S, audit_rate=0.0, retest_rate=0.0)
    schema = f"triage_{project_name}"
    desk = _desk(pg_url("victim"), "victim", 100, tmp_path / "cache", "--hold-after", "30")
    acked, held = [], None
    assert desk.stdout is not None
    for line in desk.stdout:
        if line.startswith("ACK"):
            acked.extend(_acks(line))
        if line.startswith("HOLD"):
            held = int(line.split()[1])
            break
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    project = open_project(pg_url("other"))
    session = project.start_session("other")
    os.kill(desk.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    desk.wait(timeout=30)
    assert held is not None and len(acked) == 30
    on_server = {(lid, cid) for lid, cid, _who in _server_labels(pg, schema)}
    assert set(acked) <= on_server   # every acknowledged label survived the kill

    first = project.next_candidate(session)
    assert time.monotonic() - killed_at < LEASE_S   # (else the check below proves nothing)
    assert first.candidate_id != held               # the dead desk's lease still holds it
    project.record_label(session, first.candidate_id, "idiom")
    time.sleep(max(0.0, LEASE_S + 0.5 - (time.monotonic() - killed_at)))
    served = []
    for _ in range(3):
        item = project.next_candidate(session)
        served.append(item.candidate_id)
        project.record_label(session, item.candidate_id, "literal")
    assert held in served
    project.close()
