"""End to end: whole ``triage`` processes against the ``sqlite3`` shell, side by side.

    .venv/bin/python bench/bench_e2e.py [--rows 1000000] [--repeat 3] [--labels 10000]
                                        [--work DIR] [--only NAME ...] [--no-write]
                                        [--save-as STEM]

Every case runs as a fresh process (``python main.py ...``), timed by wall clock from
spawn to exit; its peak resident memory and its CPU time (user + system, every thread)
come from the kernel (``wait4``'s ``ru_maxrss``, ``ru_utime`` and ``ru_stime``). On a
shared machine the CPU time moves far less with the load than the wall time: the two
ratios side by side tell a slower program from a busier machine.
Each repetition runs the anchor and then ours, so both see the same machine load; the
ratio is the median of the per-repetition ratios. Cases:

- ``import csv|tsv|jsonl``: ``triage new`` of a generated file (key, text, two scores,
  gold), against ``sqlite3 plain.db ".import --csv FILE t"`` of the equivalent CSV into a
  plain table (target: at most 1.2x);
- ``import parquet``: the same rows as Parquet (scores as doubles), against the shell's
  import of the same rows as CSV (target: at most 1.0x);
- ``import short6|quoted|extra4|long|ties3``: files shaped like real ones
  (``bench/_shapes.py``: 6-decimal scores imported with ``--positive pos``; texts the CSV
  quotes, with commas, doubled quotes and line breaks; four unmapped columns; texts of
  300-1,500 characters; 3-decimal scores), each against the shell's import of the same
  file (target: at most 1.2x);
- ``status``, ``gain``, ``advise``, ``agree``, ``adjudicate``: on a project of the same
  pool with ``--labels`` label events by two annotators (target: under 1 s; no anchor);
- ``export``: ``triage export P out.csv`` against the shell's CSV export of the same rows
  and columns: ``sqlite3 -csv -header same.db "SELECT * FROM t"``, where ``t`` is a plain
  typed table holding exactly what the export writes (key, text, rank, decile, scores,
  gold, label columns, meta), loaded once from one of our exports and not timed (target:
  at most 1.5x);
- ``export (candidates table)``: the same export against the shell's export of the bare
  candidates table (id, key, text, meta, gold: half the bytes, and none of the ranking or
  labels); shown for reference, no target.

Peak memory: Linux counts a child's memory from before its ``exec`` too, so this process
stays small (the inputs are prepared by a child process; nothing here imports numpy or
triage) and the figures are the commands' own. Inputs are generated once into ``--work``
(default: the temp directory) and reused. The
results go to ``bench/results.json`` and ``bench/results.md`` (``results-ROWS.*`` for
another ``--rows``); ``bench/update_docs.py`` copies the tables into ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

MAIN = str(ROOT / "main.py")
MAPPING = ["--text", "text", "--key", "key", "--score", "m1=m1", "--score", "m2=m2",
           "--gold", "gold", "--labels", "pos,neg"]
LEAD = ("status", "gain", "advise", "agree", "adjudicate")
EXPORT_SQL = "SELECT * FROM candidates"  # the reference case: the bare candidates table


def run(argv: list[str], stdout: Path | None = None) -> tuple[float, float, float]:
    """(wall seconds, peak RSS in MB, CPU seconds: user + system, every thread) of one
    process; raises if it fails."""
    out = open(stdout, "wb") if stdout else subprocess.DEVNULL  # noqa: SIM115
    try:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err = proc.stderr.read().decode() if proc.stderr else ""
    finally:
        if stdout:
            out.close()
    if proc.returncode:
        raise RuntimeError(f"{' '.join(argv)} failed ({proc.returncode}): {err[-2000:]}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def remove(*paths: Path) -> None:
    for path in paths:
        for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
            p.unlink(missing_ok=True)


def prepare(work: Path, rows: int, labels: int, project: bool = True) -> dict[str, Path]:
    """The input files and the labeled project (made once per size, then reused; not at
    all without ``project``, when only import cases run)."""
    from bench._generate import generate

    work.mkdir(parents=True, exist_ok=True)
    from bench._shapes import SHAPES, write_parquet, write_shape

    tag = f"{rows}"
    files = {"csv": work / f"pool-{tag}.csv", "tsv": work / f"pool-{tag}.tsv",
             "jsonl": work / f"pool-{tag}.jsonl", "parquet": work / f"pool-{tag}.parquet"}
    if not files["csv"].exists():
        print(f"generating {rows:,} rows ...", flush=True)
        generate(files["csv"], rows, gold=True)
    if not files["parquet"].exists():
        write_parquet(files["csv"], files["parquet"])
    for shape in SHAPES:
        files[shape] = work / f"{shape}-{tag}.csv"
        if not files[shape].exists():
            print(f"generating {rows:,} rows shaped {shape} ...", flush=True)
            write_shape(files[shape], shape, rows)
    if not files["tsv"].exists() or not files["jsonl"].exists():
        with open(files["csv"], encoding="utf-8", newline="") as src, \
                open(files["tsv"], "w", encoding="utf-8", newline="") as tsv, \
                open(files["jsonl"], "w", encoding="utf-8") as jsonl:
            reader = csv.reader(src)
            header = next(reader)
            tsv.write("\t".join(header) + "\n")
            numeric = {"m1", "m2"}
            for row in reader:
                tsv.write("\t".join(row) + "\n")
                obj = {h: (float(v) if h in numeric else v) for h, v in zip(header, row)}
                jsonl.write(json.dumps(obj, ensure_ascii=False) + "\n")
    if not project:
        return files
    project = work / f"labeled-{tag}-{labels}.triage"
    if not project.exists():
        print(f"building a project with {labels:,} labels ...", flush=True)
        scratch = work / "building.triage"
        remove(scratch)
        run([sys.executable, MAIN, "new", str(scratch), str(files["csv"]), *MAPPING])
        label_project(scratch, labels)
        os.replace(scratch, project)
    from triage.project import open_project

    with open_project(project) as opened:  # bring a cached file up to this schema
        backup = opened.backup
    if backup is not None:
        backup.unlink(missing_ok=True)
    conn = __import__("sqlite3").connect(project)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    files["project"] = project
    files["same"] = export_anchor(work, project)
    return files


def export_anchor(work: Path, project: Path) -> Path:
    """A plain database whose table ``t`` holds exactly the rows and columns ``triage
    export`` writes, typed as they are (integers, reals, text), for the shell to export."""
    same = work / f"{project.stem}-export.db"
    if same.exists():
        return same
    scratch, csv_path = work / "export-anchor.db", work / "export-anchor.csv"
    remove(scratch)
    run([sys.executable, MAIN, "export", str(project), str(csv_path)])
    with open(csv_path, encoding="utf-8", newline="") as handle:
        header = next(csv.reader(handle))
    kinds = {"rank": "INTEGER", "decile": "INTEGER", "labels": "INTEGER"}
    columns = ", ".join(
        f'"{name}" ' + ("REAL" if name.startswith("score_") else kinds.get(name, "TEXT"))
        for name in header)
    subprocess.run([shutil.which("sqlite3") or "sqlite3", str(scratch),
                    f"CREATE TABLE t({columns})", f".import --csv --skip 1 {csv_path} t"],
                   check=True)
    csv_path.unlink()
    os.replace(scratch, same)
    return same


def label_project(path: Path, count: int) -> None:
    """``count`` labels by two annotators, taking turns, as the desk would record them."""
    import numpy as np

    from triage.project import open_project

    rng = np.random.default_rng(13)
    with open_project(path) as project:
        sessions = [project.start_session(name) for name in ("ada", "bo")]
        for i in range(count):
            session = sessions[i % 2]
            item = project.next_candidate(session)
            if item is None:
                break
            value = "pos" if rng.random() < 0.3 else "neg"
            project.record_label(session, item.candidate_id, value, seconds=2.0)
        for session in sessions:
            project.end_session(session)
        project.checkpoint()
    conn = __import__("sqlite3").connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def cases(files: dict[str, Path], tmp: Path) -> list[dict]:
    """name, our command, the anchor's command (or None), target, and files to clear."""
    from bench._shapes import SHAPES

    py = [sys.executable, MAIN]
    shell = shutil.which("sqlite3")
    out: list[dict] = []
    plain, made = tmp / "plain.db", tmp / "made.triage"
    for kind in ("csv", "tsv", "jsonl", "parquet", *SHAPES):
        same = files[kind] if kind in SHAPES else files["csv"]  # Parquet: its rows as CSV
        out.append({"name": f"import {kind}", "target": 1.0 if kind == "parquet" else 1.2,
                    "clear": [plain, made],
                    "ours": py + ["new", str(made), str(files[kind]), *MAPPING,
                                  *(["--positive", "pos"] if kind == "short6" else [])],
                    "anchor": [shell, str(plain), f".import --csv {same} t"]
                    if shell else None})
    for command in LEAD:
        out.append({"name": command, "target_seconds": 1.0, "clear": [],
                    "ours": py + [command, str(files["copy"])], "anchor": None})
    export = py + ["export", str(files["copy"]), str(tmp / "out.csv")]
    out.append({"name": "export", "target": 1.5, "clear": [tmp / "out.csv"], "ours": export,
                "anchor": [shell, "-csv", "-header", str(files["same"]), "SELECT * FROM t"]
                if shell and "same" in files else None, "anchor_stdout": tmp / "shell.csv"})
    out.append({"name": "export (candidates table)", "target": None,
                "clear": [tmp / "out.csv"], "ours": export,
                "anchor": [shell, "-csv", "-header", str(files["copy"]), EXPORT_SQL]
                if shell else None, "anchor_stdout": tmp / "shell.csv"})
    return out


