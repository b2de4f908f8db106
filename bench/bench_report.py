"""Time ``triage report`` (HTML and PDF) on a 1,000,000-candidate project with 10,000 labels.

    python -m bench.bench_report [--work DIR] [--rows 1000000] [--labels 10000] [--repeat 3]
    python -m bench.bench_report --work DIR --profile   # where the time goes, both processes

The pool is generated with gold labels (``bench/_generate.py``) and labelled by two
annotators taking turns, as ``bench/bench_e2e.py`` does, once per ``--work`` folder. Then
each report (HTML, PDF, both from one computation) runs as a whole process (start-up and
imports count), twice per repetition, side by side: as ``triage report`` runs it (the
models' section in a forked second process, see ``triage/views/report/side.py``) and in
one process (an idle thread started first, so the report does not fork: what the desk's
"Export report..." does). Printed per run: wall seconds, CPU seconds of the process and
its child, and, for the forked run, the critical path in CPU seconds: the parent's CPU
until it waits for the child or the fork plus the child's CPU, whichever ends later, plus
the parent's CPU after it. On a quiet machine with two free cores that is the wall time;
on a loaded one compare it with the one-process CPU.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def build(work: Path, rows: int, labels: int) -> Path:
    """The labelled project (made once, then reused)."""
    from bench._generate import generate
    from bench.bench_e2e import MAPPING, label_project
    from triage.cli.program import main as cli

    work.mkdir(parents=True, exist_ok=True)
    pool, project = work / f"pool-{rows}.csv", work / f"report-{rows}-{labels}.triage"
    if not pool.exists():
        generate(pool, rows, gold=True)
    if not project.exists():
        scratch = work / "building.triage"
        scratch.unlink(missing_ok=True)
        if cli(["new", str(scratch), str(pool), *MAPPING]) != 0:
            raise SystemExit("import failed")
        label_project(scratch, labels)
        scratch.rename(project)
    return project


# Run inside the timed process: the report as the command line runs it, with the moments
# the parent forks, starts waiting and resumes (CPU seconds) printed last on stderr.
_RUNNER = """
import os, sys, threading, time
one = sys.argv[1] == "one"
if one:   # a second thread: the report then computes everything in this process
    threading.Thread(target=threading.Event().wait, daemon=True).start()
import triage.views.report.side as side
marks = {}
start, result = side.start_side, side.Side.result
def timed_start(*a, **k):
    marks["fork"] = time.process_time()
    return start(*a, **k)
def timed_result(self):
    marks["wait"] = time.process_time()
    try:
        return result(self)
    finally:
        marks["resume"] = time.process_time()
side.start_side, side.Side.result = timed_start, timed_result
from triage.cli.program import main
code = main(["report", *sys.argv[2:]])
t = os.times()
own, child = t.user + t.system, t.children_user + t.children_system
crit = own
if "wait" in marks:
    crit = max(marks["wait"], marks["fork"] + child) + own - marks["resume"]
print(f"CPU {own + child:.2f} critical {crit:.2f}", file=sys.stderr)
sys.exit(code)
"""


# Run inside a profiled process: cProfile in the parent and, through side._child, in the
# forked child (which ends with os._exit, so its profile is written just before).
_PROFILED = """
import cProfile, os, sys
import triage.views.report.side as side
out, child_run = sys.argv[1], side._child
def profiled_child(*args):
    profile, leave = cProfile.Profile(), os._exit
    def written(code):
        profile.disable()
        profile.dump_stats(out + "-child.prof")
        leave(code)
    os._exit = written
    profile.enable()
    child_run(*args)
side._child = profiled_child
from triage.cli.program import main
profile = cProfile.Profile()
profile.enable()
code = main(["report", *sys.argv[2:]])
profile.disable()
profile.dump_stats(out + "-parent.prof")
sys.exit(code)
"""


def profiled(project: Path, outs: list[Path], stem: Path) -> None:
    """Profile one whole report: ``stem``-parent.prof and ``stem``-child.prof (pstats)."""
    import pstats
    import subprocess

    args = [sys.executable, "-c", _PROFILED, str(stem), str(project)]
    for out in outs:
        args += ["-o", str(out)]
    done = subprocess.run(args, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    for side in ("parent", "child"):
        path = Path(f"{stem}-{side}.prof")
        if path.exists():
            print(f"--- {path} (cumulative seconds, waits included)")
            pstats.Stats(str(path)).sort_stats("cumulative").print_stats(25)


def timed(project: Path, outs: list[Path], mode: str) -> tuple[float, float, float]:
    """(wall, CPU, critical-path CPU) seconds of one whole ``triage report`` process."""
    import subprocess

    args = [sys.executable, "-c", _RUNNER, mode, str(project)]
    for out in outs:
        args += ["-o", str(out)]
    wall = time.perf_counter()
    done = subprocess.run(args, capture_output=True, text=True)
    wall = time.perf_counter() - wall
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    words = done.stderr.strip().splitlines()[-1].split()
    return wall, float(words[1]), float(words[3])


def main() -> int:
    """Build (or reuse) the project, then time the reports in one and in two processes."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path,
                        default=Path(tempfile.gettempdir()) / "triage-bench")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--profile", action="store_true",
                        help="profile one HTML and one PDF report instead (parent and child, "
                             "cProfile files in --work)")
    args = parser.parse_args()
    project = build(args.work, args.rows, args.labels)
    if args.profile:
        for suffix in ("html", "pdf"):
            profiled(project, [args.work / f"report.{suffix}"], args.work / f"profile-{suffix}")
        return 0
    import os

    for rep in range(args.repeat):
        for suffixes in (("html",), ("pdf",), ("html", "pdf")):
            outs = [args.work / f"report.{suffix}" for suffix in suffixes]
            line = []
            for mode in ("one", "two"):
                wall, cpu, crit = timed(project, outs, mode)
                line.append(f"{mode} process{'es' if mode == 'two' else ''}: {wall:5.2f} s "
                            f"wall, {cpu:5.2f} s CPU, critical path {crit:5.2f} s CPU")
            print(f"[{rep + 1}] {' + '.join(suffixes):10s} " + "; ".join(line)
                  + f"  (load {os.getloadavg()[0]:.1f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
