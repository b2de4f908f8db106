"""Label-and-next at a desk while a certification sample runs, against the ranked pass.

    python -m bench.bench_certify [--work DIR] [--rows 1000000] [--labels 10000] [--steps 200]

The project is ``bench/bench_report.py``'s (a generated pool with gold labels, labelled by
two annotators; made once per ``--work`` folder and copied here, never written). In one
process, one desk: ``--steps`` label-and-next steps of the ranked pass (the anchor), then
the lead's "certify now" (a seeded random order of the unlabelled remainder: about a
million items) and ``--steps`` steps of the sample, each a ``record_label`` (the durable
commit, and for a certification label the sequential test on the sample so far) then a
``next_candidate``. Printed: p50/p95/p99 of each, the ratio of the sample's p99 to the
ranked pass's, and the seconds "certify now" took.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path


def _steps(project, session, steps: int, kind: str) -> list[float]:
    """Milliseconds of each label-and-next step (the first ten are warm-up, left out)."""
    value = project.settings.labels[-1].value
    out = []
    candidate = project.next_candidate(session)
    if candidate is not None and kind not in ("any", candidate.kind):
        # the ranked pass's last candidate, still held by this desk: label it first
        project.record_label(session, candidate.candidate_id, value)
        candidate = project.next_candidate(session)
    for _ in range(steps + 10):
        if candidate is None or kind not in ("any", candidate.kind):
            break   # the pool or the sample has ended
        start = time.perf_counter()
        project.record_label(session, candidate.candidate_id, value)
        candidate = project.next_candidate(session)
        out.append((time.perf_counter() - start) * 1e3)
    return out[10:]


def _row(name: str, ms: list[float]) -> str:
    q = statistics.quantiles(ms, n=100)
    return f"| {name} | {statistics.median(ms):.1f} ms | {q[94]:.1f} ms | {q[98]:.1f} ms |"


def main() -> int:
    """Run the benchmark and print its table."""
    from bench.bench_report import build
    from triage.project import open_project
    from triage.project.certify import start_certification

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "bench-report")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=10_000)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    source = build(args.work, args.rows, args.labels)
    with tempfile.TemporaryDirectory(prefix="bench-certify-") as tmp:
        path = Path(tmp) / "p.triage"
        shutil.copyfile(source, path)
        with open_project(path) as project:
            session = project.start_session("bench")
            ranked = _steps(project, session, args.steps, "any")
            start = time.perf_counter()
            row = start_certification(project)
            started = time.perf_counter() - start
            sample = _steps(project, session, args.steps, "certify")
    print(f"{args.rows:,} candidates; certify now drew {row.remaining:,} items in "
          f"{started:.2f} s; {len(sample)} timed steps of the sample")
    print("| steps | p50 | p95 | p99 |\n|---|---|---|---|")
    print(_row("ranked pass (anchor)", ranked))
    print(_row("certification sample", sample))
    ratio = statistics.quantiles(sample, n=100)[98] / statistics.quantiles(ranked, n=100)[98]
    print(f"p99 ratio, sample / ranked pass: {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
