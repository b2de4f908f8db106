"""The data manager's model: every candidate with its label state, filtered, sorted, paged.

A :class:`Catalog` holds what a query needs in memory: the active model's ranking (ids in
rank order, their scores, each id's rank), the active label events grouped by candidate
and their final labels. It is built off the GUI thread on a connection of its own
(:func:`open_reader`); a query (:func:`run_query`) then turns a :class:`Query` into the
ids of the matching candidates in display order, so a page of rows is a slice. The
full-text search asks the store's FTS5 index (:mod:`triage.store.search`), built on
first use on the same connection.

Blind rules: a :class:`Viewer` who is not the lead sees only their own label events and
no scores, ranks or deciles, and can filter and sort only by what they may see.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import sqlite_utils

from triage import store
from triage.base.errors import TriageError
from triage.base.progress import Progress
from triage.project.final import FinalLabel, FinalStatus, final_labels
from triage.store import candidates, connection, search
from triage.store.schema import LABEL_KINDS

KINDS = LABEL_KINDS

LABEL_STATES = ("unlabeled", "labeled", "skipped")
ADJUDICATION_STATES = ("awaiting a ruling", "ruled")
SORTS = ("rank", "score", "key")   # score: highest first, the rank order (the lead only)


@dataclass(frozen=True)
class Viewer:
    """Who looks: the lead sees everything; an annotator only their own decisions."""

    name: str
    lead: bool


@dataclass(frozen=True)
class Query:
    """One question to the data manager; empty fields do not filter."""

    text: str = ""                 # words of the candidate's text (all of them)
    label: str = ""                # a label value, or one of LABEL_STATES
    annotator: str = ""            # labelled by this annotator (the lead only)
    decile: int = 0                # 1..10 under the active model (the lead only)
    kind: str = ""                 # a label kind (triage, audit, overlap, retest, certify…)
    disagreement: bool = False     # annotators' current labels differ (the lead only)
    note: str = ""                 # words of a note
    adjudication: str = ""         # one of ADJUDICATION_STATES (the lead only)
    sort: str = "rank"             # one of SORTS ("key" only for an annotator)
    descending: bool = False


@dataclass
class Catalog:
    """What a query reads, in memory: the ranking and the active label events."""

    order: np.ndarray                          # candidate ids in rank order
    scores: np.ndarray                         # their scores, same order
    ranks: np.ndarray                          # id -> 1-based rank (0: none)
    model: str
    events: dict[int, list[store.LabelEvent]]    # candidate -> active events, oldest first
    finals: dict[int, FinalLabel]
    key_order: np.ndarray | None = None
    key_rank: np.ndarray | None = None         # id -> position in key order
    indexed: bool = False                      # the full-text index holds every candidate
    notes: dict[int, str] = field(default_factory=dict)

    @property
    def annotators(self) -> list[str]:
        """Everyone with an active label event, by name."""
        return sorted({e.annotator for evs in self.events.values() for e in evs})

    @property
    def pool(self) -> int:
        """How many candidates the ranking holds."""
        return int(self.order.size)


def open_reader(path: str | Path) -> sqlite_utils.Database:
    """A connection of the data manager's own to the project file (or the team replica)."""
    database, _backup = connection.open_database(path)
    return database


def load_catalog(db: sqlite_utils.Database, order: np.ndarray, scores: np.ndarray,
                 ranks: np.ndarray, model: str) -> Catalog:
    """Read the active label events next to the (already loaded) ranking."""
    rows = store.active_labels(db)
    events: dict[int, list[store.LabelEvent]] = defaultdict(list)
    for row in rows:
        events[row.candidate_id].append(row)
    notes = {cid: "\n".join(r.note for r in evs if r.note) for cid, evs in events.items()}
    return Catalog(order, scores, ranks, model, dict(events), final_labels(rows),
                   indexed=search.index_ready(db), notes=notes)


def build_search_index(db: sqlite_utils.Database, progress: Progress | None = None) -> bool:
    """Bring the full-text index up to the pool; False if the file cannot be written."""
    if connection.read_only(db) or not search.has_index(db):
        return False
    candidates.ensure_key_index(db)     # the order by key reads it (an import leaves it out)
    search.build_index(db, progress)
    return True


def _own(events: list[store.LabelEvent], viewer: Viewer) -> list[store.LabelEvent]:
    return events if viewer.lead else [e for e in events if e.annotator == viewer.name]


def _label_match(cat: Catalog, cid: int, query: Query, viewer: Viewer) -> bool:
    events = _own(cat.events.get(cid, []), viewer)
    if query.label == "unlabeled":
        return not events
    if query.label == "labeled":
        return any(e.value is not None for e in events)
    if query.label == "skipped":
        return bool(events) and all(e.value is None for e in events)
    if viewer.lead:
        final = cat.finals.get(cid)
        return final is not None and final.value == query.label
    return any(e.value == query.label for e in events)


