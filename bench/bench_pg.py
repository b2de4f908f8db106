"""The PostgreSQL team store against its anchors, on a local server started for the run.

    .venv/bin/python bench/bench_pg.py import [--rows 1000000] [--runs 3] [--also DIR]
    .venv/bin/python bench/bench_pg.py latency [--rows 20000] [--labels 1000]

**Import** (target: a million rows at most 1.5x ``psql``'s ``\\copy``): the generated
CSV (``bench/_generate.py``: key, text, two scores) is loaded by two whole processes,
alternating, ``--runs`` times each, and the medians are compared:

- anchor: ``psql -c "\\copy plain FROM 'pool.csv' (FORMAT csv, HEADER)"`` into a fresh
  plain table ``(key text, text text, m1 double precision, m2 double precision)``, no
  index, no key, created before the clock starts;
- ours: ``triage new postgresql://…?project=NAME pool.csv --text text --key key
  --score m1=m1 --score m2=m2`` for a fresh project: Python start-up, the project's
  schema, roles and functions (made on the server while the process loads), reading and
  checking the file while its batches stream into COPY, ranking both models (ties by
  seeded hash) beside the COPY, the candidates' primary key, both rankings, the overlap
  plan and the audit order, in one transaction.

Each process's CPU seconds (user + system, from ``getrusage``) are printed beside the wall
times: on a loaded machine they move less, and they show the work ``\\copy``'s client does
not do (``psql`` parses nothing; the server does). So is the server's CPU during each run:
the postmaster's children's user + system time from ``/proc``, read before the process
starts and after its backend has ended (background processes included: the WAL writer's
work is the run's). And the server's own time per statement, from its log
(:mod:`bench._server_time`): what the anchor's COPY took there, and ours' schema, COPY,
key, rankings, plan and audit order. What follows our COPY is work one backend does in a
row after the last row of the file has arrived, whatever the client does.

Ours runs as an installed program does, from compiled bytecode: one untimed run first
writes the ``.pyc`` files of every module the command loads into a cache under the run's
temporary folder (``PYTHONPYCACHEPREFIX``), which the timed runs read. pip compiles a
package's bytecode when it installs it; without this, an environment that sets
``PYTHONDONTWRITEBYTECODE`` (this machine's does) compiles every module of the package
from source in every run. ``--compile-each-run`` measures that way instead.

``--also DIR`` times a second checkout's ``triage new`` (``DIR/.venv/bin/python`` with
``DIR`` first on the path, e.g. the main branch) in the same alternation, so two versions
of the code are compared in the same minutes against the same anchor.

The server is pgserver's PostgreSQL 16 on a Unix socket in a temporary directory, stopped
at the end; a CHECKPOINT runs before each timed process so neither inherits the other's
dirty pages.

**Label-and-next latency** (target: "label-and-next latency against a local server next
to the SQLite figure"): one desk, the same project (the generated pool, per-item price,
no overlap or audit so both serve the same candidates) once as a project file and once
pushed to the local server and opened by URL as an annotator role (a replica in a
temporary ``TRIAGE_CACHE_DIR``). Timed per iteration: ``record_label`` (the durable
commit: SQLite's fsync, or the server's synchronous commit plus the pull into the replica)
then ``next_candidate`` (on the server: the lease). p50/p95/p99 over ``--labels``
iterations after 20 warm-up ones, and the server's own time per step: the milliseconds
spent in the functions the desk calls (``track_functions``), which a loaded machine
stretches less than the round trips.

Each function here is one benchmark; ``main`` dispatches on the first
argument, so other benchmarks of the team store sit beside this one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
from bench._server_time import (  # noqa: E402
    log_every_statement,
    log_size,
    print_statements,
    statement_ms,
)


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


ANCHOR = "psql \\copy"
# The CPU seconds (user + system) of each timed process, in the order they ran, and the
# server's during each (when SERVER_PID names its postmaster).
CLIENT_CPU: list[float] = []
SERVER_CPU: list[float] = []
SERVER_PID: list[int] = []
# The server's log (when set) and the milliseconds each timed process's statements took
# there, by kind (:mod:`bench._server_time`).
SERVER_LOG: list[Path] = []
STATEMENT_MS: list[dict[str, float]] = []


def server_cpu(pid: int) -> float:
    """CPU seconds the server has used: its postmaster's ended children (backends, parallel
    workers) and those running (the WAL writer, checkpointer, ...), from ``/proc``."""
    def stat(p: int | str) -> list[str]:
        text = Path(f"/proc/{p}/stat").read_text()
        return text[text.rindex(")") + 2:].split()   # from field 3, the state, on

    ticks = 0
    own = stat(pid)
    ticks += sum(int(x) for x in own[11:15])   # utime, stime, cutime, cstime
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = stat(entry)
            except (OSError, ValueError):
                continue   # ended meanwhile
            if fields[1] == str(pid):
                ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def _settled_server_cpu() -> float:
    """The server's CPU seconds once the backend of the process just ended has been reaped
    (two readings 50 ms apart agree)."""
    last = server_cpu(SERVER_PID[0])
    for _ in range(40):
        time.sleep(0.05)
        now = server_cpu(SERVER_PID[0])
        if now == last:
            break
        last = now
    return last


def _timed(command: list[str], env: dict[str, str] | None = None) -> float:
    server_before = server_cpu(SERVER_PID[0]) if SERVER_PID else 0.0
    logged = log_size(SERVER_LOG[0]) if SERVER_LOG else 0
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True,
                          env=env if env is not None else {**os.environ,
                                                           "PYTHONPATH": str(ROOT)})
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CLIENT_CPU.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    if SERVER_PID:
        SERVER_CPU.append(_settled_server_cpu() - server_before)
    if SERVER_LOG:
        STATEMENT_MS.append(statement_ms(SERVER_LOG[0], logged))
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


def ours_new(host: str, csv_path: Path, run: int, *, code: Path = ROOT,
             python: str = sys.executable, pycache: Path | None = None) -> float:
    """Seconds for ``triage new URL FILE`` into a fresh project on the server.

    ``code``: the checkout whose ``triage`` runs, with ``python``; ``pycache``: where its
    compiled bytecode is cached (None: compiled from source in every run, as the
    environment says)."""
    _psql(host, "CHECKPOINT")
    name = f"bench_{'ours' if code == ROOT else 'also'}_{'warm' if run < 0 else run}"
    url = f"postgresql://postgres@/postgres?host={host}&project={name}"
    env = {**os.environ, "PYTHONPATH": str(code)}
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return _timed([python, "-m", "triage.cli", "new", url, str(csv_path), "--text",
                   "text", "--key", "key", "--score", "m1=m1", "--score", "m2=m2"], env)


def _contenders(where: Path, also: Path | None, compile_each_run: bool
                ) -> dict[str, Callable[[str, Path, int], float]]:
    """The anchor, ours and (``also``) another checkout's, each a function of (host, file,
    run)."""
    import functools

    pycache = None if compile_each_run else where / "pycache"
    out: dict[str, Callable[[str, Path, int], float]] = {
        ANCHOR: anchor_copy,
        "triage new URL": functools.partial(ours_new, pycache=pycache)}
    if also is not None:
        out[f"triage new URL ({also})"] = functools.partial(
            ours_new, code=also, python=str(also / ".venv" / "bin" / "python"),
            pycache=pycache)
    return out


def import_ratio(rows: int, runs: int, *, also: Path | None = None,
                 compile_each_run: bool = False) -> dict[str, Any]:
    """Median seconds of ours and of ``psql \\copy`` over ``runs`` alternating runs each
    (and of the checkout ``also``); see the module's docstring."""
    with tempfile.TemporaryDirectory(prefix="bench-pg-") as tmp:
        where = Path(tmp)
        csv_path = generate(where / "pool.csv", rows)
        server = start_server(where)
        try:
            host = str(server.get_postmaster_info().socket_dir)
            SERVER_PID[:] = [server.get_postmaster_info().pid]
            log_every_statement(lambda command: _psql(host, command))
            SERVER_LOG[:] = [where / "pgdata" / "log"]
            contenders = _contenders(where, also, compile_each_run)
            for name, func in contenders.items():   # untimed: bytecode compiled and cached
                if name != ANCHOR and not compile_each_run:
                    func(host, csv_path, -1)
            times: dict[str, list[float]] = {name: [] for name in contenders}
            cpu: dict[str, list[float]] = {name: [] for name in contenders}
            on_server: dict[str, list[float]] = {name: [] for name in contenders}
            statements: dict[str, list[dict[str, float]]] = {name: [] for name in contenders}
            for run in range(runs):
                for name, func in contenders.items():
                    times[name].append(func(host, csv_path, run))
                    cpu[name].append(CLIENT_CPU[-1])
                    on_server[name].append(SERVER_CPU[-1])
                    statements[name].append(STATEMENT_MS[-1])
        finally:
            SERVER_PID.clear()
            SERVER_LOG.clear()
            server.cleanup()
    medians = {name: statistics.median(xs) for name, xs in times.items()}
    ours, anchor = medians["triage new URL"], medians[ANCHOR]
    return {"case": "import to PostgreSQL", "rows": rows, "runs": runs, "ours_s": ours,
            "anchor_s": anchor, "ratio": ours / anchor, "target": 1.5, "met": ours / anchor <= 1.5,
            "medians_s": medians, "all_s": times, "client_cpu_s": cpu, "server_cpu_s": on_server,
            "server_statement_ms": statements,
            "bytecode": "compiled each run" if compile_each_run else "cached",
            "load_average": os.getloadavg()}


