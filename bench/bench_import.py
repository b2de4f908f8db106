"""Import of a generated 1,000,000-row CSV (key, text, two scores) against raw sqlite3.

    .venv/bin/python bench/bench_import.py [--rows 1000000] [--repeat 1]

Baseline: the ``csv`` module feeding ``executemany`` into a table
``(key TEXT PRIMARY KEY, text TEXT, s1 REAL, s2 REAL)`` in one transaction (WAL,
synchronous=FULL). Pandas: ``read_csv`` + ``to_sql`` into the same table, one transaction.
Ours: ``triage.importer.import_candidates`` into a new project (validation, candidates,
two models with frozen ranks and tie handling, one transaction). Targets (issue 2): ours
at most 1.5x the baseline and faster than pandas. Each contender runs ``--repeat`` times
in this one process, interleaved, and the best time counts.
"""

from __future__ import annotations

import argparse
import csv
import gc
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._generate import generate  # noqa: E402
from triage.db import create_database  # noqa: E402
from triage.importer import ColumnMapping, import_candidates  # noqa: E402

TABLE = "CREATE TABLE t (key TEXT PRIMARY KEY, text TEXT, s1 REAL, s2 REAL)"


def _connect(path: Path, isolation_level: str | None) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=isolation_level)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute(TABLE)
    return conn


def baseline(src: Path, db_path: Path) -> float:
    conn = _connect(db_path, None)
    start = time.perf_counter()
    with open(src, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        next(reader)
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?)",
                         ((k, t, float(a), float(b)) for k, t, a, b in reader))
        conn.execute("COMMIT")
    seconds = time.perf_counter() - start
    conn.close()
    return seconds


def with_pandas(src: Path, db_path: Path) -> float:
    conn = _connect(db_path, "DEFERRED")  # implicit BEGIN: to_sql's inserts share one commit
    start = time.perf_counter()
    frame = pd.read_csv(src, dtype={"key": str, "text": str}, keep_default_na=False)
    frame.columns = ["key", "text", "s1", "s2"]
    frame.to_sql("t", conn, if_exists="append", index=False)
    conn.commit()
    seconds = time.perf_counter() - start
    conn.close()
    return seconds


def ours(src: Path, db_path: Path) -> float:
    db = create_database(db_path)
    start = time.perf_counter()
    import_candidates(db, src, ColumnMapping(text="text", key="key",
                                             scores=(("m1", "m1"), ("m2", "m2"))))
    seconds = time.perf_counter() - start
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
    best = {name: float("inf") for name in contenders}
    with tempfile.TemporaryDirectory() as tmp:
        src = generate(Path(tmp) / "pool.csv", args.rows)
        print(f"{args.rows:,} rows, {src.stat().st_size / 1e6:.1f} MB CSV")
        for run in range(args.repeat):
            for n, (name, func) in enumerate(contenders.items()):
                gc.collect()
                seconds = func(src, Path(tmp) / f"r{run}-{n}.db")
                best[name] = min(best[name], seconds)
                for leftover in Path(tmp).glob(f"r{run}-{n}.db*"):
                    leftover.unlink()
    base = best["baseline (csv + sqlite3 executemany)"]
    pandas_time = best["pandas read_csv + to_sql"]
    for name, seconds in best.items():
        print(f"{name:40s} {seconds:7.2f} s   {seconds / base:5.2f}x baseline")
    ratio = best["triage import_candidates"] / base
    print(f"ours / baseline = {ratio:.2f} (target <= 1.5): {'OK' if ratio <= 1.5 else 'MISSED'}")
    print(f"ours / pandas   = {best['triage import_candidates'] / pandas_time:.2f} "
          f"(target < 1): {'OK' if best['triage import_candidates'] < pandas_time else 'MISSED'}")


if __name__ == "__main__":
    main()
