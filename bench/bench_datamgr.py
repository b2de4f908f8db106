"""Benchmark: the data manager at a million candidates, against the sqlite3 shell.

Builds (once, kept in ``--dir``) a project of ``--rows`` candidates (``bench/_generate.py``:
short phrases from a fixed vocabulary, two models) with a few thousand labels by two
annotators, then, in one child process each, measures what the data manager does:

- ``index``: building the full-text index from nothing (:func:`triage.store.search.
  build_index`), against the sqlite3 shell building the same FTS5 index over a copy of
  the file (``INSERT INTO t(t) VALUES('rebuild')``);
- ``first_page``: the first screen: the label events read, the default query (every
  candidate by rank) and the cells of the first 100 rows;
- ``search``: one word of the text (every candidate holding it, in rank order, and the
  first page of them), against the shell running the same ``MATCH`` in a whole process;
- ``filter`` / ``sort``: the labels of one annotator, a decile with a label state, all
  candidates by key descending (``sort_first``: reading the key order from the file, which
  the data manager does once, in the background, after its first answer), each with its
  first page; the word again, sorted by key, and with a label filter.

Targets: search, filter and sort at most 0.3 s; the first page at most 0.5 s. The times
are the best of ``--repeat`` runs inside the child, whose start (Python, numpy) is not
counted; the shell's time is its whole process.

    .venv/bin/python bench/bench_datamgr.py [--rows 1000000] [--dir /work/tmp/bench-dm]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
TARGETS = {"search_s": 0.3, "filter_s": 0.3, "sort_s": 0.3, "first_page_s": 0.5}
WORD = "cake"

CHILD = r"""
import json, sys, time
from triage.project import open_project
from triage.project.datamgr import Query, Viewer, load_catalog, run_query
from triage.store import candidates, search
from triage.views.data_manager import page

path, word, repeat, what = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
lead = Viewer("lead", lead=True)
out = {}
with open_project(path) as project:
    db = project.db
    if what == "index":
        db.execute("INSERT INTO _text_search(_text_search) VALUES ('delete-all')")
        db.execute("DELETE FROM _text_search_state")
        start = time.perf_counter()
        candidates.ensure_key_index(db)      # an import leaves it out; built once
        out["key_index_s"] = time.perf_counter() - start
        start = time.perf_counter()
        search.build_index(db)
        out["index_s"] = time.perf_counter() - start
    else:
        r = project.state.ranking()
        best = {}
        def timed(name, fn):
            for _ in range(repeat):
                start = time.perf_counter()
                value = fn()
                best[name] = min(best.get(name, 1e9), time.perf_counter() - start)
            return value
        def first(query, cat):
            ids = run_query(db, cat, query, lead)
            page(project, cat, ids[:100], lead)
            return ids
        def screen():
            cat = load_catalog(db, r.order, r.scores, r.ranks, r.model.name)
            first(Query(), cat)
            return cat
        cat = timed("first_page_s", screen)
        found = timed("search_s", lambda: first(Query(text=word), cat))
        timed("filter_s", lambda: first(Query(annotator="bob"), cat))
        timed("filter_decile_s", lambda: first(Query(decile=3, label="idiom"), cat))
        def by_key_afresh():
            cat.key_order = cat.key_rank = None   # read from the file, as on first use
            return first(Query(sort="key", descending=True), cat)
        timed("sort_first_s", by_key_afresh)
        timed("sort_s", lambda: first(Query(sort="key", descending=True), cat))
        timed("search_by_key_s", lambda: first(Query(text=word, sort="key"), cat))
        timed("search_and_filter_s", lambda: first(Query(text=word, label="idiom"), cat))
        out.update(best, found=int(found.size), pool=cat.pool)
print(json.dumps(out))
"""


def build(folder: Path, rows: int) -> Path:
    """The benchmark's project (made once, then reused), with labels by ada and bob."""
    from bench._generate import generate

    project = folder / f"dm-{rows}.triage"
    if project.exists():
        return project
    pool = generate(folder / f"dm-{rows}.csv", rows)
    done = subprocess.run([sys.executable, "-m", "triage.cli", "new", str(project), str(pool),
                           "--text", "text", "--key", "key", "--score", "m1=m1",
                           "--score", "m2=m2", "--labels", "idiom:i,literal:l",
                           "--positive", "idiom"], cwd=ROOT, capture_output=True, text=True)
    pool.unlink()
    if done.returncode != 0:
        project.unlink(missing_ok=True)
        raise SystemExit(f"triage new failed: {done.stderr}")
    from triage.project import open_project

    with open_project(project) as p:
        ada, bob = p.start_session("ada"), p.start_session("bob")
        for n in range(1500):
            item = p.next_candidate(ada)
            if item is None:
                break
            p.record_label(ada, item.candidate_id, "idiom" if n % 3 else "literal")
            if n % 2 == 0:
                p.record_label(bob, item.candidate_id, "idiom" if n % 5 else "literal")
    return project


def child(project: Path, what: str, repeat: int) -> dict:
    """Run the measuring child to its end; what it printed."""
    done = subprocess.run([sys.executable, "-c", CHILD, str(project), WORD, str(repeat), what],
                          cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def shell(db: Path, sql: str) -> tuple[float, str]:
    """The sqlite3 shell running ``sql`` on ``db`` as a whole process: (seconds, output)."""
    start = time.perf_counter()
    done = subprocess.run(["sqlite3", str(db), sql], capture_output=True, text=True, check=True)
    return time.perf_counter() - start, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/work/tmp/bench-dm"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    project = build(args.dir, args.rows)
    result = child(project, "index", 1)
    copy = args.dir / "anchor.sqlite"
    shutil.copyfile(project, copy)
    shell(copy, "DROP TABLE IF EXISTS a; CREATE VIRTUAL TABLE a USING fts5(text, "
                "content='candidates', content_rowid='id')")
    result["sqlite3_index_s"], _ = shell(copy, "INSERT INTO a(a) VALUES ('rebuild')")
    copy.unlink()
    result.update(child(project, "query", args.repeat))
    seconds, out = shell(project, "SELECT rowid FROM _text_search "
                                  f"WHERE _text_search MATCH '\"{WORD}\"*' ORDER BY rowid")
    result["sqlite3_search_s"], result["sqlite3_found"] = seconds, len(out.split())
    result["search_vs_sqlite3"] = result["search_s"] / result["sqlite3_search_s"]
    result["index_vs_sqlite3"] = result["index_s"] / result["sqlite3_index_s"]
    result["targets_met"] = all(result[k] <= v for k, v in TARGETS.items())
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
