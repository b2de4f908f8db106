"""Importing the candidate pool and model scores into a project: validate, then one transaction.

Everything is checked before anything is committed (the file through :func:`read_table`,
or batch by batch as it streams in; the column mapping against the file and the
project). The writes run in a single transaction, so an error, a cancel from the
progress callback or a crash leaves the project's content exactly as it was.

Ranks are frozen at import: rank 1 is the highest score. Equal scores are never ordered
by their position in the file. Tied items are ordered by a keyed hash (SipHash) of their
candidate key under a key derived from the project seed and the model name: a seeded
pseudo-random permutation that is the same however the input rows are shuffled.
``models.tied_items`` records how many items share their score with another.

Speed (a million rows must import about as fast as the ``sqlite3`` shell's ``.import``):
a clean file is streamed (:mod:`triage.ingest.poolstream`): Arrow's C++ readers parse it
batch by batch on a reader thread while SQLite stores the batches (ADBC bulk ingest, no
Python object per value, in a rollback journal so each page is written once); the models
are ranked when the reader is done, on its thread while SQLite is still busy when the
file fitted in the read-ahead queue, else after the rows, one model at a time, so memory
stays bounded. Anything unclean goes the careful way (:func:`read_table`), which reports
file, line and column. Candidate ids are 1..N in file order so rows append to the table
b-tree, and the unique key index is left for the first look-up by key to build (keys
were checked unique while reading).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sqlite_utils

from triage.base import arrow
from triage.base.errors import InputError, Problem, TriageError
from triage.base.jobs import lane
from triage.base.progress import Progress as Progress
from triage.ingest import import_parts as parts
from triage.ingest import metajson
from triage.ingest import read as reading
from triage.ingest.progress import Ticker as _Ticker
from triage.ingest.ranking import rank_scores as rank_scores
from triage.ingest.read import Dialect, NotClean, Table, may_stream, read_table
from triage.store import bulk, candidates, provenance
from triage.store.poolwrite import NewModel, Plan, warmed, write_pool
from triage.store.records import now_iso, save_ranking

DEFAULT_SEED = parts.DEFAULT_SEED
CHUNK = 50_000


@dataclass(frozen=True)
class ColumnMapping:
    """Which file column plays which part. ``scores`` pairs are (model name, column).

    ``key`` None: the key is the row number among the imported rows ("1", "2", ...).
    ``metadata`` None: every column not used as key, text, score or gold.
    ``sheet``: the sheet of a spreadsheet (None: the first); other files ignore it.
    ``image``: the column holding each candidate's picture (a path, ``file://`` URI or
    URL, see :mod:`triage.base.pictures`). With an image, ``text`` may be empty: the image
    column then stands as the text too; otherwise the text is the picture's caption.
    """

    text: str
    key: str | None = None
    scores: tuple[tuple[str, str], ...] = ()
    gold: str | None = None
    metadata: tuple[str, ...] | None = None
    sheet: str | None = None
    image: str | None = None
    dialect: Dialect | None = None  # how a text file is written (None: as its extension says)


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


def _check_roles(mapping: ColumnMapping, score_columns: list[str]) -> None:
    """A column is a model's score or plays another part, not both (a gold label that is
    also a model would grade the model by itself)."""
    for role, column in (("text", mapping.text), ("key", mapping.key),
                         ("gold label", mapping.gold), ("image", mapping.image)):
        if column and column in score_columns:
            raise TriageError(f"column {column!r} is chosen both as the {role} and as a "
                              f"model's score; a column can be one or the other")



def _insert_scores(db: sqlite_utils.Database, path: Path, column: str, model: str,
                   values: np.ndarray, ids: np.ndarray, ranked: tuple[np.ndarray, int],
                   ticker: _Ticker) -> int:
    """Add one model and its ranking (from :func:`rank_scores`); returns its tied items."""
    order, tied = ranked
    model_id = bulk.insert_model(db, model, column, str(path), now_iso(), tied)
    save_ranking(db, model_id, ids[order], values[order])
    ticker.advance(len(order))
    return tied


def _new_model(path: Path, column: str, model: str, values: np.ndarray,
               ranked: tuple[np.ndarray, int]) -> NewModel:
    """A pool model for :func:`write_pool`: candidate ids are row indexes + 1."""
    order, tied = ranked
    return NewModel(model, column, str(path), now_iso(), tied, order + 1, values[order])


def _metadata(table: Table, names: list[str]) -> Any:
    """Each row's JSON object of the ``names`` columns (built by Arrow); None for none."""
    if not names:
        return None
    return metajson.objects(names, [table.data[n] for n in names])


