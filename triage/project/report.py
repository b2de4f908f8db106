"""What the lead's report reads from a project besides the figures other commands print.

Spend over time (the live state keeps totals, not their history) and data provenance.
Everything else in the report comes from the functions behind ``advise``, ``gain``,
``agree`` and ``status`` (see :mod:`triage.views.report.data`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from triage import __version__, store
from triage.stats.live import RULING
from triage.store import provenance

if TYPE_CHECKING:
    from triage.project.core import Project


# A spend chart is under 1,300 pixels wide: more points than this draw the same line.
TIMELINE_POINTS = 1000


def _rows(project: Project) -> list[store.LabelEvent]:
    """The active label events, oldest first (read once per report, not once per section)."""
    from triage.project.advice import current_rows

    return current_rows(project)


def spend_timeline(project: Project, points: int = TIMELINE_POINTS) -> dict[str, list[Any]]:
    """Cumulative spend after each label event (skips included), with its time.

    Priced as the live state prices them, so the last point is the snapshot's spend. Past
    ``points`` events it keeps every n-th event and the last one (``events`` numbers them).
    """
    s = project.settings
    rows = _rows(project)
    if s.price_model == "per_item":
        costs = np.array([0.0 if r.kind == RULING else float(s.price_per_item) for r in rows])
    else:
        rates = store.hourly_rates(project.db, s.default_hourly_rate)
        costs = np.array([r.seconds * rates.get(r.annotator, s.default_hourly_rate) / 3600.0
                          for r in rows], dtype=float)
    spend = np.cumsum(costs)
    keep = np.arange(len(rows))
    if len(rows) > points:
        keep = np.unique(np.append(np.linspace(0, len(rows) - 1, points).round().astype(int),
                                   len(rows) - 1))
    return {"times": [rows[i].created_at for i in keep], "spend": spend[keep].tolist(),
            "events": (keep + 1).tolist()}


def project_provenance(project: Project) -> dict[str, Any]:
    """Source files (with SHA-256 and import time), models, creation date, Triage version."""
    info = store.project_info(project.db)
    return {
        "file": project.location,
        "created_at": info.get("created_at"),
        "source_file": info.get("source_file"),
        "sources": provenance.sources(project.db),
        "models": provenance.model_sources(project.db),
        "pictures": _pictures(project),
        "triage_version": __version__,
    }


# Checking a picture reads its head and its end: about 50 µs in Python, so a whole pool
# of a million takes the better part of a minute. Beyond this size the report checks the
# pictures annotators have handled and says so; ``status --check-images`` checks them all.
WHOLE_POOL_CHECK_LIMIT = 100_000


def _pictures(project: Project) -> dict[str, Any] | None:
    """A pool of pictures: how many could not be shown, checked now (None: no pictures).

    ``scope`` says what was checked: "pool" (every picture) or "handled" (those of the
    candidates with a label or skip, when the pool is larger than the limit above).
    """
    from triage.project.pictures import check_pictures, picture_source

    source = picture_source(project.db, project.location)
    if source is None:
        return None
    pool = store.pool_size(project.db)
    ids = None
    if pool > WHOLE_POOL_CHECK_LIMIT:
        ids = sorted({row.candidate_id for row in store.active_labels(project.db)})
    check = check_pictures(project.db, source, ids=ids).as_dict()
    return {**check, "scope": "pool" if ids is None else "handled", "pool_size": pool}


def audit_items(project: Project) -> list[dict[str, Any]]:
    """The random audit sample handled so far (skips left out), best-ranked first.

    The same items as :meth:`Project.audit_sample`, with key, text and final label.
    """
    from triage.project.final import is_positive

    project.refresh()
    ids = project.dispatcher.audit_sample().tolist()
    finals = project.final_labels()
    kept = [cid for cid in ids if cid in finals and not finals[cid].skipped]
    rows = store.candidate_rows(project.db, kept)
    out = [{"rank": project.rank_of(cid), "key": rows[cid][0], "text": rows[cid][1],
            "label": finals[cid].value,
            "positive": is_positive(finals[cid], project.settings)} for cid in kept]
    return sorted(out, key=lambda r: r["rank"])


def label_notes(project: Project, limit: int = 200) -> list[dict[str, Any]]:
    """Notes annotators left on labels (latest first, at most ``limit``)."""
    noted = [r for r in _rows(project) if r.note][::-1][:limit]
    rows = store.candidate_rows(project.db, sorted({r.candidate_id for r in noted}))
    return [{"key": rows[r.candidate_id][0], "text": rows[r.candidate_id][1],
             "annotator": r.annotator, "label": r.value, "note": r.note,
             "created_at": r.created_at} for r in noted]


def labels_have_guideline_versions(project: Project) -> bool:
    """Was any annotator's current label recorded under a guideline version?

    The same question as ``project_ratings(project).guideline_versions`` asks, without
    building the ratings (the report's agreement section builds them once)."""
    from triage.project.agreement import RATING_KINDS
    from triage.store.curation import label_guideline_versions

    latest: dict[tuple[int, str], int] = {}
    for row in _rows(project):
        if row.value is not None and row.kind in RATING_KINDS:
            latest[(row.candidate_id, row.annotator)] = row.id
    versions = label_guideline_versions(project.db)
    return any(versions.get(i) is not None for i in latest.values())
