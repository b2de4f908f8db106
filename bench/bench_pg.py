"""The PostgreSQL team store against its anchors, on a local server started for the run.

    .venv/bin/python bench/bench_pg.py import [--rows 1000000] [--runs 3]

**Import** (issue 16: a million rows at most 1.5x ``psql``'s ``\\copy``): the generated
CSV (``bench/_generate.py``: key, text, two scores) is loaded by two whole processes,
alternating, ``--runs`` times each, and the medians are compared:

- anchor: ``psql -c "\\copy plain FROM 'pool.csv' (FORMAT csv, HEADER)"`` into a fresh
  plain table ``(key text, text text, m1 double precision, m2 double precision)``, no
  index, no key, created before the clock starts;
- ours: ``triage new postgresql://…?project=NAME pool.csv --text text --key key
  --score m1=m1 --score m2=m2`` for a fresh project: Python start-up, reading and checking
  the file, ranking both models (ties by seeded hash), the project's schema, roles and
  functions, the candidates by COPY, their primary key, both rankings, in one transaction.

The server is pgserver's PostgreSQL 16 on a Unix socket in a temporary directory, stopped
at the end; a CHECKPOINT runs before each timed process so neither inherits the other's
dirty pages. Each function here is one benchmark; ``main`` dispatches on the first
argument, so other benchmarks of the team store sit beside this one.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._generate import generate  # noqa: E402


def start_server(where: Path) -> Any:
    """A pgserver PostgreSQL with its data directory under ``where`` (stopped by the caller)."""
    import pgserver

    return pgserver.get_server(where / "pgdata", cleanup_mode="stop")


def psql_path() -> Path:
    """pgserver's bundled ``psql``."""
    from pgserver._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH) / "psql"


def _psql(host: str, command: str) -> None:
    subprocess.run([str(psql_path()), "-h", host, "-U", "postgres", "-d", "postgres", "-q",
                    "-v", "ON_ERROR_STOP=1", "-c", command], check=True, capture_output=True)


def _timed(command: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{command[0]} failed:\n{done.stderr}")
    return seconds


def anchor_copy(host: str, csv_path: Path, run: int) -> float:
    """Seconds for ``psql``'s ``\\copy`` of the file into a fresh plain table."""
    table = f"plain_{run}"
    _psql(host, f"DROP TABLE IF EXISTS {table}; CREATE TABLE {table} (key text, text text, "
                "m1 double precision, m2 double precision); CHECKPOINT")
    return _timed([str(psql_path()), "-h", host, "-U", "postgres", "-d", "postgres", "-q",
                   "-c", f"\\copy {table} FROM '{csv_path}' WITH (FORMAT csv, HEADER true)"])


def ours_new(host: str, csv_path: Path, run: int) -> float:
    """Seconds for ``triage new URL FILE`` into a fresh project on the server."""
    _psql(host, "CHECKPOINT")
    url = f"postgresql://postgres@/postgres?host={host}&project=bench_{run}"
    return _timed([sys.executable, "-m", "triage.cli", "new", url, str(csv_path), "--text",
                   "text", "--key", "key", "--score", "m1=m1", "--score", "m2=m2"])


def import_ratio(rows: int, runs: int) -> dict[str, Any]:
    """Median seconds of ours and of ``psql \\copy`` over ``runs`` alternating runs each."""
    with tempfile.TemporaryDirectory(prefix="bench-pg-") as tmp:
        where = Path(tmp)
        csv_path = generate(where / "pool.csv", rows)
        server = start_server(where)
        try:
            host = str(server.get_postmaster_info().socket_dir)
            contenders: dict[str, Callable[[str, Path, int], float]] = {
                "psql \\copy": anchor_copy, "triage new URL": ours_new}
            times: dict[str, list[float]] = {name: [] for name in contenders}
            for run in range(runs):
                for name, func in contenders.items():
                    times[name].append(func(host, csv_path, run))
        finally:
            server.cleanup()
    ours, anchor = (statistics.median(times[n]) for n in ("triage new URL", "psql \\copy"))
    return {"case": "import to PostgreSQL", "rows": rows, "runs": runs, "ours_s": ours,
            "anchor_s": anchor, "ratio": ours / anchor, "target": 1.5, "met": ours / anchor <= 1.5,
            "all_s": times, "load_average": os.getloadavg()}


def _print_import(result: dict[str, Any]) -> None:
    print(f"{result['rows']:,} rows, median of {result['runs']} alternating runs; load "
          f"average {' '.join(f'{x:.1f}' for x in result['load_average'])} at the end")
    print("| case | ours | psql \\copy | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    print(f"| import to PostgreSQL | {result['ours_s']:.2f} s | {result['anchor_s']:.2f} s | "
          f"{result['ratio']:.2f}x | <= 1.5x | {'yes' if result['met'] else '**no**'} |")
    print(json.dumps(result))


def main(argv: list[str] | None = None) -> int:
    """``bench_pg.py import [--rows N] [--runs K]``."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="bench", required=True)
    imp = sub.add_parser("import", help="import ratio against psql's \\copy")
    imp.add_argument("--rows", type=int, default=1_000_000)
    imp.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    if args.bench == "import":
        _print_import(import_ratio(args.rows, args.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
