"""Exporting a project: every candidate with its final label, in ranking order.

Columns: key, text, rank and decile under the active model, each model's score, gold, the
final label (see :mod:`triage.project.final`) with its status, the number of annotators and
who they were, the notes, and the metadata (JSON).

CSV, the common case, is built a batch of rows at a time from Arrow columns
(:mod:`triage.ingest.arrowcsv`): the small things (rankings, scores, labels) are read
through the project, which is then closed; the candidates' text columns come from the
file in one pass (:func:`triage.store.adbc.candidate_columns`, on two threads, while the
label cells are worked out). In id order, each candidate's cells before its rank and after
its scores are joined into two columns; batches of rows then ``take`` those into ranking
order and join them with the rank, decile and score cells, two batches at a time on two
threads while a third is written. Parquet takes the same columns into rank order, typed.
JSONL goes row by row through :func:`export_rows`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlite_utils

from triage import store
from triage.project.adjudication import rulings_by
from triage.project.final import FinalLabel, final_labels
from triage.serving.queue import decile_of
from triage.store import candidates

BATCH = 100_000

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.project.types import Progress


def _in_rank_order(db: sqlite_utils.Database, order: np.ndarray,
                   chunk: int = 2000) -> Iterator[tuple[Any, ...]]:
    """(rank, id, key, text, gold, meta) rows, best-ranked first, fetched a chunk at a time."""
    for start in range(0, order.size, chunk):
        ids = order[start:start + chunk].tolist()
        found = candidates.rows_by_id(db, ids)
        for offset, cid in enumerate(ids):
            _id, key, text, gold, meta = found[cid]
            yield start + offset + 1, cid, key, text, gold, meta


def export_fields(project: Project) -> list[str]:
    """The export's column names, one ``score_<model>`` per model."""
    models = [m.name for m in project.models]
    return (["key", "text", "rank", "decile"] + [f"score_{m}" for m in models]
            + ["gold", "label", "label_status", "adjudicated", "adjudicated_by", "labels",
               "annotators", "notes", "meta"])


def _notes(rows: list[store.LabelRow]) -> dict[int, list[str]]:
    notes: dict[int, list[str]] = {}
    for r in rows:
        if r.note:
            notes.setdefault(r.candidate_id, []).append(f"{r.annotator}: {r.note}")
    return notes


def export_rows(project: Project) -> Iterator[dict[str, Any]]:
    """Yield one dict per candidate, best-ranked first under the active model."""
    model = project.active_model()
    if model is None:
        return
    score_by_model = {m.name: store.scores_by_candidate(project.db, m.id)
                      for m in project.models}
    rows = store.active_labels(project.db)
    finals = final_labels(rows)
    curators = rulings_by(rows)
    notes = _notes(rows)
    pool = project.pool
    order = store.rank_order(project.db, model.id)
    for rank, cid, key, text, gold, meta in _in_rank_order(project.db, order):
        final = finals.get(cid)
        row: dict[str, Any] = {"key": key, "text": text, "rank": rank,
                               "decile": decile_of(rank, pool)}
        for name, arr in score_by_model.items():
            value = arr[cid] if cid < len(arr) else np.nan
            row[f"score_{name}"] = None if np.isnan(value) else float(value)
        row["gold"] = gold
        row.update(_label_cells(final, notes.get(cid, []), curators.get(cid, "")))
        row["meta"] = json.loads(meta) if meta else None
        yield row


def _label_cells(final: FinalLabel | None, notes: list[str], curator: str) -> dict[str, Any]:
    """The label fields of one candidate (see _LABEL_COLUMNS); ``curator`` made its ruling."""
    return {"label": final.value if final else None,
            "label_status": final.status if final else "unlabeled",
            "adjudicated": bool(final and final.adjudicated),
            "adjudicated_by": curator if final and final.adjudicated else "",
            "labels": len(final.votes) if final else 0,
            "annotators": ";".join(sorted(final.votes)) if final else "",
            "notes": " | ".join(notes)}


@dataclass
class _Plan:
    """What a CSV export needs besides the candidates' text, read while the project is open."""

    fields: list[str]
    order: np.ndarray                 # candidate ids in rank order
    scores: list[np.ndarray]          # per model, in rank order
    rows: list[store.LabelRow]        # the active label events

    def labeled(self) -> dict[int, dict[str, Any]]:
        """candidate id -> its _label_cells, for every candidate with an active event."""
        notes = _notes(self.rows)
        curators = rulings_by(self.rows)
        return {cid: _label_cells(final, notes.get(cid, []), curators.get(cid, ""))
                for cid, final in final_labels(self.rows).items()}


