"""A cal trainer that keeps fitting, for the desk probe: the desk's key presses timed while
a helper process trains on the same project file.

    .venv/bin/python bench/bench_cal_trainer.py PROJECT --make 100000   # build a project
    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/desk_probe.py PROJECT --train

``--make N`` builds a project of N synthetic short texts (``bench_cal_scale``'s pool) that
follows ``cal``, with 60 labels and a first snapshot. Without it the script fits the
project again and again (``train_cal_at`` with ``force``, as the desk's helper calls it, at
niceness 10 as that helper runs) until it is stopped, printing one line per fit.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def make_project(path: Path, rows: int) -> None:
    """A project following cal: N synthetic texts, 60 labels, one snapshot."""
    from bench.bench_cal_scale import cal_project

    with tempfile.TemporaryDirectory() as work:
        project, gold_of = cal_project(path, rows, Path(work))
    session = project.start_session("seed")
    for _ in range(60):
        c = project.next_candidate(session)
        project.record_label(session, c.candidate_id, gold_of[c.candidate_id])
    project.train_cal(force=True)
    project.close()


def train_forever(path: Path) -> None:
    """Fit the project's cal ranking again and again, as the desk's helper would."""
    from triage.project.cal_helper import train_cal_at

    os.nice(10)
    while True:
        t0 = time.perf_counter()
        snap = train_cal_at(path, force=True)
        print(f"fit: {snap.labels_used if snap else 0} labels, "
              f"{time.perf_counter() - t0:.2f} s", flush=True)


def main() -> None:
    """Build a probe project (``--make N``) or train on one until stopped."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--make", type=int, metavar="ROWS")
    args = parser.parse_args()
    if args.make:
        make_project(args.project, args.make)
    else:
        train_forever(args.project)


if __name__ == "__main__":
    main()