def _print_import(result: dict[str, Any]) -> None:
    print(f"{result['rows']:,} rows, median of {result['runs']} alternating runs; load "
          f"average {' '.join(f'{x:.1f}' for x in result['load_average'])} at the end")
    print("| case | ours | psql \\copy | ratio | target | met |")
    print("|---|---|---|---|---|---|")
    print(f"| import to PostgreSQL | {result['ours_s']:.2f} s | {result['anchor_s']:.2f} s | "
          f"{result['ratio']:.2f}x | <= 1.5x | {'yes' if result['met'] else '**no**'} |")
    anchor = result["anchor_s"]
    for name, median in result["medians_s"].items():
        if name not in (ANCHOR, "triage new URL"):
            print(f"| {name} | {median:.2f} s | {anchor:.2f} s | {median / anchor:.2f}x | | |")
    anchors = result["all_s"][ANCHOR]
    print(f"ratio per run (against the same run's {ANCHOR}): " + "; ".join(
        f"{name} {', '.join(f'{x / a:.2f}' for x, a in zip(xs, anchors))}"
        for name, xs in result["all_s"].items() if name != ANCHOR))
    print("client CPU (user + system) per run: " + "; ".join(
        f"{name} {', '.join(f'{x:.2f}' for x in xs)} s" for name, xs in result["client_cpu_s"].items()))
    print("server CPU (user + system) per run: " + "; ".join(
        f"{name} {', '.join(f'{x:.2f}' for x in xs)} s" for name, xs in result["server_cpu_s"].items()))
    print_statements(result, ANCHOR)
    print(json.dumps(result))



