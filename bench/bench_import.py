"""Import of a generated 1,000,000-row CSV (key, text, two scores) against raw sqlite3.

    .venv/bin/python bench/bench_import.py [--rows 1000000] [--repeat 1]

Baseline: the ``csv`` module feeding ``executemany`` into a table
``(key TEXT PRIMARY KEY, text TEXT, s1 REAL, s2 REAL)`` in one transaction (WAL,
synchronous=FULL). Pandas: ``read_csv`` + ``to_sql`` into the same table, one transaction.
Ours: ``triage.ingest.importer.import_candidates`` into a new project (validation, candidates,
two models with frozen ranks and tie handling, one transaction). Targets: ours
at most 1.5x the baseline and faster than pandas. Each contender runs ``--repeat`` times
in this one process, interleaved; the best wall and best CPU time count. CPU time
(``time.process_time`` plus the bulk writer's child process) is printed too because wall time on a shared machine is noisy;
it leaves out the fsync waits, which are the same for all three.
"""

from __future__ import annotations

import argparse
import csv
import gc
import resource
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._generate import generate  # noqa: E402
from triage.ingest.importer import ColumnMapping, import_candidates  # noqa: E402
from triage.store.connection import create_database  # noqa: E402

TABLE = "CREATE TABLE t (key TEXT PRIMARY KEY, text TEXT, s1 REAL, s2 REAL)"


def _connect(path: Path, isolation_level: str | None) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=isolation_level)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(TABLE)
    return conn


def _clock() -> tuple[float, float]:
    # CPU of this process and of its finished children: the bulk writer runs in a child.
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter(), time.process_time() + children.ru_utime + children.ru_stime


def _since(start: tuple[float, float]) -> tuple[float, float]:
    """(wall, CPU) seconds since ``start``: CPU time is steadier on a shared machine."""
    wall, cpu = _clock()
    return wall - start[0], cpu - start[1]


def baseline(src: Path, db_path: Path) -> tuple[float, float]:
    conn = _connect(db_path, None)
    start = _clock()
    with open(src, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?)",
                         ((k, t, float(a), float(b)) for k, t, a, b in reader))
        conn.execute("COMMIT")
    seconds = _since(start)
    conn.close()
    return seconds


def with_pandas(src: Path, db_path: Path) -> tuple[float, float]:
    conn = _connect(db_path, "DEFERRED")  # implicit BEGIN: to_sql's inserts share one commit
    start = _clock()
    frame = pd.read_csv(src, dtype={"key": str, "text": str}, keep_default_na=False)
    frame.columns = ["key", "text", "s1", "s2"]
    frame.to_sql("t", conn, if_exists="append", index=False)
    conn.commit()
    seconds = _since(start)
    conn.close()
    return seconds


def ours(src: Path, db_path: Path) -> tuple[float, float]:
    db = create_database(db_path)
    start = _clock()
    import_candidates(db, src, ColumnMapping(text="text", key="key",
                                             scores=(("m1", "m1"), ("m2", "m2"))))
    seconds = _since(start)
    db.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    contenders = {"baseline (csv + sqlite3 executemany)": baseline,
                  "pandas read_csv + to_sql": with_pandas,
                  "triage import_candidates": ours}
    best = {name: [float("inf"), float("inf")] for name in contenders}
    with tempfile.TemporaryDirectory() as tmp:
        src = generate(Path(tmp) / "pool.csv", args.rows)
        print(f"{args.rows:,} rows, {src.stat().st_size / 1e6:.1f} MB CSV")
        for run in range(args.repeat):
            for n, (name, func) in enumerate(contenders.items()):
                gc.collect()
                wall, cpu = func(src, Path(tmp) / f"r{run}-{n}.db")
                best[name] = [min(best[name][0], wall), min(best[name][1], cpu)]
                for leftover in Path(tmp).glob(f"r{run}-{n}.db*"):
                    leftover.unlink()
    base, pandas_time, mine = (best[name] for name in contenders)
    print(f"{'':40s} {'wall':>8s} {'ratio':>6s}   {'CPU':>8s} {'ratio':>6s}")
    for name, (wall, cpu) in best.items():
        print(f"{name:40s} {wall:7.2f}s {wall / base[0]:5.2f}x   {cpu:7.2f}s {cpu / base[1]:5.2f}x")
    for label, i in (("wall", 0), ("CPU", 1)):
        ratio = mine[i] / base[i]
        print(f"{label}: ours / baseline = {ratio:.2f} (target <= 1.5: "
              f"{'met' if ratio <= 1.5 else 'MISSED'}); ours / pandas = "
              f"{mine[i] / pandas_time[i]:.2f} (target < 1: "
              f"{'met' if mine[i] < pandas_time[i] else 'MISSED'})")


if __name__ == "__main__":
    main()
