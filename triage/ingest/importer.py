"""Importing the candidate pool and model scores into a project: validate, then one transaction.

Everything is checked before a byte is written (the file through :func:`read_table`, the
column mapping against the file and the project). The writes then run in a single
transaction, so an error, a cancel from the progress callback or a crash leaves the
project exactly as it was.

Ranks are frozen at import: rank 1 is the highest score. Equal scores are never ordered
by their position in the file. Tied items are ordered by a keyed hash (SipHash) of their
candidate key under a key derived from the project seed and the model name: a seeded
pseudo-random permutation that is the same however the input rows are shuffled.
``models.tied_items`` records how many items share their score with another.

Speed (a million rows must import about as fast as raw ``executemany``): candidate ids
are 1..N in file order so rows append to the table b-tree, scores are inserted in
(model_id, rank) order so the WITHOUT ROWID primary key appends too, and inserts stream
from ``zip`` over plain lists instead of building row tuples first.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import itertools
import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import sqlite_utils

from triage.base.errors import InputError, Problem, TriageError
from triage.ingest.reader import Table, decode_utf8, format_of, read_table
from triage.ingest.writer import write_table
from triage.store import bulk, candidates, provenance
from triage.store.records import now_iso, save_ranking, set_project_info

Progress = Callable[[int, int], "bool | None"]
DEFAULT_SEED = 20181
CHUNK = 50_000
PREVIEW_BYTES = 1 << 20
IMPORT_CACHE_KIB = 256 * 1024  # page cache during import; restored afterwards


@dataclass(frozen=True)
class ColumnMapping:
    """Which file column plays which part. ``scores`` pairs are (model name, column).

    ``key`` None: the key is the row number among the imported rows ("1", "2", ...).
    ``metadata`` None: every column not used as key, text, score or gold.
    """

    text: str
    key: str | None = None
    scores: tuple[tuple[str, str], ...] = ()
    gold: str | None = None
    metadata: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ImportResult:
    """What an import did. ``tied_items`` maps each added model to its tied-item count."""

    source_file: str
    rows_imported: int
    rows_rejected: int
    rejects_path: str | None
    models: tuple[str, ...]
    tied_items: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0


def preview(path: str | Path, rows: int = 20) -> tuple[list[str], list[list[str]]]:
    """Header and the first ``rows`` rows as text, for the new-project dialog.

    Reads at most the first MiB, so it is instant on any file. Rows are not validated.
    """
    path = Path(path)
    kind = format_of(path)
    try:
        with open(path, "rb") as handle:
            data = handle.read(PREVIEW_BYTES)
            more = bool(handle.read(1))
    except OSError as error:
        raise InputError([Problem(str(path), None, None, f"cannot be read ({error})")]) from error
    if more and b"\n" in data:
        data = data[: data.rindex(b"\n") + 1]  # never cut a character or a line in half
    text = decode_utf8(path, data)
    if kind == "jsonl":
        objects: list[dict[str, object]] = []
        for line in text.split("\n"):
            if line.strip() and len(objects) < rows:
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(obj, dict):
                    objects.append(obj)
        header = list(dict.fromkeys(k for obj in objects for k in obj))
        return header, [[_cell(obj.get(k)) for k in header] for obj in objects]
    import csv
    import io

    reader = csv.reader(io.StringIO(text, newline=""), delimiter="\t" if kind == "tsv" else ",")
    records = [r for r in itertools.islice((r for r in reader if r), rows + 1)]
    if not records:
        return [], []
    return [h.strip() for h in records[0]], records[1:]


def _cell(value: object) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _project_seed(db: sqlite_utils.Database) -> int:
    value = bulk.stored_setting(db, "seed")
    return int(json.loads(value)) if value is not None else DEFAULT_SEED


def _check_models(db: sqlite_utils.Database, path: Path,
                  scores: Sequence[tuple[str, str]]) -> None:
    names = [name for name, _ in scores]
    if not names:
        raise TriageError("give at least one model score column (NAME=COLUMN)")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise TriageError(f"model name(s) {', '.join(map(repr, dupes))} given twice")
    taken = bulk.model_names(db)
    clash = [n for n in names if n in taken]
    if clash:
        raise TriageError(f"{path}: the project already has model(s) "
                          f"{', '.join(map(repr, clash))}; choose another name")
    if any(not name.strip() for name in names):
        raise TriageError("model names must not be empty")


def rank_scores(scores: np.ndarray, keys: Sequence[str], seed: int, model: str
                ) -> tuple[np.ndarray, int]:
    """Row indexes in rank order (index 0 = rank 1) and the number of tied items.

    Descending score; ties ordered by a seeded keyed hash of the key, never by file order.
    """
    # Any sort will do: equal scores are put in their seeded order just below.
    order = np.argsort(-scores)
    ordered = scores[order]
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return order, 0
    tied = np.zeros(len(scores), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    # Re-order only the tied positions: by tie group (keeps groups in place), then hash.
    positions = np.flatnonzero(tied)
    group = np.cumsum(np.concatenate(([True], ~same)))[positions]
    rows = order[positions]
    hash_key = hashlib.sha256(f"{seed}:{model}".encode()).hexdigest()[:16]
    hashes = pd.util.hash_array(np.asarray([keys[i] for i in rows.tolist()], dtype=object),
                                hash_key=hash_key)
    order[positions] = rows[np.lexsort((hashes, group))]
    return order, len(positions)


class _Ticker:
    """Maps phases of the import onto one progress count; False from the callback cancels."""

    def __init__(self, progress: Progress | None, models: int):
        self.progress = progress
        self.passes = 2 + models  # read, candidates, one pass per model
        self.total = 0
        self.done = 0

    def start_writing(self, rows: int, passes_done: int = 1) -> None:
        self.total = rows * self.passes
        self.done = rows * passes_done

    def read(self, done: int, estimate: int) -> bool | None:
        if self.progress is None:
            return True
        return self.progress(done, max(estimate, done) * self.passes)

    def advance(self, rows: int) -> None:
        self.done += rows
        if self.progress is not None and self.progress(self.done, self.total) is False:
            raise TriageError("cancelled")


def _insert_scores(db: sqlite_utils.Database, path: Path, column: str, model: str,
                   values: np.ndarray, ids: np.ndarray, ranked: tuple[np.ndarray, int],
                   ticker: _Ticker) -> int:
    """Add one model and its ranking (from :func:`rank_scores`); returns its tied items."""
    order, tied = ranked
    model_id = bulk.insert_model(db, model, column, str(path), _now(), tied)
    save_ranking(db, model_id, ids[order], values[order])
    ticker.advance(len(order))
    return tied


def _now() -> str:
    return now_iso()


def _record_source(db: sqlite_utils.Database, path: Path, kind: str, models: list[str],
                   rows: int) -> None:
    """Note the imported file, its SHA-256 and when, for the report's provenance."""
    with open(path, "rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    provenance.record_source(db, {"file": str(path.resolve()), "sha256": digest,
                                  "imported_at": _now(), "kind": kind, "models": models,
                                  "rows": rows})