def _label_and_next(project: Any, annotator: str, labels: int) -> list[float]:
    """Milliseconds of each record_label + next_candidate step (after 20 warm-up steps)."""
    session = project.start_session(annotator)
    item = project.next_candidate(session)
    times = []
    for i in range(labels + 20):
        start = time.perf_counter()
        project.record_label(session, item.candidate_id, "yes" if i % 3 == 0 else "no")
        item = project.next_candidate(session)
        times.append((time.perf_counter() - start) * 1000)
    project.end_session(session)
    return times[20:]


def latency(rows: int, labels: int) -> dict[str, Any]:
    """Label-and-next latency on a project file and on the same project on a local server."""
    from triage.ingest.importer import ColumnMapping
    from triage.project import create_project, open_project
    from triage.store.pg.copy import push
    from triage.store.pg.schema import grant
    from triage.store.settings import LabelOption, Settings

    with tempfile.TemporaryDirectory(prefix="bench-pg-") as tmp:
        where = Path(tmp)
        csv_path = generate(where / "pool.csv", rows)
        settings = Settings(labels=(LabelOption("yes", "y"), LabelOption("no", "o")),
                            positive_labels=("yes",), overlap_rate=0.0, audit_rate=0.0,
                            retest_rate=0.0)
        path = where / "bench.triage"
        project = create_project(path, settings)
        project.import_file(csv_path, ColumnMapping(text="text", key="key",
                                                    scores=(("m1", "m1"), ("m2", "m2"))))
        project.close()
        copy = where / "server-copy.triage"
        copy.write_bytes(path.read_bytes())
        with open_project(path) as project:
            file_ms = _label_and_next(project, "bench", labels)
        server = start_server(where)
        os.environ["TRIAGE_CACHE_DIR"] = str(where / "cache")
        try:
            host = str(server.get_postmaster_info().socket_dir)
            url = f"postgresql://postgres@/postgres?host={host}&project=latency"
            push(copy, url)
            server.psql("CREATE ROLE bench LOGIN;")
            grant(url, leads=[], annotators=["bench"])
            # A script labels faster than the server's pace for a person (5 a second).
            server.psql("INSERT INTO triage_latency.project VALUES ('server_label_rate', "
                        "'100000') ON CONFLICT (key) DO UPDATE SET value = excluded.value;")
            server.psql("ALTER SYSTEM SET track_functions = 'all'; SELECT pg_reload_conf();")
            server.psql("SELECT pg_stat_reset();")
            with open_project(url.replace("postgres@", "bench@")) as project:
                server_ms = _label_and_next(project, "bench", labels)
            functions_ms = _server_function_ms(server)   # the desk's backends have ended
        finally:
            server.cleanup()
    out: dict[str, Any] = {"case": "label-and-next", "rows": rows, "labels": labels,
                           "load_average": os.getloadavg()}
    for name, ms in (("file", file_ms), ("server", server_ms)):
        out[name] = {f"p{q}_ms": float(statistics.quantiles(ms, n=100)[q - 1])
                     for q in (50, 95, 99)}
    out["p50_ratio"] = out["server"]["p50_ms"] / out["file"]["p50_ms"]
    # Only the desk's calls count: one step is a label, its pull and the next lease.
    out["server_function_ms_per_step"] = functions_ms / (labels + 20)
    return out


