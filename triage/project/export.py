"""Exporting a project: every candidate with its final label, in ranking order.

Columns: key, text, rank and decile under the active model, each model's score, gold, the
final label (see :mod:`triage.project.final`) with its status, the number of annotators and
who they were, the notes, and the metadata (JSON).

CSV and Parquet are built a batch of rows at a time (:mod:`triage.project.export_batches`):
the small things (rankings, scores, labels) are read through the project, which is then
closed; the candidates' text then comes from the file a batch of ranks at a time, so
memory stays bounded however much text the pool holds.
JSONL goes row by row through :func:`export_rows`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlite_utils

from triage import store
from triage.project.adjudication import rulings_by
from triage.project.export_batches import (
    ExportPlan,
    LabelLookup,
    csv_lines,
    label_cells,
    notes_by_candidate,
    parquet_batches,
    parquet_schema,
    write_parquet,
)
from triage.project.final import final_labels
from triage.serving.queue import decile_of
from triage.store import candidates

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
    notes = notes_by_candidate(rows)
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
        row.update(label_cells(final, notes.get(cid, []), curators.get(cid, "")))
        row["meta"] = json.loads(meta) if meta else None
        yield row


def _plan(project: Project) -> ExportPlan:
    """The reads of the project a CSV or Parquet export needs; each ranking is read once."""
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
    return ExportPlan(export_fields(project), order, scores, store.active_labels(project.db))


def _export_batched(source: str | Path, plan: ExportPlan, out: Path, fmt: str,
                    labeled_only: bool, progress: Progress | None) -> int:
    """Write the CSV or Parquet export a batch of rows at a time (see export_batches)."""
    from triage.base.errors import TriageError
    from triage.ingest.arrowcsv import write_lines

    labeled = plan.labeled()
    ranks0 = plan.ranks(labeled, labeled_only)
    lookup = LabelLookup(labeled, int(plan.order.max(initial=0)))
    total = plan.order.size

    def tick(count: int) -> None:
        if progress is not None and progress(count, total) is False:
            raise TriageError("export cancelled; nothing was written")

    if fmt == "csv":
        return write_lines(out, plan.fields, csv_lines(plan, lookup, ranks0, source), tick)
    return write_parquet(out, parquet_schema(plan),
                         parquet_batches(plan, lookup, ranks0, source), tick)


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
        count = _export_batched(source, plan, out, fmt, labeled_only, progress)
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