def _plan(project: Project) -> _Plan:
    """The reads of the project a CSV export needs; each ranking is read once."""
    model = project.active_model()
    rankings = {m.id: store.ranking(project.db, m.id) for m in project.models}
    order = rankings[model.id][0] if model is not None else np.empty(0, dtype=np.int64)
    scores = []
    for m in project.models:
        ids, values = rankings[m.id]
        if model is not None and m.id == model.id:
            scores.append(values)  # already in rank order
            continue
        by_id = np.full(int(max(ids.max(initial=0), order.max(initial=0))) + 1, np.nan)
        by_id[ids] = values
        scores.append(by_id[order])
    return _Plan(export_fields(project), order, scores, store.active_labels(project.db))


def _indices(values: np.ndarray) -> Any:
    from triage.base.arrow import from_numpy

    return from_numpy(np.ascontiguousarray(values, dtype=np.int64))


_LABEL_COLUMNS = ("label", "label_status", "adjudicated", "adjudicated_by", "labels",
                  "annotators", "notes")
_UNLABELED = ",unlabeled,False,,0,,"  # the label cells of a candidate nobody has labeled
_TEXT_COLUMNS = ["key", "text", "gold", "meta"]


def _label_cells_by_id(labeled: dict[int, dict[str, Any]], count: int) -> Any:
    """The label cells (see _LABEL_COLUMNS) of candidates 1..``count``, joined into one
    per candidate, in id order."""
    import pyarrow.compute as pc

    from triage.base.arrow import booleans, repeat, strings
    from triage.ingest.arrowcsv import int_cells, join_cells, text_cells

    ids = np.fromiter(labeled, np.int64, len(labeled))
    column = repeat(_UNLABELED, count)
    if not ids.size:
        return column
    order = np.argsort(ids)
    cells = [labeled[int(i)] for i in ids[order]]
    # csv writes a bool as str(bool): "True" / "False".
    columns = [text_cells(strings([c[name] if name != "adjudicated" else str(c[name])
                                   for c in cells])) if name != "labels" else
               int_cells(np.fromiter((c[name] for c in cells), np.int64, ids.size))
               for name in _LABEL_COLUMNS]
    hit = np.zeros(count, dtype=bool)
    hit[ids - 1] = True
    return pc.replace_with_mask(column, booleans(hit), join_cells(*columns))


def _cells_by_id(texts: Any, labels: Any, pool: Any) -> tuple[Any, Any]:
    """Every candidate's cells before its rank ("key,text") and after its scores ("gold,
    labels...,meta" and the line end), in id order, made on the pool's threads (Arrow's
    kernels release the GIL): two columns to put in rank order instead of four."""
    from triage.ingest.arrowcsv import end_lines, join_cells, text_cells

    def head() -> Any:
        return join_cells(text_cells(texts.column("key")), text_cells(texts.column("text")))

    def tail() -> Any:
        return join_cells(text_cells(texts.column("gold")), labels,
                          end_lines(text_cells(texts.column("meta"))))

    before, after = pool.submit(head), pool.submit(tail)
    return before.result(), after.result()


