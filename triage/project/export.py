"""Exporting a project: every candidate with its final label, in ranking order.

Columns: key, text, rank and decile under the active model, each model's score, gold, the
final label (see :mod:`triage.project.final`) with its status, the number of annotators and
who they were, the notes, and the metadata (JSON).

CSV, the common case, is built a batch of rows at a time from Arrow columns
(:mod:`triage.ingest.arrowcsv`): the small things (rankings, scores, labels) are read
through the project, which is then closed; the candidates' text columns come from the
file in one pass (:func:`triage.store.adbc.candidate_columns`) and are put in ranking
order with one ``take``. JSONL goes row by row through :func:`export_rows`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage import store
from triage.project.adjudication import rulings_by
from triage.project.final import FinalLabel, final_labels
from triage.serving.queue import decile_of
from triage.store import candidates

BATCH = 100_000

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.project.types import Progress


def _in_rank_order(db, order: np.ndarray, chunk: int = 2000):
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
    scores: list[np.ndarray]          # per model, indexed by candidate id
    labeled: dict[int, dict[str, Any]]  # candidate id -> its _label_cells


def _plan(project: Project) -> _Plan:
    model = project.active_model()
    order = (store.rank_order(project.db, model.id) if model is not None
             else np.empty(0, dtype=np.int64))
    rows = store.active_labels(project.db)
    notes = _notes(rows)
    curators = rulings_by(rows)
    labeled = {cid: _label_cells(final, notes.get(cid, []), curators.get(cid, ""))
               for cid, final in final_labels(rows).items()}
    return _Plan(export_fields(project), order,
                 [store.scores_by_candidate(project.db, m.id) for m in project.models],
                 labeled)


def _csv_batches(plan: _Plan, texts: Any, keep: np.ndarray | None) -> Iterator[list[Any]]:
    """Cells of each batch of rows, in rank order (``keep``: the ranks to write, 0-based)."""
    import pyarrow as pa

    from triage.ingest.arrowcsv import end_lines, float_cells, int_cells, text_cells

    pool = plan.order.size
    # The text cells are made once, in id order, then gathered batch by batch; meta is
    # the last field, so its cells carry the line end.
    cells_by_id = pa.table([text_cells(texts.column(n)) if n != "meta" else
                            end_lines(text_cells(texts.column(n)))
                            for n in texts.column_names], names=texts.column_names)
    cells_by_id = cells_by_id.combine_chunks()  # take() is faster on whole arrays
    labels = _label_cells_by_id(plan, text_cells, int_cells)
    ranks0 = np.arange(pool) if keep is None else keep
    for start in range(0, ranks0.size, BATCH):
        at = ranks0[start:start + BATCH]
        ids = plan.order[at]
        rank = at + 1
        part = cells_by_id.take(_indices(ids - 1))
        cells = [part.column("key"), part.column("text"),
                 int_cells(rank), int_cells((10 * rank + pool - 1) // pool)]
        cells += [float_cells(s[ids] if s.size > ids.max() else np.full(ids.size, np.nan))
                  for s in plan.scores]
        cells.append(part.column("gold"))
        cells.append(_label_batch(labels, ids))
        cells.append(part.column("meta"))
        yield cells


def _indices(values: np.ndarray) -> Any:
    from triage.base.arrow import from_numpy

    return from_numpy(np.ascontiguousarray(values, dtype=np.int64))


_LABEL_COLUMNS = ("label", "label_status", "adjudicated", "adjudicated_by", "labels",
                  "annotators", "notes")
_UNLABELED = ",unlabeled,False,,0,,"  # the label cells of a candidate nobody has labeled


def _label_cells_by_id(plan: _Plan, text_cells, int_cells) -> tuple[np.ndarray, Any]:
    """(row of each candidate id among the labeled or -1, each labeled candidate's label
    cells joined into one)."""
    from triage.base.arrow import strings
    from triage.ingest.arrowcsv import join_cells

    ids = np.fromiter(plan.labeled, np.int64, len(plan.labeled))
    row_of = np.full(int(plan.order.max(initial=0)) + 1, -1, dtype=np.int64)
    row_of[ids] = np.arange(ids.size)
    cells = plan.labeled.values()
    # csv writes a bool as str(bool): "True" / "False".
    columns = [text_cells(strings([c[name] if name != "adjudicated" else str(c[name])
                                   for c in cells])) if name != "labels" else
               int_cells(np.fromiter((c[name] for c in cells), np.int64, ids.size))
               for name in _LABEL_COLUMNS]
    return row_of, join_cells(*columns)


def _label_batch(labels: tuple[np.ndarray, Any], ids: np.ndarray) -> Any:
    """The label cells (see _LABEL_COLUMNS), joined into one, of the candidates ``ids``."""
    import pyarrow.compute as pc

    from triage.base.arrow import booleans, repeat

    row_of, joined = labels
    rows = row_of[ids]
    hit = rows >= 0
    column = repeat(_UNLABELED, ids.size)
    if hit.any():
        column = pc.replace_with_mask(column, booleans(hit), joined.take(_indices(rows[hit])))
    return column


def _export_csv(project_path: str | Path, plan: _Plan, out: Path, labeled_only: bool,
                progress: Progress | None) -> int:
    from triage.base.errors import TriageError
    from triage.ingest.arrowcsv import write_csv
    from triage.store.adbc import candidate_columns

    total = plan.order.size
    texts = candidate_columns(str(Path(project_path).resolve()), ["key", "text", "gold", "meta"],
                              parts=2)
    keep = None
    if labeled_only:
        rank0 = np.zeros(int(plan.order.max(initial=0)) + 1, dtype=np.int64)
        rank0[plan.order] = np.arange(total)
        keep = np.sort(rank0[np.fromiter(plan.labeled, np.int64, len(plan.labeled))])

    def tick(done: int) -> None:
        if progress is not None and progress(done, total) is False:
            raise TriageError("export cancelled; nothing was written")

    return write_csv(out, plan.fields, _csv_batches(plan, texts, keep), tick)


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
    if fmt not in ("csv", "jsonl"):
        raise TriageError(f"{out}: unknown export format; use .csv or .jsonl")
    if fmt == "csv":
        with open_project(project_path) as project:
            plan = _plan(project)
            source = project.path   # for a server address: the replica, now up to date
        count = _export_csv(source, plan, out, labeled_only, progress)
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

    def rows():
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