def _candidate_rows(table: Table, mapping: ColumnMapping, used: list[str]) -> Any:
    """The Arrow table of candidates: key, text and, when there are any, meta and gold."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(table)
    keys = (table.arrow(mapping.key) if mapping.key else
            pc.cast(arrow.from_numpy(np.arange(1, n + 1, dtype=np.int64)), pa.large_string()))
    columns = {"key": keys, "text": table.arrow(mapping.text)}
    meta_names = (list(mapping.metadata) if mapping.metadata is not None
                  else [c for c in table.columns if c not in used])
    metas = _metadata(table, meta_names)
    if metas is not None:
        columns["meta"] = metas
    if mapping.gold:  # a blank gold cell is no gold label
        gold = table.arrow(mapping.gold)
        columns["gold"] = pc.if_else(reading.blank(gold), pa.nulls(n, gold.type), gold)
    return pa.table(columns)


@parts.without_gc
def import_candidates(db: sqlite_utils.Database, path: str | Path, mapping: ColumnMapping, *,
                      skip_invalid: bool = False, progress: Progress | None = None,
                      seed: int | None = None, table: Table | None = None,
                      after: Callable[[sqlite_utils.Database], None] | None = None,
                      kind: str = "pool", plan: Plan | None = None,
                      writer: Callable[..., None] = write_pool) -> ImportResult:
    # long: three ways in (the stream, the big file checked as it streams, the table read)
    """Create the candidate pool from ``path`` with each mapped model's ranking.

    Only an empty project accepts a pool; later models come with :func:`add_scores`.
    ``seed`` None takes the project's ``seed`` setting. With ``skip_invalid`` the bad rows
    are left out and written with their line and reason to ``<stem>.rejected.csv``.
    ``table`` is a table already read from ``path`` (the Prodigy and Label Studio readers
    make one); ``after(db)`` runs inside the import's one transaction, after the pool is
    written (it adds the labels those files carry), so they stand or fall together.
    ``plan(model)`` may give the overlap plan to store with a model (see ``write_pool``).
    ``writer`` writes the pool: :func:`write_pool` into this file (streamed when clean),
    or the team store's writer to a server (:func:`triage.store.pg.ingest.pool_writer`).
    """
    started = time.perf_counter()
    path = Path(path)
    if writer is write_pool and after is None:
        # The bulk writer's child starts now, while this process reads the file.
        with warmed(db, path):
            return _import_candidates(db, path, mapping, skip_invalid=skip_invalid,
                                      progress=progress, seed=seed, table=table, kind=kind,
                                      plan=plan, started=started)
    return _import_candidates(db, path, mapping, skip_invalid=skip_invalid, progress=progress,
                              seed=seed, table=table, after=after, kind=kind, plan=plan,
                              writer=writer, started=started)


def _import_candidates(db: sqlite_utils.Database, path: Path, mapping: ColumnMapping, *,
                       skip_invalid: bool, progress: Progress | None, seed: int | None,
                       table: Table | None, kind: str, plan: Plan | None, started: float,
                       after: Callable[[sqlite_utils.Database], None] | None = None,
                       writer: Callable[..., None] = write_pool) -> ImportResult:
    # long: the fast path first, then the careful one, as import_candidates says
    mapping = parts.with_image(mapping)
    seed = parts.project_seed(db) if seed is None else seed
    if candidates.exist(db):
        raise TriageError("this project already has its candidates; add a later model's "
                          "scores with --add-scores (matched by --key)")
    parts.check_models(db, path, mapping.scores)
    score_columns = [column for _, column in mapping.scores]
    _check_roles(mapping, score_columns)
    used = [c for c in (mapping.key, mapping.text, mapping.gold) if c] + score_columns
    required = list(dict.fromkeys(used + list(mapping.metadata or ())
                                  + ([mapping.image] if mapping.image else [])))
    ticker = _Ticker(progress, len(mapping.scores))
    read = functools.partial(read_table, path, numeric=score_columns, required=required,
                             nonempty=[c for c in (mapping.text, mapping.key) if c],
                             skip_invalid=skip_invalid, progress=ticker.read,
                             sheet=mapping.sheet, dialect=mapping.dialect)
    # Keys are checked unique beside the write, on the ranking thread (a hash table over
    # the keys, off the writing thread's way); duplicates roll the write back and the
    # file is read again with the check, which reports them (or drops them when skipping).
    if table is None and after is None and may_stream(mapping.dialect, path):
        streamed = _stream(db, path, mapping, ticker=ticker, seed=seed, kind=kind, plan=plan,
                           writer=writer)
        if streamed is not None:
            return ImportResult(str(path), streamed[0], 0, None,
                                tuple(m for m, _ in mapping.scores), streamed[1],
                                time.perf_counter() - started)
        if reading.suits(path):  # too big to read whole: checked as it streams
            done = reading.import_checked(path, reading.Checks(
                score_columns, required, read.keywords["nonempty"], mapping.key), skip_invalid,
                ticker.read, lambda clean: _stream(db, clean, mapping, ticker=ticker, seed=seed,
                                                   kind=kind, plan=plan, origin=path,
                                                   writer=writer))
            return ImportResult(str(path), done[0], done[2], done[3], tuple(
                m for m, _ in mapping.scores), done[1], time.perf_counter() - started)
    given = table is not None
    table = table if table is not None else read()
    write = functools.partial(_import_table, db, path, mapping, used=used, ticker=ticker,
                              seed=seed, after=after, kind=kind, plan=plan, writer=writer)
    try:
        tied = write(table)
    except _DuplicateKeys:
        if given:
            raise TriageError(f"{path}: candidate keys are not unique") from None
        table = read(unique=[mapping.key] if mapping.key else [])
        tied = write(table)
    rejects = reading.write_rejects(path, table.columns, table.rejected)
    return ImportResult(str(path), len(table), len(table.rejected), rejects,
                        tuple(m for m, _ in mapping.scores), tied,
                        time.perf_counter() - started)


def _stream(db: sqlite_utils.Database, path: Path, mapping: ColumnMapping, *, ticker: _Ticker,
            seed: int, kind: str, plan: Plan | None, origin: Path | None = None,
            writer: Callable[..., None] = write_pool) -> tuple[int, dict[str, int]] | None:
    """(rows, tied items) of a clean file imported as a stream; None when it is not
    clean (nothing was written), for the careful path to read (see ``poolstream``).
    ``origin``: the file ``path`` is the checked copy of (recorded as the source)."""
    from triage.ingest import poolbatch, poolstream

    shape = poolbatch.Shape(mapping.text, mapping.key, mapping.gold,
                         tuple(c for _, c in mapping.scores), mapping.metadata)
    sources = provenance.sources(db)
    models = [m for m, _ in mapping.scores]

    source = origin or path

    def entry(rows: int, digest: str) -> list[tuple[str, str]]:
        made = parts.source_entry(source, kind, models, rows,
                                  digest if origin is None else parts.file_digest(source))
        return [("source_file", str(source.resolve())),
                provenance.sources_row(sources + [made]), *parts.image_rows(mapping, source)]

    try:
        return poolstream.import_stream(db, path, shape, mapping.scores, seed=seed,
                                        ticker=ticker, chunk=CHUNK, entry=entry, plan=plan,
                                        writer=writer)
    except NotClean:
        return None


class _DuplicateKeys(Exception):
    """The keys of the table being written are not unique (the write is rolled back)."""


def _import_table(db: sqlite_utils.Database, path: Path, mapping: ColumnMapping,
                  table: Table, *, used: list[str], ticker: _Ticker, seed: int,
                  after: Callable[[sqlite_utils.Database], None] | None,
                  kind: str, plan: Plan | None,
                  writer: Callable[..., None] = write_pool) -> dict[str, int]:
    """Write a read table as the pool in one transaction; returns each model's tied items.

    The file's provenance entry goes in the same transaction (its SHA-256 is computed on
    the ranking thread, beside the write); ``after(db)`` too, which needs our own
    connection, so the rows then go in through it (see :mod:`triage.store.poolwrite`).
    """
    n = len(table)
    if n == 0:
        raise TriageError(f"{path}: no candidates to import"
                          + (f" ({len(table.rejected):,} row{'s' * (len(table.rejected) != 1)} "
                             "rejected)" if table.rejected else ""))
    ticker.start_writing(n)
    rows = _candidate_rows(table, mapping, used)
    keys = rows.column("key")
    tied: dict[str, int] = {}
    # Rank the models on a second thread while SQLite writes the candidates: sorting and
    # hashing in numpy release the GIL, and so does the bulk insert.
    sources = provenance.sources(db)
    with lane("import-rank", 1) as pool:
        unique = pool.submit(reading.all_unique, keys) if mapping.key else None
        digest = pool.submit(parts.file_digest, path)
        rankings = {model: pool.submit(rank_scores, table.numbers(column), keys, seed, model)
                    for model, column in mapping.scores}

        def models() -> list[NewModel]:
            if unique is not None and not unique.result():
                raise _DuplicateKeys()
            out = [_new_model(path, column, model, table.numbers(column),
                              rankings[model].result()) for model, column in mapping.scores]
            tied.update((m.name, m.tied_items) for m in out)
            return out

        def info() -> list[tuple[str, str]]:
            entry = parts.source_entry(path, kind, [m for m, _ in mapping.scores], n,
                                  digest.result())
            return [("source_file", str(path.resolve())),
                    provenance.sources_row(sources + [entry]), *parts.image_rows(mapping, path)]

        extra = {"plan": plan} if writer is write_pool else {}  # a server plans on its own
        writer(db, rows, models, info=info, chunk=CHUNK, advance=ticker.advance, after=after,
               **extra)
    return tied


@parts.without_gc
def add_scores(db: sqlite_utils.Database, path: str | Path, *, key: str,
               scores: Sequence[tuple[str, str]], progress: Progress | None = None,
               seed: int | None = None) -> ImportResult:
    """Add later models' scores for the existing pool, matched by the ``key`` column.

    Every key in the file must be a candidate of the project and every candidate must get
    a score. Candidates and labels are not touched.
    """
    started = time.perf_counter()
    path = Path(path)
    seed = parts.project_seed(db) if seed is None else seed
    parts.check_models(db, path, scores)
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
    with db.atomic():
        for model, column in scores:
            values = table.numbers(column)
            tied[model] = _insert_scores(db, path, column, model, values, ids,
                                         rank_scores(values, keys, seed, model), ticker)
        parts.record_source(db, path, "scores", [m for m, _ in scores], len(keys))
    return ImportResult(str(path), len(keys), 0, None, tuple(m for m, _ in scores), tied,
                        time.perf_counter() - started)