def measure(case: dict, repeat: int) -> dict:
    ours, anchor = [], []
    for _ in range(repeat):
        if case["anchor"]:
            remove(*case["clear"])
            anchor.append(run(case["anchor"], case.get("anchor_stdout")))
        remove(*case["clear"])
        ours.append(run(case["ours"]))
    result = {"name": case["name"], "runs": repeat,
              "ours_s": statistics.median(w for w, _, _ in ours),
              "ours_cpu_s": statistics.median(c for _, _, c in ours),
              "ours_rss_mb": max(m for _, m, _ in ours), "ours_all_s": [w for w, _, _ in ours],
              "ours_cpu_all_s": [c for _, _, c in ours]}
    if anchor:
        result.update(anchor_s=statistics.median(w for w, _, _ in anchor),
                      anchor_cpu_s=statistics.median(c for _, _, c in anchor),
                      anchor_rss_mb=max(m for _, m, _ in anchor),
                      anchor_all_s=[w for w, _, _ in anchor],
                      ratio=statistics.median(o[0] / a[0] for o, a in zip(ours, anchor)),
                      cpu_ratio=statistics.median(o[2] / a[2] for o, a in zip(ours, anchor)),
                      target=case["target"])
        result["met"] = None if case["target"] is None else result["ratio"] <= case["target"]
    else:
        result.update(target_seconds=case["target_seconds"])
        result["met"] = result["ours_s"] <= case["target_seconds"]
    return result


