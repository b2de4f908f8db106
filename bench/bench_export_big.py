"""Benchmark: exporting a project that holds gigabytes of text, against the sqlite3 shell.

Builds (once, kept in ``--dir``) a project whose candidates hold ``--gib`` GiB of text in
all (``triage new`` on a generated CSV, about 1 KB of text a row), then runs, each as a
whole process one after the other: ``sqlite3 -csv`` writing the candidates' key, text,
gold and meta (the anchor), and ``triage export`` to CSV, Parquet and JSONL. For each it
reports the wall time, the output's size, the time per byte relative to the sqlite3
shell's CSV, and the process's peak resident memory (``wait4``'s ``ru_maxrss``).
Targets: peak memory at most 600 MB, CSV at most 1.5x the shell's time per byte.

    .venv/bin/python bench/bench_export_big.py --gib 0.5 [--dir /work/tmp/bench-export]
    .venv/bin/python bench/bench_export_big.py --gib 2.6 --formats csv,parquet,jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRIAGE = [sys.executable, "-m", "triage.cli"]
TARGETS = {"peak_rss_mb": 600.0, "csv_time_per_byte_vs_sqlite3": 1.5}
WORDS = ["the", "quick", "brown", "fox", "jumps", "over", "a", "lazy", "dog", "while", "annotators", "label", "idioms,", "literal", "phrases", "and", '"quoted"', "words;", "budgets", "matter"]


def make_pool(path: Path, gib: float, seed: int = 3) -> int:
    """A CSV of about ``gib`` GiB of text: key, text (~1 KB), score, gold; rows written."""
    rng = random.Random(seed)
    bodies = [" ".join(rng.choice(WORDS) for _ in range(180)) for _ in range(997)]
    target = int(gib * (1 << 30))
    written = rows = 0
    with open(path, "w", encoding="utf-8", newline="") as out:
        out.write("key,text,score,gold\n")
        while written < target:
            chunk = []
            for i in range(rows, rows + 10_000):
                body = bodies[i % len(bodies)]
                written += len(body) + 12
                chunk.append(f'k{i},"row {i} {body.replace(chr(34), chr(34) * 2)}",'
                             f'{rng.random():.6f},{"idiom" if i % 7 == 0 else "literal"}\n')
            out.write("".join(chunk))
            rows += 10_000
    return rows


def build(folder: Path, gib: float) -> Path:
    """The project of ``gib`` GiB of text in ``folder`` (made once, then reused)."""
    project = folder / f"big-{gib:g}.triage"
    if project.exists():
        return project
    pool = folder / f"big-{gib:g}.csv"
    rows = make_pool(pool, gib)
    done = subprocess.run([*TRIAGE, "new", str(project), str(pool), "--text", "text",
                           "--key", "key", "--score", "m=score", "--gold", "gold",
                           "--labels", "idiom:i,literal:l", "--positive", "idiom"],
                          cwd=ROOT, capture_output=True, text=True)
    pool.unlink()
    if done.returncode != 0:
        project.unlink(missing_ok=True)
        raise SystemExit(f"triage new failed: {done.stderr}")
    print(f"built {project} ({rows:,} rows, {project.stat().st_size / 1e9:.2f} GB)", flush=True)
    return project


def run(argv: list[str], stdout: Path | None = None) -> dict[str, float]:
    """Run one process to the end: its wall time (s) and peak resident memory (MB)."""
    start = time.perf_counter()
    with open(stdout or os.devnull, "wb") as sink:
        child = subprocess.Popen(argv, cwd=ROOT, stdout=sink, stderr=subprocess.PIPE)
        _pid, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{argv[:3]} failed ({status}): {child.stderr.read().decode()}")
    child.stderr.close()
    return {"seconds": round(seconds, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024, 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gib", type=float, default=0.5, help="text in the project (GiB)")
    parser.add_argument("--dir", type=Path, default=Path("/work/tmp/bench-export"))
    parser.add_argument("--formats", default="csv,parquet,jsonl")
    parser.add_argument("--keep", action="store_true", help="keep the output files")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    project = build(args.dir, args.gib)
    anchor_out = args.dir / "sqlite3.csv"
    anchor = run(["sqlite3", "-csv", "-header", str(project),
                  "SELECT key, text, gold, meta FROM candidates"], anchor_out)
    anchor["bytes"] = anchor_out.stat().st_size
    results: dict[str, dict[str, float]] = {"sqlite3 -csv": anchor}
    per_byte = anchor["seconds"] / anchor["bytes"]
    for fmt in args.formats.split(","):
        out = args.dir / f"export.{fmt}"
        result = run([*TRIAGE, "export", str(project), str(out)])
        result["bytes"] = out.stat().st_size
        result["time_per_byte_vs_sqlite3"] = round(result["seconds"] / result["bytes"]
                                                   / per_byte, 2)
        results[f"triage export .{fmt}"] = result
        if not args.keep:
            out.unlink()
    anchor_out.unlink()
    report = {"gib_of_text": args.gib, "project_bytes": project.stat().st_size,
              "targets": TARGETS, "results": results}
    print(json.dumps(report, indent=2))
    worst = max(r["peak_rss_mb"] for name, r in results.items() if name.startswith("triage"))
    csv = results.get("triage export .csv", {}).get("time_per_byte_vs_sqlite3", 0.0)
    return 0 if worst <= TARGETS["peak_rss_mb"] and csv <= TARGETS[
        "csv_time_per_byte_vs_sqlite3"] else 1


if __name__ == "__main__":
    sys.exit(main())
