"""A wall clock that jumps: the order of decisions and claims comes from the log, not the clock.

A change of mind made under a clock stepped back 3 h was outvoted by
the older decision (final label by ``created_at``), and a desk one hour ahead found another
desk's claim expired and served the same candidate.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

import triage.serving.dispatcher as serving
import triage.store.records as records
from tests.helpers import make_project
from triage.project import open_project
from triage.project.export import export_rows
from triage.project.final import final_labels
from triage.project.history import change_decision, recent_decisions
from triage.store.records import active_labels

STEPS = [pytest.param(-3, id="minus-3h"), pytest.param(3, id="plus-3h")]


def _step_label_clock(monkeypatch, hours: int) -> None:
    def shifted() -> str:
        when = dt.datetime.now(dt.UTC) + dt.timedelta(hours=hours)
        return when.isoformat(timespec="microseconds")
    monkeypatch.setattr(records, "now_iso", shifted)


def _finals(project) -> dict[str, str | None]:
    keys = {r["key"]: r["label"] for r in export_rows(project)}
    return {k: v for k, v in keys.items() if v is not None}


@pytest.mark.parametrize("hours", STEPS)
def test_a_change_of_mind_under_a_stepped_clock_is_the_final_label(tmp_path, monkeypatch, hours):
    project = make_project(tmp_path, n=20)
    ada = project.start_session("ada")
    if hours > 0:  # the first decisions are the ones made "in the future"
        _step_label_clock(monkeypatch, hours)
    for _ in range(10):
        c = project.next_candidate(ada)
        project.record_label(ada, c.candidate_id, "idiom")
    monkeypatch.undo()
    if hours < 0:  # the changes are made with the clock stepped back
        _step_label_clock(monkeypatch, hours)
    decisions = recent_decisions(project, ada)
    changed = {d.key for d in decisions[:5]}
    for d in decisions[:5]:
        change_decision(project, ada, d, "literal")
    finals = _finals(project)
    assert len(finals) == 10
    assert {k for k, v in finals.items() if v == "literal"} == changed
    assert sum(v == "idiom" for v in finals.values()) == 5
    # The history, the export and the live numbers tell the same story.
    assert {d.key: d.value for d in recent_decisions(project, ada)} == finals
    final = final_labels(active_labels(project.db))
    assert sum(f.value == "literal" for f in final.values()) == 5
    assert project.snapshot().positives_found == 5
    # Undo takes back the last change made (the log's last event), whatever its time.
    last = recent_decisions(project, ada)[0]
    assert project.undo(ada) == last.candidate_id
    project.close()


@pytest.mark.parametrize("hours", STEPS)
def test_a_desk_with_a_stepped_clock_never_takes_a_live_claim(tmp_path, monkeypatch, hours):
    make_project(tmp_path, n=30).close()
    desk1, desk2 = open_project(tmp_path / "p.triage"), open_project(tmp_path / "p.triage")
    ada, bob = desk1.start_session("ada"), desk2.start_session("bob")
    real = time.time
    if hours < 0:  # the first desk's clock is behind: its claim looks long expired
        monkeypatch.setattr(serving.time, "time", lambda: real() + hours * 3600)
    a = desk1.next_candidate(ada)
    monkeypatch.undo()
    if hours > 0:  # the second desk's clock is ahead: every claim looks expired to it
        monkeypatch.setattr(serving.time, "time", lambda: real() + hours * 3600)
    served = {desk2.next_candidate(bob).candidate_id for _ in range(3)}
    carol = desk2.start_session("carol")
    served.add(desk2.next_candidate(carol).candidate_id)
    assert a.candidate_id not in served
    desk1.close()
    desk2.close()


def test_a_claim_expires_after_the_watcher_has_seen_it_for_the_hold_time(tmp_path, monkeypatch):
    make_project(tmp_path, n=30).close()
    desk1, desk2 = open_project(tmp_path / "p.triage"), open_project(tmp_path / "p.triage")
    ada, bob = desk1.start_session("ada"), desk2.start_session("bob")
    a = desk1.next_candidate(ada)
    b = desk2.next_candidate(bob)  # desk 2 sees desk 1's claim now
    real = time.monotonic
    # Wall clocks jumping either way change nothing; only time seen passing does.
    monkeypatch.setattr(serving.time, "time", lambda: real() + 86400)
    monkeypatch.setattr(serving.time, "monotonic", lambda: real() + serving.CLAIM_SECONDS / 2)
    carol = desk2.start_session("carol")
    assert desk2.next_candidate(carol).candidate_id not in (a.candidate_id, b.candidate_id)
    monkeypatch.setattr(serving.time, "monotonic", lambda: real() + serving.CLAIM_SECONDS + 1)
    dan = desk2.start_session("dan")
    assert desk2.next_candidate(dan).candidate_id == a.candidate_id
    desk1.close()
    desk2.close()


_DESK = textwrap.dedent("""
    import sys, time
    from triage.project import open_project
    project = open_project(sys.argv[1])
    session = project.start_session(sys.argv[2])
    print(project.next_candidate(session).candidate_id, time.time(), flush=True)
    sys.stdin.readline()  # hold the claim (the desk stays open) until told to go
""")


@pytest.mark.slow
@pytest.mark.parametrize("first, second", [("-3h", ""), ("", "+1h"), ("", "+3h")])
def test_faketime_two_processes_hours_apart_never_share_a_candidate(tmp_path, first, second):
    faketime = shutil.which("faketime")
    if faketime is None:
        pytest.skip("faketime is not installed (apt-get install faketime); the injected-clock "
                    "tests above cover the same ground")
    make_project(tmp_path, n=30).close()
    path = str(tmp_path / "p.triage")
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    def desk(offset: str, name: str) -> list[str]:
        clock = [faketime, "-f", offset] if offset else []
        return [*clock, sys.executable, "-c", _DESK, path, name]

    one = subprocess.Popen(desk(first, "ada"), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           text=True, env=env)
    try:
        assert one.stdout is not None
        claimed, stamp = one.stdout.readline().split()
        two = subprocess.run(desk(second, "bob"), input="\n", capture_output=True, text=True,
                             env=env, timeout=120)
        assert two.returncode == 0, two.stderr
        served, stamp2 = two.stdout.split()
        assert abs(float(stamp) - float(stamp2)) > 1800  # faketime did step one clock
        assert served != claimed
    finally:
        one.communicate("\n", timeout=60)


def test_history_times_are_local_and_say_so(monkeypatch):
    from triage.views.reading import HISTORY_TIME_HEADING, local_clock

    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+05:30, no daylight saving
    time.tzset()
    try:
        assert local_clock("2026-03-01T12:00:00.000001+00:00") == "17:30"
        assert local_clock("not a time") == "not a time"
        assert "local" in HISTORY_TIME_HEADING
    finally:
        monkeypatch.undo()
        time.tzset()
