"""What the data manager draws: the table's columns and cells, and one candidate's record.

The widget (``ui/data_manager.py``) asks for a page of cells by row range and draws them;
the blind rules are applied here: an annotator's columns hold no rank, score or decile and
only their own label and note, and a record shows the fields the lead chose for the desk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from triage import store
from triage.project.datamgr import Catalog, Viewer, status_of
from triage.views.desk import public_meta

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.project.datamgr_actions import Record

LEAD_COLUMNS = ("Rank", "Key", "Text", "Score", "Label", "Status", "Votes", "Notes")
ANNOTATOR_COLUMNS = ("Key", "Text", "Your label", "Your note")
TEXT_CELL = 160   # characters of a text shown in a cell (the record shows all of it)


def columns(viewer: Viewer) -> tuple[str, ...]:
    """The table's column titles for this viewer."""
    return LEAD_COLUMNS if viewer.lead else ANNOTATOR_COLUMNS


def _short(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= TEXT_CELL else one[:TEXT_CELL - 1] + "…"


def _lead_cells(cat: Catalog, cid: int, key: str, text: str) -> tuple[str, ...]:
    rank = int(cat.ranks[cid]) if cid < len(cat.ranks) else 0
    score = f"{float(cat.scores[rank - 1]):.4g}" if rank else ""
    final = cat.finals.get(cid)
    votes = ", ".join(f"{a}: {v}" for a, v in sorted(final.votes.items())) if final else ""
    return (str(rank) if rank else "", key, _short(text), score,
            (final.value or "") if final else "", status_of(final), votes,
            _short(cat.notes.get(cid, "")))


def _annotator_cells(cat: Catalog, cid: int, key: str, text: str,
                     name: str) -> tuple[str, ...]:
    mine = [e for e in cat.events.get(cid, []) if e.annotator == name
            and e.kind != "adjudication"]
    last = mine[-1] if mine else None
    label = "" if last is None else (last.value or "skipped")
    return (key, _short(text), label, _short(last.note or "") if last else "")


def page(project: Project, cat: Catalog, ids: np.ndarray, viewer: Viewer) -> list[tuple[str, ...]]:
    """The cells of the rows for ``ids`` (a slice of a query's result), in that order."""
    wanted = [int(i) for i in ids]
    rows = store.candidate_rows(project.db, wanted)
    out = []
    for cid in wanted:
        key, text, _meta, _gold = rows.get(cid, ("", "", {}, None))
        out.append(_lead_cells(cat, cid, key, text) if viewer.lead
                   else _annotator_cells(cat, cid, key, text, viewer.name))
    return out


@dataclass(frozen=True)
class RecordView:
    """One candidate's record as lines of plain text, and the choices the viewer has."""

    title: str
    text: str
    picture: str | None
    facts: list[str]        # rank, decile, scores, final label (the lead); fields
    labels: list[str]       # "ada: idiom (triage) — note: …"
    history: list[str]      # every event, undone ones marked
    mine: str | None


def _event_line(e: store.LabelEvent) -> str:
    value = e.value if e.value is not None else "skipped"
    line = f"{e.annotator}: {value} ({e.kind}, {e.created_at[:19].replace('T', ' ')})"
    if e.note:
        line += f" — note: {e.note}"
    return line


def record_view(record: Record, viewer: Viewer, public_fields: tuple[str, ...] | None
                ) -> RecordView:
    """The record's lines; an annotator's share holds no score and no other's label."""
    facts: list[str] = []
    meta = record.meta if viewer.lead else public_meta(record.meta, public_fields)
    if viewer.lead:
        if record.rank is not None:
            facts.append(f"rank {record.rank:,} (decile {record.decile})")
        facts += [f"score {name}: {value:.6g}" for name, value in record.scores.items()]
        facts.append(f"final label: {record.final or '—'} ({record.status})")
    facts += [f"{k}: {v}" for k, v in meta.items()]
    history = [_event_line(e) + ("  [undone]" if e.undone_at else "") for e in record.history]
    return RecordView(title=record.key, text=record.text, picture=record.picture, facts=facts,
                      labels=[_event_line(e) for e in record.labels], history=history,
                      mine=record.mine)