def _metadata(table: Table, names: list[str]) -> list[str | None] | None:
    if not names:
        return None
    columns = [table.column(n) for n in names]
    columns = [c.tolist() if isinstance(c, np.ndarray) else c for c in columns]
    return [json.dumps(dict(zip(names, values)), ensure_ascii=False) for values in zip(*columns)]


def _write_rejects(path: Path, table: Table) -> str | None:
    if not table.rejected:
        return None
    target = path.with_name(f"{path.stem}.rejected.csv")
    names = ["line", "reason", *table.columns]
    rows = ({"line": line, "reason": reason, **raw} for line, raw, reason in table.rejected)
    write_table(target, names, rows, fmt="csv")
    return str(target)


def _without_gc(func):
    """Run ``func`` with the cyclic GC paused: millions of fresh tuples would trigger it
    hundreds of times over a heap of a million row lists, for nothing (no cycles here)."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        enabled = gc.isenabled()
        gc.disable()
        try:
            return func(*args, **kwargs)
        finally:
            if enabled:
                gc.enable()
    return wrapper


@_without_gc
def import_candidates(db: sqlite_utils.Database, path: str | Path, mapping: ColumnMapping, *,
                      skip_invalid: bool = False, progress: Progress | None = None,
                      seed: int | None = None, table: Table | None = None,
                      after: Callable[[sqlite_utils.Database], None] | None = None,
                      kind: str = "pool") -> ImportResult:
    """Create the candidate pool from ``path`` with each mapped model's ranking.

    Only an empty project accepts a pool; later models come with :func:`add_scores`.
    ``seed`` None takes the project's ``seed`` setting. With ``skip_invalid`` the bad rows
    are left out and written with their line and reason to ``<stem>.rejected.csv``.
    ``table`` is a table already read from ``path`` (the Prodigy and Label Studio readers
    make one); ``after(db)`` runs inside the import's one transaction, after the pool is
    written (it adds the labels those files carry), so they stand or fall together.
    """
    started = time.perf_counter()
    path = Path(path)
    seed = _project_seed(db) if seed is None else seed
    if candidates.exist(db):
        raise TriageError("this project already has its candidates; add a later model's "
                          "scores with --add-scores (matched by --key)")
    _check_models(db, path, mapping.scores)
    score_columns = [column for _, column in mapping.scores]
    used = [c for c in (mapping.key, mapping.text, mapping.gold) if c] + score_columns
    required = list(dict.fromkeys(used + list(mapping.metadata or ())))
    ticker = _Ticker(progress, len(mapping.scores))
    if table is None:
        table = read_table(path, numeric=score_columns, required=required,
                           nonempty=[c for c in (mapping.text, mapping.key) if c],
                           unique=[mapping.key] if mapping.key else [],
                           skip_invalid=skip_invalid, progress=ticker.read)
    n = len(table)
    if n == 0:
        raise TriageError(f"{path}: no candidates to import"
                          + (f" ({len(table.rejected)} rows rejected)" if table.rejected else ""))
    ticker.start_writing(n)
    keys = table.strings(mapping.key) if mapping.key else [str(i) for i in range(1, n + 1)]
    meta_names = (list(mapping.metadata) if mapping.metadata is not None
                  else [c for c in table.columns if c not in used])
    metas = _metadata(table, meta_names)
    golds = None
    if mapping.gold:
        golds = [g if g.strip() else None for g in table.column(mapping.gold)]
    ids = np.arange(1, n + 1, dtype=np.int64)
    tied: dict[str, int] = {}
    # Rank the models on a second thread while SQLite writes the candidates: sorting and
    # hashing in numpy/pandas release the GIL, so the two overlap on a two-core machine.
    with ThreadPoolExecutor(max_workers=1) as pool:
        rankings = {model: pool.submit(rank_scores, table.numbers(column), keys, seed, model)
                    for model, column in mapping.scores}
        _write_pool(db, path, mapping, n, keys, table, metas, golds, ids, rankings, tied,
                    ticker, after=after, kind=kind)
    rejects = _write_rejects(path, table)
    return ImportResult(str(path), n, len(table.rejected), rejects,
                        tuple(m for m, _ in mapping.scores), tied,
                        time.perf_counter() - started)


def _write_pool(db, path, mapping, n, keys, table, metas, golds, ids, rankings, tied,
                ticker, *, after=None, kind: str = "pool") -> None:
    """The one transaction of an import: candidates, then each model's ranking."""
    # A larger page cache (fewer b-tree page reloads) and the key index's sort kept in
    # memory rather than in temporary files while importing; both restored after.
    with bulk.import_cache(db, IMPORT_CACHE_KIB), db.atomic():
        if candidates.exist(db):  # someone imported while we were reading
            raise TriageError("this project already has its candidates; use --add-scores")
        # Absent columns are left out of the INSERT (binding NULLs costs as much).
        columns = [keys, table.column(mapping.text)]
        columns += [c for c in (metas, golds) if c is not None]
        # Keys were checked unique while reading; the index is built once, at the end,
        # inside the same transaction (a failure restores it with everything else).
        bulk.drop_key_index(db)
        bulk.insert_candidates(db, zip(*columns), meta=metas is not None,
                               gold=golds is not None, chunk=CHUNK, advance=ticker.advance)
        first, last = bulk.id_range(db)
        if (first, last) != (1, n):
            raise TriageError(f"internal error: candidate ids {first}..{last}, expected 1..{n}")
        bulk.create_key_index(db)
        for model, column in mapping.scores:
            tied[model] = _insert_scores(db, path, column, model, table.column(column), ids,
                                         rankings[model].result(), ticker)
        set_project_info(db, "source_file", str(path.resolve()))
        _record_source(db, path, kind, [m for m, _ in mapping.scores], n)
        if after is not None:
            after(db)


