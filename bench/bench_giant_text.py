"""Benchmark: the desk on giant candidate texts: a 1 MB line, 100,000 lines.

Builds two projects whose every candidate is huge, then runs the real desk in a fresh
offscreen process with :mod:`desk_probe` (key presses at a fixed rate) and reports key
press -> next candidate shown (p50/p99), the longest event-loop stall, the window size and
the peak resident memory. Targets: key -> next p99 under 50 ms, the desk under 600 MB.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_giant_text.py [--rows 40]
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

TARGETS = {"key_p99_ms": 50.0, "peak_rss_mb": 600.0}
SHAPES = {
    "1 MB single line": lambda i: f"row{i} " + "giant " * 175_000,
    "100,000 lines": lambda i: "\n".join(f"row {i} line {n}" for n in range(100_000)),
}


def build(folder: Path, name: str, rows: int) -> Path:
    """A project of ``rows`` candidates, each a text of the given shape."""
    from triage.ingest.importer import ColumnMapping
    from triage.project import create_project
    from triage.store.settings import LabelOption, Settings

    make = SHAPES[name]
    source = folder / f"{len(name)}.csv"
    with open(source, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["key", "text", "score"])
        for i in range(rows):
            writer.writerow([f"k{i}", make(i), f"{1 - i / rows:.6f}"])
    path = folder / f"{len(name)}.triage"
    settings = Settings().with_changes(
        labels=(LabelOption("idiom", "i"), LabelOption("literal", "l")),
        positive_labels=("idiom",), overlap_rate=0.0, audit_rate=0.0)
    project = create_project(path, settings)
    project.import_file(source, ColumnMapping(text="text", key="key", scores=(("m", "score"),)))
    project.close()
    source.unlink()
    return path


def main() -> int:
    from desk_probe import run_probe

    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=40, help="candidates per project")
    parser.add_argument("--rate", type=float, default=8.0, help="key presses per second")
    args = parser.parse_args()
    seconds = max(1.0, (args.rows - 4) / args.rate)
    results = {}
    with tempfile.TemporaryDirectory(prefix="giant-") as tmp:
        for name in SHAPES:
            started = time.perf_counter()
            path = build(Path(tmp), name, args.rows)
            built = time.perf_counter() - started
            probe = run_probe(str(path), rate=args.rate, seconds=seconds, warmup=2.0)
            results[name] = {"build_s": round(built, 1), "presses": probe["presses"],
                             "key_ms": probe["press_ms"], "stall_keys_ms": probe["stall_keys_ms"],
                             "first_candidate_s": probe["first_candidate_s"],
                             "rss_mb": probe["rss_mb"], "peak_rss_mb": probe.get("peak_rss_mb")}
    print(json.dumps({"targets": TARGETS, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
