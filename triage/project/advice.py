"""One advice state per project state: the object every surface renders.

:func:`advice_state` reads the labels, the audit sample, the settings, the active model's
scores, the agreement and the certification record, runs the stopping rules once, and
returns a frozen :class:`AdviceState`. The CLI ``advise``, the desk banner, the lead
window's Advice tab, the recall band on the gain chart, the Agreement tab's reliability
verdict and the report all render that object and nothing else. The GUI computes it off
its thread on a project opened for the purpose (:func:`advice_state_at`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage import store
from triage.project.final import final_labels, is_positive
from triage.serving.calqueue import serves_cal
from triage.store.certification import last_label_id, latest_certification

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.stats.live import LiveSnapshot
from triage.stats.stopping import Advice, AdviceInputs
from triage.stats.stopping.validity import ADAPTIVE, FROZEN

# Agreement gates the advice only when it rests on enough overlap items.
MIN_OVERLAP_ITEMS = 30
RANKED_KINDS = ("triage", "overlap")  # kinds that move the ranked pass down the ranking


@dataclass(frozen=True)
class AdviceState:
    """The advice for one project state, with what it was computed at. Read-only."""

    advice: dict[str, Any]          # advice_to_json(...) of the stopping rules
    labels_at: int                  # label events (skips included) when it was computed
    settings_revision: str          # short hash of the settings it used
    reliability: dict[str, Any]     # α, overlap items, reading, verdict and its sentence
    certification: dict[str, Any] | None = None  # the latest stored certification sample
    version: tuple = field(default=())  # (last label id, last undo mark, settings, pool)

    @property
    def decision(self) -> str:
        """continue | stop | pause."""
        return str(self.advice.get("decision", "none"))

    def to_json(self) -> dict[str, Any]:
        """``triage advise --json``: the advice keys plus what it was computed at."""
        return {**self.advice, "labels_at": self.labels_at,
                "settings_revision": self.settings_revision, "reliability": self.reliability,
                "certification_record": self.certification}


def settings_revision(project: Project) -> str:
    """A short hash of every setting: changes whenever any setting does."""
    text = repr(sorted(project.settings.to_rows()))
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def state_version(project: Project) -> tuple:
    """What the advice depends on, cheaply: last label id, last undo mark, settings, pool."""
    return (last_label_id(project.db), store.max_undo_seq(project.db), settings_revision(project), project.pool,
            len(project.models))


def _price(project: Project, snap: LiveSnapshot) -> float:
    s = project.settings
    if s.price_model == "per_item":
        return s.price_per_item
    # per hour: the average cost of one event so far stands in for a price
    return snap.spend / snap.events if snap.events else 0.0


def advice_inputs(project: Project, *, alpha: float | None = None,
                  overlap_items: int | None = None,
                  rows: list[store.LabelEvent] | None = None) -> AdviceInputs:
    """Everything the stopping rules need, from the project's labels and settings.

    ``rows``: the active label events, when the caller has just read them (see
    :func:`current_rows`)."""
    from triage.stats.stopping import AdviceInputs

    s = project.settings
    if rows is None:
        rows = current_rows(project)
    snap = project.snapshot()
    ranking = project.state.ranking()  # the active model's ranks and scores, read together
    rank = ranking.ranks
    finals = [f for f in final_labels(rows).values() if not f.skipped]
    ranks = rank[np.fromiter((f.candidate_id for f in finals), np.int64, len(finals))]
    positive = np.fromiter((is_positive(f, s) for f in finals), bool, len(finals))
    audit_ranks, audit_positive = project.audit_sample()
    ranked = [r.candidate_id for r in rows if r.kind in RANKED_KINDS and r.value is not None]
    raw = ranking.scores
    cert = _certification_inputs(project)
    price = _price(project, snap)
    followed = ADAPTIVE if serves_cal(s.active_model, s.learn, s.queue_mode) else FROZEN
    return AdviceInputs(
        pool=project.pool, ranks=ranks, positive=positive, audit_ranks=audit_ranks,
        audit_positive=audit_positive, raw_scores=raw, spend=snap.spend, budget=s.budget,
        price=price if price > 0 else 1e-9, currency=s.currency, value_per_positive=s.value_per_positive,
        target_recall=s.target_recall, confidence=s.confidence, alpha=alpha,
        overlap_items=overlap_items, depth=int(rank[ranked].max()) if ranked else 0,
        exhausted=len(project.tracker.by_candidate) >= project.pool,
        audit_rate=s.audit_rate, ranking=followed, **cert,
    )


def current_rows(project: Project) -> list[store.LabelEvent]:
    """The project's active label events, oldest first, as of now.

    The tracker holds exactly those once refreshed (the rows ``store.active_labels`` would
    read, in id order), so the advice reads the labels once, not once per use."""
    project.refresh()
    return list(project.tracker.rows.values())


def _certification_inputs(project: Project) -> dict[str, Any]:
    from triage.project.certify import sample_count

    row = latest_certification(project.db)
    if row is None or row.outcome == "cancelled":
        return {}
    c = sample_count(project.state, row)
    return {"cert_found": row.found, "cert_remaining": row.remaining, "cert_n": c.n,
            "cert_k": c.k, "cert_skipped": c.skipped, "cert_waiting": c.waiting}


def certification_record(project: Project) -> dict[str, Any] | None:
    """The latest certification sample as plain data (None when there never was one)."""
    from triage.project.certify import sample_count

    row = latest_certification(project.db)
    if row is None:
        return None
    c = sample_count(project.state, row)
    return {"started_at": row.started_at, "target": row.target, "confidence": row.confidence,
            "found_before": row.found, "remaining": row.remaining, "planned": row.planned,
            "labels_at": row.labels_at, "running": row.running, "ended_at": row.ended_at,
            "outcome": row.outcome, "p_value": row.p_value, "labelled": c.n, "positives": c.k,
            "skipped_as_positive": c.skipped, "waiting": c.waiting}


def _reliability(advice_json: dict[str, Any], reading: str) -> dict[str, Any]:
    rule = next((r for r in advice_json.get("reasons", []) if r["rule"] == "reliability"), None)
    nums = rule["numbers"] if rule else {}
    alpha = nums.get("alpha")
    if alpha is not None and isinstance(alpha, float) and math.isnan(alpha):
        alpha = None
    return {"alpha": alpha, "overlap_items": nums.get("overlap_items"),
            "reading": reading if alpha is not None else "undefined",
            "verdict": rule["verdict"] if rule else "continue",
            "code": rule["code"] if rule else ""}


def advice_state(project: Project) -> AdviceState:
    """Compute the one advice state for the project as it is now."""
    from triage.project.agreement import project_reliability
    from triage.stats.agreement.krippendorff import reading
    from triage.stats.stopping import advice_to_json, advise

    version = state_version(project)
    rows = current_rows(project)
    alpha, pairable = project_reliability(project, rows)
    inputs = advice_inputs(project, alpha=alpha.value, overlap_items=pairable, rows=rows)
    data = advice_to_json(advise(inputs))
    return AdviceState(
        advice=data, labels_at=project.snapshot().events,
        settings_revision=settings_revision(project),
        reliability=_reliability(data, reading(alpha)),
        certification=certification_record(project), version=version)


def advice_state_at(path: str | Path) -> AdviceState:
    """Open the project at ``path`` on this thread, compute its advice state, close it."""
    from triage.project.files import open_for_reading

    with open_for_reading(path) as project:
        return advice_state(project)


def project_advice(project: Project) -> Advice:
    """The stopping rules' :class:`~triage.stats.stopping.Advice`.

    Prefer :func:`advice_state`, which every surface renders."""
    from triage.project.agreement import project_reliability
    from triage.stats.stopping import advise

    rows = current_rows(project)
    alpha, pairable = project_reliability(project, rows)
    return advise(advice_inputs(project, alpha=alpha.value, overlap_items=pairable, rows=rows))