def _event_filter(cat: Catalog, query: Query, viewer: Viewer) -> set[int] | None:
    """Candidates passing the label-event filters; None when no such filter is set."""
    if not (query.label or query.annotator or query.kind or query.note
            or (viewer.lead and (query.disagreement or query.adjudication))):
        return None
    if query.label == "unlabeled":   # no event of the viewer's: see _unlabeled
        contradicted = query.annotator or query.kind or query.note or (
            viewer.lead and (query.disagreement or query.adjudication))
        return set() if contradicted else None
    words = query.note.lower().split()
    out = set()
    for cid, evs in cat.events.items():
        mine = _own(evs, viewer)
        if not mine:
            continue
        if query.label and not _label_match(cat, cid, query, viewer):
            continue
        if viewer.lead and query.annotator and all(e.annotator != query.annotator for e in mine):
            continue
        if query.kind and all(e.kind != query.kind for e in mine):
            continue
        if words:
            text = "\n".join(e.note or "" for e in mine).lower()
            if not all(w in text for w in words):
                continue
        if viewer.lead and not _state_match(cat.finals.get(cid), query):
            continue
        out.add(cid)
    return out


def _state_match(final: FinalLabel | None, query: Query) -> bool:
    disagree = final is not None and len(set(final.votes.values())) > 1
    if query.disagreement and not disagree:
        return False
    if query.adjudication == "ruled":
        return final is not None and final.adjudicated
    if query.adjudication == "awaiting a ruling":
        return disagree and final is not None and not final.adjudicated
    return True


def key_positions(db: sqlite_utils.Database, cat: Catalog) -> np.ndarray:
    """id -> position in key order (read from the file once per catalog)."""
    if cat.key_order is None or cat.key_rank is None:
        order = search.ids_in_key_order(db)
        rank = np.zeros(int(order.max(initial=0)) + 1, dtype=np.int64)
        rank[order] = np.arange(order.size)
        cat.key_order, cat.key_rank = order, rank
    return cat.key_rank


def _sorted(db: sqlite_utils.Database, cat: Catalog, ids: np.ndarray, query: Query,
            viewer: Viewer) -> np.ndarray:
    """``ids`` (a subset) in display order."""
    if query.sort in ("rank", "score") and viewer.lead:
        weights = cat.ranks[ids]
    else:
        weights = key_positions(db, cat)[ids]
    ordered = ids[np.argsort(weights, kind="stable")]
    return ordered[::-1] if query.descending else ordered


def _ordered(db: sqlite_utils.Database, cat: Catalog, query: Query, viewer: Viewer) -> np.ndarray:
    base = cat.order
    if not (query.sort in ("rank", "score") and viewer.lead):
        key_positions(db, cat)
        base = cat.key_order if cat.key_order is not None else base
    return base[::-1] if query.descending else base


def run_query(db: sqlite_utils.Database, cat: Catalog, query: Query,
              viewer: Viewer) -> np.ndarray:
    """The ids of the candidates matching ``query``, in display order.

    A search starts from the candidates holding the words (few, at a million) and sorts
    them; without one, the filters cut down the whole pool already in order.
    """
    if query.text.strip():
        found = search.search_ids(db, query.text) if cat.indexed else search.scan_ids(
            db, query.text)
        found = found[found < len(cat.ranks)]
        ids = _sorted(db, cat, found[cat.ranks[found] > 0], query, viewer)
    else:
        ids = _ordered(db, cat, query, viewer)
    if viewer.lead and query.decile:
        lo = (query.decile - 1) * cat.pool // 10   # decile d: ranks lo+1 .. hi
        hi = query.decile * cat.pool // 10
        ranks = cat.ranks[ids]
        ids = ids[(ranks > lo) & (ranks <= hi)]
    if query.label == "unlabeled":
        labeled = [cid for cid, evs in cat.events.items() if _own(evs, viewer)]
        ids = ids[~np.isin(ids, np.asarray(labeled, dtype=np.int64))]
    keep = _event_filter(cat, query, viewer)
    if keep is not None:
        ids = ids[np.isin(ids, np.fromiter(keep, dtype=np.int64, count=len(keep)))]
    return ids


def status_of(final: FinalLabel | None) -> str:
    """The label state in words: unlabeled, agreed, tie, majority, ruled or skipped."""
    if final is None:
        return "unlabeled"
    if final.adjudicated:
        return "ruled"
    if final.status is FinalStatus.SKIPPED:
        return "skipped"
    if len(set(final.votes.values())) > 1:
        return "tie" if final.status is FinalStatus.UNRESOLVED else "majority"
    return "labeled"


def require_lead(viewer: Viewer, what: str) -> None:
    """Refuse ``what`` to anyone but the lead."""
    if not viewer.lead:
        raise TriageError(f"only the lead can {what}")
