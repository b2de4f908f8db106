"""Label-and-next latency at 1,000,000 candidates, against raw sqlite3 at the same durability.

    .venv/bin/python bench/bench_label.py [--rows 1000000] [--labels 2000]

Ours: ``Project.record_label`` (one durable commit) then ``Project.next_candidate``.
Baseline: raw ``sqlite3`` on the same kind of file (WAL, synchronous=FULL): insert one row
into a labels table and commit, then select the next unlabeled candidate by rank with a
``NOT EXISTS`` probe, the least any design must do. Reports p50/p99 and the p99 ratio
(target: at most 3x).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from triage.ingest.importer import ColumnMapping  # noqa: E402
from triage.project import create_project  # noqa: E402
from triage.store.settings import LabelOption, Settings  # noqa: E402


def write_csv(path: Path, rows: int, seed: int = 1) -> None:
    rng = np.random.default_rng(seed)
    s1 = np.round(rng.random(rows), 6)
    s2 = np.round(rng.random(rows), 4)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("key,text,s1,s2\n")
        for i in range(rows):
            handle.write(f"k{i},candidate phrase {i},{s1[i]},{s2[i]}\n")


def baseline(path: Path, rows: int, labels: int) -> np.ndarray:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")
    conn.execute("CREATE TABLE cand (id INTEGER PRIMARY KEY, rank INTEGER UNIQUE, text TEXT)")
    conn.execute("CREATE TABLE lab (id INTEGER PRIMARY KEY, cand INTEGER, value TEXT, t REAL)")
    conn.execute("CREATE INDEX lab_cand ON lab(cand)")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO cand VALUES (?, ?, ?)",
                     ((i + 1, i + 1, f"candidate phrase {i}") for i in range(rows)))
    conn.execute("COMMIT")
    nxt = ("SELECT id, text FROM cand c WHERE rank >= ? AND NOT EXISTS "
           "(SELECT 1 FROM lab l WHERE l.cand = c.id) ORDER BY rank LIMIT 1")
    cur = conn.execute(nxt, [1]).fetchone()
    times = []
    for _ in range(labels):
        t0 = time.perf_counter()
        conn.execute("BEGIN")
        conn.execute("INSERT INTO lab(cand, value, t) VALUES (?, ?, ?)", [cur[0], "x", t0])
        conn.execute("COMMIT")
        cur = conn.execute(nxt, [cur[0]]).fetchone()
        times.append(time.perf_counter() - t0)
    conn.close()
    return np.array(times)


def ours(csv_path: Path, project_path: Path, labels: int) -> np.ndarray:
    settings = Settings(labels=(LabelOption("yes", "y"), LabelOption("no", "o")),
                        positive_labels=("yes",))
    project = create_project(project_path, settings)
    project.import_file(csv_path, ColumnMapping(text="text", key="key",
                                                scores=(("s1", "s1"), ("s2", "s2"))))
    session = project.start_session("bench")
    item = project.next_candidate(session)
    project.snapshot()  # the desk builds the live state once on open
    times = []
    for i in range(labels):
        t0 = time.perf_counter()
        project.record_label(session, item.candidate_id, "yes" if i % 3 == 0 else "no",
                             seconds=1.0)
        item = project.next_candidate(session)
        times.append(time.perf_counter() - t0)
    project.close()
    return np.array(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        write_csv(tmp / "pool.csv", args.rows)
        base = baseline(tmp / "base.db", args.rows, args.labels)
        mine = ours(tmp / "pool.csv", tmp / "p.triage", args.labels)
    def ms(a, q):
        return 1000 * float(np.percentile(a, q))
    print(f"label-and-next at {args.rows:,} candidates, {args.labels:,} labels")
    print(f"{'':12} {'p50 ms':>8} {'p99 ms':>8}")
    print(f"{'raw sqlite3':12} {ms(base, 50):8.3f} {ms(base, 99):8.3f}")
    print(f"{'triage':12} {ms(mine, 50):8.3f} {ms(mine, 99):8.3f}")
    ratio = ms(mine, 99) / ms(base, 99)
    print(f"p99 ratio triage / raw sqlite3: {ratio:.2f} (target <= 3.0) "
          f"{'PASS' if ratio <= 3.0 else 'FAIL'}")


if __name__ == "__main__":
    main()
