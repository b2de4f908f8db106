"""Read-only summaries of a project: status, gold labels, offline curves, the annotator table.

Functions of an open project's state (anything with a ``state``, see
:class:`~triage.project.state.HasState`); the project's methods of the same names delegate
here. They never import the facade, so the facade may import them.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from triage import store
from triage.project import kept_rankings
from triage.project.final import final_labels, is_positive
from triage.project.state import HasState, ProjectState
from triage.project.types import ProjectStatus
from triage.store import candidates


def status(project: HasState) -> ProjectStatus:
    """Pool, models, annotators, sessions, settings and the live snapshot."""
    state = project.state
    active = state.active_model()
    return ProjectStatus(
        path=state.location, pool=state.pool,
        models=[{"name": m.name, "column": m.source_column, "tied_items": m.tied_items}
                for m in state.models],
        active_model=active.name if active else None,
        annotators=len(store.annotator_names(state.db)),
        sessions=store.session_counts(state.db), settings=state.settings,
        snapshot=state.snapshot() if state.models else None,
    )


def has_gold(project: HasState) -> bool:
    """Does any candidate carry a gold label?"""
    return candidates.has_gold(project.state.db)


# Gold labels never change once imported: the flags are kept per open database, pool size
# and set of positive labels (a report asks for them three times; each read scans the pool).
_GOLD: weakref.WeakKeyDictionary[Any, tuple[tuple, np.ndarray]] = weakref.WeakKeyDictionary()


def gold_positive_flags(project: HasState) -> np.ndarray:
    """Bool per candidate id (index 0 unused): does its gold label count as a positive?

    One narrow query (the ids of the positive rows), never a Python loop over the pool.
    The array is shared and read-only."""
    state = project.state
    labels = sorted(state.settings.positive_labels)
    key = (state.pool, tuple(labels))
    kept = _GOLD.get(state.db)
    if kept is not None and kept[0] == key:
        return kept[1]
    ids = candidates.ids_with_gold(state.db, labels)
    flags = np.zeros(max(state.pool, int(ids.max()) if ids.size else 0) + 1, dtype=bool)
    flags[ids] = True
    flags.setflags(write=False)
    _GOLD[state.db] = (key, flags)
    return flags


def gold_positive_in_rank_order(project: HasState, model: store.ModelInfo,
                                flags: np.ndarray | None = None) -> np.ndarray:
    """Bool array: is the candidate at rank r+1 of ``model`` a gold positive?

    ``flags``: :func:`gold_positive_flags`, when the caller has read them already."""
    flags = gold_positive_flags(project) if flags is None else flags
    return flags[kept_rankings.rank_order(project.state.db, model.id)]


def offline_curves(project: HasState, flags: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per model, gold positives found after annotating the top r (index r-1).

    Empty when the project has no gold labels. Ties were broken by a seeded random
    order at import, so no model is favoured by the file's order. ``flags``: as for
    :func:`gold_positive_in_rank_order` (the gold labels are read once for all models).
    """
    if not has_gold(project):
        return {}
    flags = gold_positive_flags(project) if flags is None else flags
    return {m.name: np.cumsum(gold_positive_in_rank_order(project, m, flags))
            for m in project.state.models}


def annotator_table(project: HasState) -> list[dict[str, Any]]:
    """Per annotator: labels, skips, positives, seconds per label, sessions, spend."""
    snap = project.state.snapshot()
    sessions = store.session_counts(project.state.db)
    names = sorted(set(sessions) | set(snap.labels_by_annotator))
    rows = []
    for name in names:
        labels = snap.labels_by_annotator.get(name, 0)
        skips = snap.skips_by_annotator.get(name, 0)
        seconds = snap.seconds_by_annotator.get(name, 0.0)
        events = labels + skips
        rows.append({
            "annotator": name, "labels": labels, "skips": skips,
            "positives": snap.positives_by_annotator.get(name, 0),
            "seconds_per_label": seconds / events if events else None,
            "sessions": sessions.get(name, 0),
            "spend": snap.spend_by_annotator.get(name, 0.0),
        })
    return rows


def audit_sample(project: HasState) -> tuple[np.ndarray, np.ndarray]:
    """(ranks, is-positive) of the random audit sample handled so far (skips left out)."""
    state = project.state
    state.refresh()
    ids = _audit_prefix(state)
    ranks, positive = [], []
    for cid in ids.tolist():
        final = final_labels(state.tracker.events_of(cid)).get(cid)
        if final is None or final.skipped:
            continue
        ranks.append(state.rank_of(cid))
        positive.append(is_positive(final, state.settings))
    return np.array(ranks, dtype=np.int64), np.array(positive, dtype=bool)


def _audit_prefix(state: ProjectState) -> np.ndarray:
    """Candidate ids of the audit sample so far: the handled prefix of the audit order.

    The dispatcher's when the project has one (a desk); otherwise the same prefix of the
    same order, computed here: building a dispatcher just for this would read the whole
    overlap plan, a tenth of the pool, which a lead command never needs."""
    from triage.serving.dispatcher import audit_order

    dispatcher = state.built_dispatcher()
    if dispatcher is not None:
        return dispatcher.audit_sample()
    ranking = state.ranking()
    order = audit_order(ranking.order, state.settings.seed)
    handled = np.zeros(ranking.ranks.size, dtype=bool)
    handled[np.fromiter(state.tracker.by_candidate, np.int64)] = True
    unhandled = np.flatnonzero(~handled[order])
    return order[: unhandled[0] if unhandled.size else order.size]