def _batch_lines(plan: _Plan, cells: tuple[Any, Any], at: np.ndarray) -> Any:
    """The CSV lines of the rows at 0-based ranks ``at``, every field joined."""
    from triage.ingest.arrowcsv import float_cells, int_cells, join_cells

    pool = plan.order.size
    rows = _indices(plan.order[at] - 1)
    rank = at + 1
    return join_cells(cells[0].take(rows), int_cells(rank),
                      int_cells((10 * rank + pool - 1) // pool),
                      *[float_cells(s[at]) for s in plan.scores], cells[1].take(rows))


def _ranks(plan: _Plan, labeled: dict[int, dict[str, Any]], labeled_only: bool) -> np.ndarray:
    """The 0-based ranks of the rows to write: all, or the labeled ones in rank order."""
    ranks0 = np.arange(plan.order.size)
    if labeled_only:
        rank0 = np.zeros(int(plan.order.max(initial=0)) + 1, dtype=np.int64)
        rank0[plan.order] = ranks0
        ranks0 = np.sort(rank0[np.fromiter(labeled, np.int64, len(labeled))])
    return ranks0


def _export_parquet(project_path: str | Path, plan: _Plan, out: Path,
                    labeled_only: bool) -> int:
    """Write the export as Parquet: the same columns as the CSV, typed (ranks and counts
    integers, scores doubles, ``adjudicated`` a boolean; no value is a null)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from triage.ingest.writer import atomic_file
    from triage.store.adbc import candidate_columns

    texts = candidate_columns(str(Path(project_path).resolve()), _TEXT_COLUMNS, 2)
    labeled = plan.labeled()
    ranks0 = _ranks(plan, labeled, labeled_only)
    rows = _indices(plan.order[ranks0] - 1)
    rank, pool = ranks0 + 1, max(plan.order.size, 1)

    def text(name: str, empty_is_null: bool = False) -> Any:
        values = texts.column(name).take(rows)
        return pc.if_else(pc.equal(values, ""), None, values) if empty_is_null else values

    columns: dict[str, Any] = {"key": text("key"), "text": text("text"),
                               "rank": pa.array(rank), "decile": pa.array((10 * rank + pool - 1)
                                                                          // pool)}
    for name, scores in zip(plan.fields[4:], plan.scores):
        values = scores[ranks0]
        columns[name] = pa.array(values, mask=np.isnan(values))
    columns["gold"] = text("gold", True)
    ids = plan.order[ranks0]
    unlabeled = _label_cells(None, [], "")
    for name in _LABEL_COLUMNS:
        cells = [labeled.get(int(i), unlabeled)[name] for i in ids]
        columns[name] = pa.array(cells, pa.int64() if name == "labels" else
                                 pa.bool_() if name == "adjudicated" else pa.string())
    columns["meta"] = text("meta", True)
    with atomic_file(out, binary=True) as handle:
        pq.write_table(pa.table(columns), handle)
    return int(ranks0.size)


def _export_csv(project_path: str | Path, plan: _Plan, out: Path, labeled_only: bool,
                progress: Progress | None) -> int:
    """Write the CSV: the text is read on two threads while this one works out the label
    cells; then batches of lines are built two at a time and written in order."""
    from concurrent.futures import ThreadPoolExecutor
    from itertools import islice

    from triage.base.errors import TriageError
    from triage.ingest.arrowcsv import write_lines
    from triage.store.adbc import candidate_columns

    total = plan.order.size
    with ThreadPoolExecutor(max_workers=2) as pool:
        reading = pool.submit(candidate_columns, str(Path(project_path).resolve()),
                              _TEXT_COLUMNS, 2)
        labeled = plan.labeled()
        labels = _label_cells_by_id(labeled, total)
        ranks0 = _ranks(plan, labeled, labeled_only)
        cells = _cells_by_id(reading.result(), labels, pool)
        del reading, labels  # the raw text and label cells: the joined cells replace them

        def lines() -> Iterator[Any]:
            starts = iter(range(0, ranks0.size, BATCH))
            # Two batches in the making while one is written: memory stays bounded.
            pending = [pool.submit(_batch_lines, plan, cells, ranks0[start:start + BATCH])
                       for start in islice(starts, 2)]
            while pending:
                done = pending.pop(0).result()
                for start in islice(starts, 1):
                    pending.append(pool.submit(_batch_lines, plan, cells,
                                               ranks0[start:start + BATCH]))
                yield done

        def tick(count: int) -> None:
            if progress is not None and progress(count, total) is False:
                raise TriageError("export cancelled; nothing was written")

        count = write_lines(out, plan.fields, lines(), tick)
    return count


def export_project(project_path: str | Path, out: str | Path, *, fmt: str | None = None,
                   labeled_only: bool = False, progress: Progress | None = None) -> int:
    """Write a project's candidates with final labels to ``out``; returns the row count.

    Opens its own connection, so it can run on a worker thread while the desk goes on.
    ``progress(done, total)`` may return False to cancel: the previous ``out`` (if any)
    is left untouched, since the file is replaced atomically only at the end.
    """
    from triage.base.errors import TriageError
    from triage.project.files import open_project

    out = Path(out)
    fmt = fmt or out.suffix.lower().lstrip(".")
    if fmt not in ("csv", "jsonl", "parquet"):
        raise TriageError(f"{out}: unknown export format; use .csv, .jsonl or .parquet")
    if fmt in ("csv", "parquet"):
        with open_project(project_path) as project:
            plan = _plan(project)
            source = project.path   # for a server address: the replica, now up to date
        count = (_export_csv(source, plan, out, labeled_only, progress) if fmt == "csv"
                 else _export_parquet(source, plan, out, labeled_only))
        if progress is not None:
            progress(plan.order.size, plan.order.size)
        return count
    with open_project(project_path) as project:
        return _export_jsonl(project, out, labeled_only, progress)


def _export_jsonl(project: Project, out: Path, labeled_only: bool,
                  progress: Progress | None) -> int:
    from triage.base.errors import TriageError
    from triage.ingest.writer import write_table

    total = project.pool
    counted = [0]

    def rows() -> Iterator[dict[str, Any]]:
        for n, row in enumerate(export_rows(project), start=1):
            if progress is not None and n % 20_000 == 0 and progress(n, total) is False:
                raise TriageError("export cancelled; nothing was written")
            if labeled_only and row["label_status"] == "unlabeled":
                continue
            counted[0] += 1
            yield row

    write_table(out, export_fields(project), rows(), fmt="jsonl")
    if progress is not None:
        progress(total, total)
    return counted[0]
