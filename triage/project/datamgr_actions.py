"""What one does with candidates found in the data manager: open, relabel, rule, export.

Every write goes through the project (so through ``project.writer``): a relabel is a
change of the viewer's own decision (:func:`triage.project.history.change_decision`, a new
undoable event), a ruling is the adjudication queue's (:func:`triage.project.adjudication.
adjudicate`), and on a team project the server judges both and its refusal is the error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage import store
from triage.base.errors import TriageError
from triage.project.adjudication import adjudicate, rulings_by
from triage.project.datamgr import Viewer, require_lead, status_of
from triage.project.export import export_fields
from triage.project.export_batches import label_cells, notes_by_candidate
from triage.project.final import final_labels
from triage.project.history import Decision, change_decision
from triage.project.pictures import picture_source
from triage.serving.queue import decile_of
from triage.store import search

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.project.types import Session

SELECTION_FORMATS = ("csv", "jsonl", "parquet")


@dataclass(frozen=True)
class Record:
    """One candidate's whole record, as the viewer may see it."""

    candidate_id: int
    key: str
    text: str
    meta: dict[str, Any]                # every field; the view shows the viewer's share
    picture: str | None                 # the picture's path, for a picture pool
    rank: int | None                    # None: hidden from the viewer
    decile: int | None
    scores: dict[str, float]            # model -> score (empty: hidden)
    final: str | None                   # the final label (the lead only)
    status: str | None                  # unlabeled / labeled / majority / tie / ruled
    labels: list[store.LabelEvent]        # the current events the viewer may see
    history: list[store.LabelEvent]       # every event the viewer may see, undone ones too
    mine: str | None                    # the viewer's current label


def _current(events: list[store.LabelEvent], name: str) -> store.LabelEvent | None:
    """The viewer's current decision: their last active event that is not a ruling."""
    mine = [e for e in events if e.annotator == name and e.undone_at is None
            and e.kind != "adjudication"]
    return mine[-1] if mine else None


def record_of(project: Project, candidate_id: int, viewer: Viewer) -> Record:
    """The record of one candidate: text or picture, scores, labels with notes, history."""
    rows = store.candidate_rows(project.db, [candidate_id])
    if candidate_id not in rows:
        raise TriageError(f"there is no candidate with id {candidate_id}")
    key, text, meta, _gold = rows[candidate_id]
    history = search.label_events(project.db, candidate_id)
    if not viewer.lead:
        history = [e for e in history if e.annotator == viewer.name]
    active = [e for e in history if e.undone_at is None]
    source = picture_source(project.db, str(project.path))
    ref = source.ref(text, meta) if source is not None else None
    picture = str(ref.path) if ref is not None and ref.path is not None else None
    mine = _current(history, viewer.name)
    if not viewer.lead:
        return Record(candidate_id, key, text, meta,
                      picture, None, None, {}, None, None, active, history,
                      mine.value if mine else None)
    rank = project.rank_of(candidate_id)
    scores = {}
    for model in project.models:
        by_id = store.scores_by_candidate(project.db, model.id)
        if candidate_id < len(by_id) and not np.isnan(by_id[candidate_id]):
            scores[model.name] = float(by_id[candidate_id])
    final = final_labels(active).get(candidate_id)
    return Record(candidate_id, key, text, meta, picture, rank, decile_of(rank, project.pool),
                  scores, final.value if final else None, status_of(final), active, history,
                  mine.value if mine else None)


def relabel(project: Project, session: Session, candidate_id: int, value: str | None) -> int:
    """Change the viewer's own decision on a candidate (a new event); label it if none yet."""
    mine = _current(search.label_events(project.db, candidate_id), session.annotator)
    if mine is None:
        return project.record_label(session, candidate_id, value)
    key = store.candidate_rows(project.db, [candidate_id])[candidate_id][0]
    decision = Decision(mine.id, candidate_id, key, "", mine.value, mine.kind, mine.created_at,
                        mine.note)
    return change_decision(project, session, decision, value)


def rule(project: Project, session: Session, viewer: Viewer, candidate_id: int,
         value: str) -> str | None:
    """The lead's ruling on a candidate; its final label afterwards."""
    require_lead(viewer, "adjudicate")
    return adjudicate(project, session, candidate_id, value).value


def selection_rows(project: Project, ids: list[int]) -> Iterator[dict[str, Any]]:
    """The export's rows (the same columns as ``triage export``) for the chosen candidates."""
    rows = store.active_labels(project.db)
    finals, curators, notes = final_labels(rows), rulings_by(rows), notes_by_candidate(rows)
    scores = {m.name: store.scores_by_candidate(project.db, m.id) for m in project.models}
    for start in range(0, len(ids), 2000):
        chunk = ids[start:start + 2000]
        found = store.candidate_rows(project.db, chunk)
        for cid in chunk:
            key, text, meta, gold = found[cid]
            rank = project.rank_of(cid)
            row: dict[str, Any] = {"key": key, "text": text, "rank": rank,
                                   "decile": decile_of(rank, project.pool)}
            for name, arr in scores.items():
                value = arr[cid] if cid < len(arr) else np.nan
                row[f"score_{name}"] = None if np.isnan(value) else float(value)
            row["gold"] = gold
            row.update(label_cells(finals.get(cid), notes.get(cid, []), curators.get(cid, "")))
            row["meta"] = json.dumps(meta, ensure_ascii=False) if meta else None
            yield row


def _write_parquet(out: Path, fields: list[str], rows: Iterator[dict[str, Any]]) -> int:
    """The rows as one Parquet table (a selection is small enough to hold), atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from triage.ingest.writer import atomic_file

    table = pa.Table.from_pylist(list(rows))
    table = table.select([f for f in fields if f in table.column_names])
    with atomic_file(out, binary=True) as handle:
        pq.write_table(table, handle)
    return table.num_rows


def export_selection(project: Project, viewer: Viewer, ids: list[int], out: str | Path) -> int:
    """Write the chosen candidates to ``out`` (.csv, .jsonl or .parquet); the rows written."""
    from triage.ingest.writer import write_table

    require_lead(viewer, "export candidates")
    out = Path(out)
    fmt = out.suffix.lower().lstrip(".")
    if fmt not in SELECTION_FORMATS:
        raise TriageError(f"{out}: unknown export format for a selection; use .csv, .jsonl "
                          "or .parquet")
    if not ids:
        raise TriageError("select at least one candidate to export")
    if fmt == "parquet":
        return _write_parquet(out, export_fields(project), selection_rows(project, ids))
    return write_table(out, export_fields(project), selection_rows(project, ids), fmt=fmt)
