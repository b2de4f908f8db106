"""Read-only summaries of a project: status, gold labels, offline curves, the annotator table.

Functions of an open :class:`~triage.project.core.Project`; the project's methods of the
same names delegate here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from triage import store
from triage.project.final import final_labels
from triage.project.types import ProjectStatus
from triage.store import candidates

if TYPE_CHECKING:
    from triage.project.core import Project


def status(project: Project) -> ProjectStatus:
    """Pool, models, annotators, sessions, settings and the live snapshot."""
    active = project.active_model()
    return ProjectStatus(
        path=project.location, pool=project.pool,
        models=[{"name": m.name, "column": m.source_column, "tied_items": m.tied_items}
                for m in project.models],
        active_model=active.name if active else None,
        annotators=len(store.annotator_names(project.db)),
        sessions=store.session_counts(project.db), settings=project.settings,
        snapshot=project.snapshot() if project.models else None,
    )


def has_gold(project: Project) -> bool:
    """Does any candidate carry a gold label?"""
    return candidates.has_gold(project.db)


def gold_positive_flags(project: Project) -> np.ndarray:
    """Bool per candidate id (index 0 unused): does its gold label count as a positive?

    One narrow query (the ids of the positive rows), never a Python loop over the pool."""
    ids = candidates.ids_with_gold(project.db, sorted(project.settings.positive_labels))
    flags = np.zeros(max(project.pool, int(ids.max()) if ids.size else 0) + 1, dtype=bool)
    flags[ids] = True
    return flags


def gold_positive_in_rank_order(project: Project, model: store.ModelInfo,
                                flags: np.ndarray | None = None) -> np.ndarray:
    """Bool array: is the candidate at rank r+1 of ``model`` a gold positive?

    ``flags``: :func:`gold_positive_flags`, when the caller has read them already."""
    flags = gold_positive_flags(project) if flags is None else flags
    return flags[store.rank_order(project.db, model.id)]


def offline_curves(project: Project, flags: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Per model, gold positives found after annotating the top r (index r-1).

    Empty when the project has no gold labels. Ties were broken by a seeded random
    order at import, so no model is favoured by the file's order. ``flags``: as for
    :func:`gold_positive_in_rank_order` (the gold labels are read once for all models).
    """
    if not project.has_gold():
        return {}
    flags = gold_positive_flags(project) if flags is None else flags
    return {m.name: np.cumsum(gold_positive_in_rank_order(project, m, flags))
            for m in project.models}


def annotator_table(project: Project) -> list[dict[str, Any]]:
    """Per annotator: labels, skips, positives, seconds per label, sessions, spend."""
    snap = project.snapshot()
    sessions = store.session_counts(project.db)
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


def audit_sample(project: Project) -> tuple[np.ndarray, np.ndarray]:
    """(ranks, is-positive) of the random audit sample handled so far (skips left out)."""
    project.refresh()
    ids = _audit_prefix(project)
    ranks, positive = [], []
    for cid in ids.tolist():
        events = project.tracker.events_of(cid)
        final = final_labels(events).get(cid)
        if final is None or final.status == "skipped":
            continue
        ranks.append(project.rank_of(cid))
        positive.append(final.value is not None and project.settings.is_positive(final.value))
    return np.array(ranks, dtype=np.int64), np.array(positive, dtype=bool)


def _audit_prefix(project: Project) -> np.ndarray:
    """Candidate ids of the audit sample so far: the handled prefix of the audit order.

    The dispatcher's when the project has one (a desk); otherwise the same prefix of the
    same order, computed here: building a dispatcher just for this would read the whole
    overlap plan, a tenth of the pool, which a lead command never needs."""
    from triage.serving.dispatcher import audit_order

    if project._dispatcher is not None:
        return project.dispatcher.audit_sample()
    project._ranks()
    assert project._order is not None  # set by _ranks()
    order = audit_order(project._order, project.settings.seed)
    handled = np.zeros(project._ranks().size, dtype=bool)
    handled[np.fromiter(project.tracker.by_candidate, np.int64)] = True
    unhandled = np.flatnonzero(~handled[order])
    return order[: unhandled[0] if unhandled.size else order.size]
