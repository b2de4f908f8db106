"""What the checksums taken at import (for ``triage check --deep``) cost the import.

    .venv/bin/python bench/bench_checksums.py [--rows 300000] [--repeat 3]

Imports the bench generator's CSV (short texts) and the import matrix's ``long`` shape
(300 to 1,500 characters) into new projects, with the checksums and with them switched
off (their two functions replaced by no-ops in this process), interleaved; the best wall
and CPU time of each count. Prints ours-with / ours-without per file.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._generate import generate  # noqa: E402
from bench._shapes import write_shape  # noqa: E402
from triage.ingest.importer import ColumnMapping, import_candidates  # noqa: E402
from triage.store import content, poolwrite  # noqa: E402
from triage.store.connection import create_database  # noqa: E402

MAPPING = ColumnMapping(text="text", key="key", scores=(("m1", "m1"), ("m2", "m2")))


def _import(src: Path, target: Path) -> tuple[float, float]:
    db = create_database(target)
    wall, cpu = time.perf_counter(), time.process_time()
    import_candidates(db, src, MAPPING)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    db.close()
    return wall, cpu


def _switched_off() -> None:
    poolwrite.TextHashes.add = lambda self, batch: None  # type: ignore[method-assign]
    poolwrite.store_ranking_hashes = lambda *args: None  # type: ignore[assignment]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    on = (content.TextHashes.add, poolwrite.store_ranking_hashes)
    with tempfile.TemporaryDirectory() as tmp:
        files = {"short": generate(Path(tmp) / "short.csv", args.rows),
                 "long": write_shape(Path(tmp) / "long.csv", "long", args.rows // 4)}
        for name, src in files.items():
            best = {"with": [float("inf")] * 2, "without": [float("inf")] * 2}
            for run in range(args.repeat):
                for mode in ("with", "without"):
                    poolwrite.TextHashes.add, poolwrite.store_ranking_hashes = on  # type: ignore[method-assign,assignment]
                    if mode == "without":
                        _switched_off()
                    gc.collect()
                    wall, cpu = _import(src, Path(tmp) / f"{name}-{run}-{mode}.triage")
                    best[mode] = [min(best[mode][0], wall), min(best[mode][1], cpu)]
            (w1, c1), (w0, c0) = best["with"], best["without"]
            print(f"{name:5s} {src.stat().st_size / 1e6:7.1f} MB: with {w1:6.2f} s "
                  f"(CPU {c1:6.2f} s), without {w0:6.2f} s (CPU {c0:6.2f} s); "
                  f"ratio wall {w1 / w0:.2f}x, CPU {c1 / c0:.2f}x")


if __name__ == "__main__":
    main()