def markdown(report: dict) -> str:
    lines = [f"{report['rows']:,} rows, {report['labels']:,} labels; median of "
             f"{report['repeat']} alternating runs; {report['machine']}; load average "
             f"{report['load']} at start, {report.get('load_end', '?')} at the end (1, 5 and "
             "15 minutes; the machine is shared).", "",
             "| case | ours | anchor | ratio | target | met | CPU ours | CPU anchor | CPU ratio "
             "| peak RSS ours | anchor RSS |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["results"]:
        anchor = f"{r['anchor_s']:.2f} s" if "anchor_s" in r else "—"
        ratio = f"{r['ratio']:.2f}×" if "ratio" in r else "—"
        target = (f"≤ {r['target']}×" if r.get("target") else
                  f"< {r['target_seconds']:.0f} s" if "target_seconds" in r else "—")
        met = "—" if r["met"] is None else "yes" if r["met"] else "**no**"
        arss = f"{r['anchor_rss_mb']:.0f} MB" if "anchor_rss_mb" in r else "—"
        cpu = f"{r['ours_cpu_s']:.2f} s" if "ours_cpu_s" in r else "—"
        acpu = f"{r['anchor_cpu_s']:.2f} s" if "anchor_cpu_s" in r else "—"
        cratio = f"{r['cpu_ratio']:.2f}×" if "cpu_ratio" in r else "—"
        lines.append(f"| {r['name']} | {r['ours_s']:.2f} s | {anchor} | {ratio} | {target} | "
                     f"{met} | {cpu} | {acpu} | {cratio} | {r['ours_rss_mb']:.0f} MB | {arss} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--labels", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "triage-bench")
    parser.add_argument("--only", nargs="*", help="run only these cases (e.g. export status)")
    parser.add_argument("--no-write", action="store_true", help="print only; keep results.*")
    parser.add_argument("--save-as", metavar="STEM", help="write bench/STEM.json and "
                        "bench/STEM.md instead of results*.* (e.g. files-matrix)")
    parser.add_argument("--prepare-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--no-project", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.prepare_only:
        print(json.dumps({k: str(v) for k, v in prepare(args.work, args.rows, args.labels,
                                                         not args.no_project).items()}))
        return 0
    # An installed copy has its bytecode; this checkout may not (PYTHONDONTWRITEBYTECODE is
    # set here), and compiling ~70 modules at every start is not what a user pays.
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "triage"),
                    str(ROOT / "main.py")], check=True)
    # Only import cases: no labeled project to build (minutes at five million rows).
    imports_only = bool(args.only) and all(n.startswith("import") for n in args.only)
    done = subprocess.run([sys.executable, __file__, "--prepare-only", "--work", str(args.work),
                           "--rows", str(args.rows), "--labels", str(args.labels)]
                          + (["--no-project"] if imports_only else []),
                          check=True, capture_output=True, text=True)
    files = {k: Path(v) for k, v in json.loads(done.stdout.splitlines()[-1]).items()}
    tmp = Path(tempfile.mkdtemp(prefix="bench-e2e-", dir=args.work))
    files["copy"] = tmp / "project.triage"  # commands work on a copy: status may write
    if "project" in files:
        shutil.copyfile(files["project"], files["copy"])
    report = {"rows": args.rows, "labels": args.labels, "repeat": args.repeat,
              "machine": f"{platform.machine()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}",
              "load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
              "command": "python bench/bench_e2e.py " + " ".join(sys.argv[1:]),
              "results": []}
    try:
        for case in cases(files, tmp):
            if args.only and case["name"] not in args.only and \
                    case["name"].split()[0] not in args.only:  # "export": both cases
                continue
            result = measure(case, args.repeat)
            report["results"].append(result)
            print(json.dumps({k: v for k, v in result.items() if not k.endswith("all_s")}),
                  flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report["load_end"] = " ".join(f"{x:.1f}" for x in os.getloadavg())
    text = markdown(report)
    print(text)
    if not args.no_write:  # the default size is "results", others "results-ROWS"
        stem = args.save_as or ("results" if args.rows == 1_000_000 else
                                f"results-{args.rows}")
        (HERE / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n",
                                           encoding="utf-8")
        (HERE / f"{stem}.md").write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
