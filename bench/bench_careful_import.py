"""Benchmark: ``triage new`` on a big CSV with one bad row (the careful path), peak memory.

Generates (once, kept in ``--dir``) a CSV of about ``--gb`` GB (about 1 KB of text a row)
whose middle row has a score that is not a number, so the fast path refuses it and the
careful path checks the file. Runs, each as a whole process: ``triage new`` without
``--skip-invalid`` (must fail naming the row's line) and with it (must import every other
row and name the line in the rejects file). Reports wall time and peak resident memory
(``wait4``'s ``ru_maxrss``) of each. Target: at most 600 MB whatever the file's size.

    .venv/bin/python bench/bench_careful_import.py --gb 0.3
    .venv/bin/python bench/bench_careful_import.py --gb 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRIAGE = [sys.executable, "-m", "triage.cli"]
TARGET_MB = 600.0
BODY = ("an annotator reads this candidate, a phrase that may be an idiom, and labels it; "
        "the budget decides how far down the ranking anyone reads ") * 7


def make_pool(path: Path, gb: float) -> tuple[int, int]:
    """The CSV; returns (rows, line of the bad row)."""
    rows = int(gb * 1e9 / (len(BODY) + 40))
    bad = rows // 2
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write("key,text,score,gold\n")
        for start in range(0, rows, 10_000):
            out.write("".join(
                f'k{i},"row {i}, {BODY}",{"high" if i == bad else f"{1 - i / rows:.7f}"},'
                f'{"idiom" if i % 7 == 0 else "literal"}\n'
                for i in range(start, min(rows, start + 10_000))))
    return rows, bad + 2   # the header is line 1


def run(argv: list[str]) -> dict[str, object]:
    """Run one process to the end: exit code, wall time, peak memory (MB), its last words."""
    import tempfile

    start = time.perf_counter()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as said:
        child = subprocess.Popen(argv, cwd=ROOT, stdout=said, stderr=said, text=True)
        _pid, status, usage = os.wait4(child.pid, 0)
        said.seek(0)
        words = said.read().strip()[-300:]
    return {"exit": os.waitstatus_to_exitcode(status),
            "seconds": round(time.perf_counter() - start, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1), "said": words}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=0.3)
    parser.add_argument("--dir", type=Path, default=Path("/work/tmp/bench-careful"))
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    pool = args.dir / f"pool-{args.gb:g}.csv"
    meta = pool.with_suffix(".json")
    if not meta.exists():
        rows, line = make_pool(pool, args.gb)
        meta.write_text(json.dumps({"rows": rows, "line": line}))
    info = json.loads(meta.read_text())
    new = ["new", "--text", "text", "--key", "key", "--score", "m=score", "--gold", "gold",
           "--labels", "idiom:i,literal:l", "--positive", "idiom"]
    results = {}
    for name, extra in (("without --skip-invalid", []), ("with --skip-invalid",
                                                         ["--skip-invalid"])):
        project = args.dir / "p.triage"
        for leftover in args.dir.glob("p.triage*"):
            leftover.unlink()
        argv = [*TRIAGE, new[0], str(project), str(pool), *new[1:], *extra]
        results[name] = run(argv)
    rejects = pool.with_name(f"{pool.stem}.rejected.csv")
    named = rejects.exists() and rejects.read_text(encoding="utf-8").splitlines()[1].startswith(
        f"{info['line']},")
    report = {"csv_bytes": pool.stat().st_size, "rows": info["rows"],
              "bad_line": info["line"], "rejects_file_names_it": named,
              "target_peak_rss_mb": TARGET_MB, "results": results}
    print(json.dumps(report, indent=2))
    ok = all(float(r["peak_rss_mb"]) <= TARGET_MB for r in results.values())  # type: ignore[arg-type]
    return 0 if ok and named and os.path.exists(args.dir / "p.triage") else 1


if __name__ == "__main__":
    sys.exit(main())