@_without_gc
def add_scores(db: sqlite_utils.Database, path: str | Path, *, key: str,
               scores: Sequence[tuple[str, str]], progress: Progress | None = None,
               seed: int | None = None) -> ImportResult:
    """Add later models' scores for the existing pool, matched by the ``key`` column.

    Every key in the file must be a candidate of the project and every candidate must get
    a score. Candidates and labels are not touched.
    """
    started = time.perf_counter()
    path = Path(path)
    seed = _project_seed(db) if seed is None else seed
    _check_models(db, path, scores)
    pool = candidates.ids_by_key(db)
    if not pool:
        raise TriageError("this project has no candidates yet; import the pool first")
    columns = [c for _, c in scores]
    ticker = _Ticker(progress, len(scores) - 1)
    table = read_table(path, numeric=columns, required=[key], nonempty=[key], unique=[key],
                       progress=ticker.read)
    keys = table.strings(key)
    ids_list = [pool.get(k) for k in keys]
    unknown = [i for i, cid in enumerate(ids_list) if cid is None]
    if unknown:
        raise InputError([Problem(str(path), int(table.lines[i]), key,
                                  f"key {keys[i]!r} is not a candidate of this project")
                          for i in unknown[:1000]], total=len(unknown))
    if len(keys) != len(pool):
        missing = sorted(set(pool) - set(keys))
        shown = ", ".join(repr(k) for k in missing[:5])
        raise TriageError(f"{path}: {len(missing)} candidate(s) of the project have no row "
                          f"in this file (e.g. {shown}); every candidate needs a score")
    ids = np.asarray(ids_list, dtype=np.int64)
    ticker.start_writing(len(keys))
    tied: dict[str, int] = {}
    with bulk.import_cache(db, IMPORT_CACHE_KIB), db.atomic():
        for model, column in scores:
            values = table.numbers(column)
            tied[model] = _insert_scores(db, path, column, model, values, ids,
                                         rank_scores(values, keys, seed, model), ticker)
        _record_source(db, path, "scores", [m for m, _ in scores], len(keys))
    return ImportResult(str(path), len(keys), 0, None, tuple(m for m, _ in scores), tied,
                        time.perf_counter() - started)
