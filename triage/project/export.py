"""Rows for exporting a project: every candidate with its final label, in ranking order."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage import store
from triage.project.adjudication import rulings_by
from triage.project.final import final_labels
from triage.serving.queue import decile_of
from triage.store import candidates

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
    notes: dict[int, list[str]] = {}
    for r in rows:
        if r.note:
            notes.setdefault(r.candidate_id, []).append(f"{r.annotator}: {r.note}")
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
        row["label"] = final.value if final else None
        row["label_status"] = final.status if final else "unlabeled"
        row["adjudicated"] = bool(final and final.adjudicated)
        row["adjudicated_by"] = curators.get(cid, "") if final and final.adjudicated else ""
        row["labels"] = len(final.votes) if final else 0
        row["annotators"] = ";".join(sorted(final.votes)) if final else ""
        row["notes"] = " | ".join(notes.get(cid, []))
        row["meta"] = json.loads(meta) if meta else None
        yield row


def export_project(project_path: str | Path, out: str | Path, *, fmt: str | None = None,
                   labeled_only: bool = False, progress: Progress | None = None) -> int:
    """Write a project's candidates with final labels to ``out``; returns the row count.

    Opens its own connection, so it can run on a worker thread while the desk goes on.
    ``progress(done, total)`` may return False to cancel: the previous ``out`` (if any)
    is left untouched, since the file is replaced atomically only at the end.
    """
    from triage.base.errors import TriageError
    from triage.ingest.writer import write_table
    from triage.project.files import open_project

    out = Path(out)
    fmt = fmt or out.suffix.lower().lstrip(".")
    if fmt not in ("csv", "jsonl"):
        raise TriageError(f"{out}: unknown export format; use .csv or .jsonl")
    with open_project(project_path) as project:
        total = project.pool
        fields = export_fields(project)
        counted = [0]

        def rows():
            for n, row in enumerate(export_rows(project), start=1):
                if progress is not None and n % 20_000 == 0 and progress(n, total) is False:
                    raise TriageError("export cancelled; nothing was written")
                if labeled_only and row["label_status"] == "unlabeled":
                    continue
                if fmt == "csv":  # metadata as JSON text in one CSV cell
                    meta = row["meta"]
                    row = {**row, "meta": "" if meta is None else json.dumps(meta,
                                                                           ensure_ascii=False)}
                counted[0] += 1
                yield row

        write_table(out, fields, rows(), fmt=fmt)
        if progress is not None:
            progress(total, total)
    return counted[0]
