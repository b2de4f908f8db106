"""Time ``triage report`` (HTML and PDF) on a 1,000,000-candidate project with 10,000 labels.

    python -m bench.bench_report [--work DIR] [--rows 1000000] [--labels 10000]

The pool is generated with gold labels (``bench/_generate.py``) and labelled by two
annotators taking turns, as ``bench/bench_e2e.py`` does, once per ``--work`` folder. Prints
wall and CPU seconds per format, then for both from one computation (``-o r.html -o r.pdf``);
the first line includes the first imports. On a loaded machine compare CPU seconds side
by side; ``triage report`` as a whole process is timed by ``/usr/bin/time`` (see
docs/benchmarks.md).
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


def main() -> int:
    """Build (or reuse) the project, then time one HTML and one PDF report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work", type=Path,
                        default=Path(tempfile.gettempdir()) / "triage-bench")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=10_000)
    args = parser.parse_args()
    project = build(args.work, args.rows, args.labels)
    from triage.views.report import write_report

    for suffixes in (("html",), ("pdf",), ("html", "pdf")):
        wall, cpu = time.perf_counter(), time.process_time()
        write_report(project, [args.work / f"report.{suffix}" for suffix in suffixes])
        print(f"{' + '.join(suffixes)}: {time.perf_counter() - wall:.2f} s wall, "
              f"{time.process_time() - cpu:.2f} s CPU", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
