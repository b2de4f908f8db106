"""The report on two cores: a forked child computes the models' section, the parent the rest.

Whatever the child does (delivers, raises, dies), the report's data is the data the one
process computes alone. Each case runs in a fresh interpreter (one thread, so it may fork).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.test_cli_core import ROOT, triage
from triage.project import open_project
from triage.project.demo import create_demo, simulate
from triage.views.report import build_report_data


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("side") / "demo.triage"
    project = create_demo(path)
    simulate(project, 200)
    simulate(project, 40, annotator="bea")
    project.close()
    return path


def _run(script: str) -> str:
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                         text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT),
                                                    "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.mark.parametrize(("work", "expected"), [
    ("lambda project: {'pool': project.pool}", "{'pool': 1500}"),
    ("lambda project: 1 / 0", "None"),                 # an error: the parent computes it
    ("lambda project: __import__('os')._exit(3)", "None"),   # a crash: the same
])
def test_the_child_delivers_its_result_or_none(demo, work, expected):
    got = _run(f"""
        import threading
        from triage.project import open_project
        from triage.views.report.side import can_fork, start_side
        assert can_fork() and threading.active_count() == 1
        side = start_side({str(demo)!r}, {work})
        assert side is not None
        with open_project({str(demo)!r}):
            side.go()
            print(side.result())
    """)
    assert got == expected


@pytest.mark.parametrize(("first", "work", "expected"), [
    # a first part bigger than a pipe holds: the child computes on while it waits to be read
    ("lambda project: {'curve': bytes(1 << 21)}", "lambda project: {'pool': project.pool}",
     "2097152 {'pool': 1500}"),
    ("lambda project: 1 / 0", "lambda project: {'pool': project.pool}", "None None"),
    ("lambda project: {'curve': b'x'}", "lambda project: 1 / 0", "1 None"),
])
def test_the_first_part_comes_at_once_and_failures_leave_none(demo, first, work, expected):
    got = _run(f"""
        from triage.project import open_project
        from triage.views.report.side import start_side
        side = start_side({str(demo)!r}, {work}, first={first})
        with open_project({str(demo)!r}):
            side.go()
            early = side.first()
            print(None if early is None else len(early["curve"]), side.result())
        assert side.first() == early   # asked again: the same
    """)
    assert got == expected


def test_asking_for_the_first_part_of_a_child_never_told_to_start_does_not_hang(demo):
    got = _run(f"""
        from triage.views.report.side import start_side
        side = start_side({str(demo)!r}, lambda project: 1, first=lambda project: {{}})
        print(side.first(), side.result())
    """)
    assert got == "None None"


def test_a_child_never_told_to_start_exits_and_is_reaped(demo):
    got = _run(f"""
        import os
        from triage.views.report.side import start_side
        side = start_side({str(demo)!r}, lambda project: 1)
        side.close()            # e.g. the project could not be opened, or a cancel
        try:
            os.waitpid(side.pid, os.WNOHANG)
        except ChildProcessError:
            print("reaped")
    """)
    assert got == "reaped"


def test_no_fork_beside_other_threads():
    got = _run("""
        import threading, time
        from triage.views.report.side import can_fork, start_side
        threading.Thread(target=time.sleep, args=(1,), daemon=True).start()
        print(can_fork(), start_side("unused.triage", lambda project: 1))
    """)
    assert got == "False None"


def test_the_command_line_report_forks_with_the_collector_paused_then_restored(demo, tmp_path):
    # A thread started before the fork (the start-up policy once warmed scipy.special on
    # one for every statistics command) kept the report on one core.
    got = _run(f"""
        import gc
        import triage.views.report.side as side
        start, seen = side.start_side, []
        def recording(*args, **kwargs):
            made = start(*args, **kwargs)
            seen.append((made is not None, gc.isenabled()))
            return made
        side.start_side = recording
        from triage.cli.program import main
        code = main(["report", {str(demo)!r}, "-o", {str(tmp_path / "r.html")!r},
                     "--bootstrap", "20"])
        print(code, seen, gc.isenabled())
    """)
    assert got.splitlines()[-1] == "0 [(True, False)] True"
    assert "Triage report" in (tmp_path / "r.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_report_from_two_processes_is_the_report_from_one(demo):
    out = triage("report", demo, "--json", "--bootstrap", "50")   # forks: one thread
    assert out.returncode == 0, out.stderr
    with open_project(demo) as project:
        alone = json.loads(json.dumps(build_report_data(project, bootstrap=50)))
    forked = json.loads(out.stdout)
    for data in (forked, alone):
        data.pop("generated_at")
    assert forked["models"]["view"]["reliability"]   # the child's part is there
    assert forked == alone


def test_the_child_reads_each_ranking_once_and_shares_it_read_only(demo, monkeypatch):
    """After keep_rankings (the report's child) a ranking is read once; elsewhere each time."""
    import numpy as np

    from triage import store
    from triage.project import kept_rankings

    calls: list[int] = []
    real = store.ranking
    monkeypatch.setattr(store, "ranking", lambda db, mid: calls.append(mid) or real(db, mid))
    project = open_project(demo)
    try:
        model = project.models[0]
        first = kept_rankings.ranking(project.db, model.id)
        kept_rankings.ranking(project.db, model.id)
        assert len(calls) == 2   # nothing kept: each call reads the file
        kept_rankings.keep_rankings(project.db)
        kept = kept_rankings.ranking(project.db, model.id)
        assert kept_rankings.ranking(project.db, model.id) is kept
        assert kept_rankings.rank_order(project.db, model.id) is kept[0]
        assert len(calls) == 3
        assert np.array_equal(kept[0], first[0]) and np.array_equal(kept[1], first[1])
        with pytest.raises(ValueError):
            kept[0][0] = 0   # shared: read-only
    finally:
        project.close()
