"""Stopping advice for a project: fills :class:`triage.stats.stopping.AdviceInputs` from the file."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from triage import store
from triage.base.errors import TriageError
from triage.project.final import final_labels

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.stats.stopping import Advice, AdviceInputs

# Agreement gates the advice only when it rests on enough overlap items.
MIN_OVERLAP_ITEMS = 30


def advice_inputs(project: Project, *, alpha: float | None = None,
                  overlap_items: int | None = None) -> AdviceInputs:
    """Everything the stopping rules need, from the project's labels and settings."""
    from triage.stats.stopping import AdviceInputs

    s = project.settings
    snap = project.snapshot()
    finals = final_labels(store.active_labels(project.db))
    ranks, positive = [], []
    for cid, final in finals.items():
        if final.status == "skipped":
            continue
        ranks.append(project.rank_of(cid))
        positive.append(final.value is not None and s.is_positive(final.value))
    audit_ranks, audit_positive = project.audit_sample()
    model = project.active_model()
    if model is None:
        raise TriageError(f"{project.path} has no candidates yet; import a file first")
    raw = store.scores_in_rank_order(project.db, model.id)
    if s.price_model == "per_item":
        price = s.price_per_item
    else:  # per hour: the average cost of one event so far stands in for a price
        price = snap.spend / snap.events if snap.events else 0.0
    # The ranked pass's depth: the deepest rank reached by non-audit work.
    audit_set = set(audit_ranks.tolist())
    ranked = [r for r in ranks if r not in audit_set]
    return AdviceInputs(
        pool=project.pool, ranks=np.array(ranks, dtype=np.int64),
        positive=np.array(positive, dtype=bool), audit_ranks=audit_ranks,
        audit_positive=audit_positive, raw_scores=raw, spend=snap.spend, budget=s.budget,
        price=price, value_per_positive=s.value_per_positive, target_recall=s.target_recall,
        confidence=s.confidence, alpha=alpha, overlap_items=overlap_items,
        depth=max(ranked) if ranked else 0,
    )


def project_advice(project: Project) -> Advice:
    """The combined advice (continue / stop / pause) with every rule's numbers."""
    from triage.project.agreement import agreement_for_project
    from triage.stats.stopping import advise

    report = agreement_for_project(project, bootstrap=0, breakdowns=())
    alpha = report.krippendorff_alpha.value
    return advise(advice_inputs(project, alpha=alpha, overlap_items=report.pairable_items))


def advice_job(project: Project) -> Callable[..., dict[str, Any]]:
    """Read what the advice needs now; return ``work()`` that computes it without the file.

    The desk calls this on the GUI thread (reading is quick) and runs ``work`` on a worker
    thread (fitting the calibration and the bounds is the slow part).
    """
    from triage.project.agreement import agreement_for_project
    from triage.stats.stopping import advice_to_json, advise

    report = agreement_for_project(project, bootstrap=0, breakdowns=())
    inputs = advice_inputs(project, alpha=report.krippendorff_alpha.value,
                           overlap_items=report.pairable_items)

    def work(_progress: object = None) -> dict[str, Any]:
        return advice_to_json(advise(inputs))

    return work