# The functions a desk calls itself (they call the others); their total is the server's
# own work per step, which the machine's load stretches less than the round trips.
DESK_CALLS = ("add_label", "claim", "label_feed", "session_feed", "active_kinds", "live_leases")


def _server_function_ms(server: Any) -> float:
    """Milliseconds the server spent in the functions a desk calls (``track_functions``)."""
    names = ", ".join(f"'{name}'" for name in DESK_CALLS)
    seen = -1.0
    for _ in range(20):   # an ending backend reports its counts as it exits
        out = server.psql("SELECT 'total=' || coalesce(sum(total_time), 0) FROM "
                          f"pg_stat_user_functions WHERE funcname IN ({names});")
        total = float(out.split("total=")[1].split()[0])
        if total == seen and total > 0:
            break
        seen = total
        time.sleep(0.5)
    return seen


def _print_latency(result: dict[str, Any]) -> None:
    print(f"label-and-next, {result['rows']:,} candidates, {result['labels']:,} labels; load "
          f"average {' '.join(f'{x:.1f}' for x in result['load_average'])} at the end")
    print("| store | p50 | p95 | p99 |")
    print("|---|---|---|---|")
    for name, label in (("file", "SQLite project file"), ("server", "local PostgreSQL")):
        r = result[name]
        print(f"| {label} | {r['p50_ms']:.1f} ms | {r['p95_ms']:.1f} ms | {r['p99_ms']:.1f} ms |")
    print(f"server's own time in the desk's functions: "
          f"{result['server_function_ms_per_step']:.2f} ms per step")
    print(json.dumps(result))


def main(argv: list[str] | None = None) -> int:
    """``bench_pg.py import [--rows N] [--runs K]`` or ``latency [--rows N] [--labels K]``."""
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="bench", required=True)
    imp = sub.add_parser("import", help="import ratio against psql's \\copy")
    imp.add_argument("--rows", type=int, default=1_000_000)
    imp.add_argument("--runs", type=int, default=3)
    imp.add_argument("--also", type=Path, default=None, metavar="DIR",
                     help="also time DIR's triage (DIR/.venv/bin/python), e.g. the main branch")
    imp.add_argument("--compile-each-run", action="store_true",
                     help="no bytecode cache: compile the package from source in every run")
    lat = sub.add_parser("latency", help="label-and-next on a server next to a file")
    lat.add_argument("--rows", type=int, default=20_000)
    lat.add_argument("--labels", type=int, default=1000)
    args = parser.parse_args(argv)
    if args.bench == "import":
        _print_import(import_ratio(args.rows, args.runs, also=args.also,
                                   compile_each_run=args.compile_each_run))
    elif args.bench == "latency":
        _print_latency(latency(args.rows, args.labels))
    return 0


if __name__ == "__main__":
    sys.exit(main())
