"""The one-off certification sample of a project: start it, follow it, end it.

"Certify now" draws a seeded random order of the unlabelled remainder and stores it with
the positives known at that moment (:mod:`triage.store.certification`); the desks serve it
blind, first, as label kind ``certify``. After every certify label the hypergeometric test
of Callaghan & Müller-Hansen runs on the sample so far; the sample ends as soon as it
rejects "recall < target" (certified), or when every item of it is labelled (not
certified), or when the lead cancels it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from triage import store
from triage.base.errors import TriageError
from triage.project.final import final_labels
from triage.store import certification as cert_store

if TYPE_CHECKING:
    from triage.project.core import Project


def labelled_state(project: Project) -> tuple[np.ndarray, int]:
    """(candidate ids without a label, positives found so far) — skips count as unlabelled."""
    finals = final_labels(store.active_labels(project.db))
    found = sum(1 for f in finals.values()
                if f.status != "skipped" and f.value is not None
                and project.settings.is_positive(f.value))
    labelled = {cid for cid, f in finals.items() if f.status != "skipped"}
    order = store.rank_order(project.db, project._require_model().id)
    unlabelled = np.array([c for c in order.tolist() if c not in labelled], dtype=np.int64)
    return unlabelled, found


def start_certification(project: Project, planned: int | None = None) -> cert_store.CertificationRow:
    """Draw and store the sample (or return the one already running)."""
    running = cert_store.latest_certification(project.db)
    if running is not None and running.running:
        return running
    if not project.models:
        raise TriageError(f"{project.path} has no candidates yet; import a file first")
    unlabelled, found = labelled_state(project)
    if unlabelled.size == 0:
        raise TriageError("nothing is left unlabelled: recall is known exactly, there is "
                          "nothing to certify")
    count = len(cert_store.certifications(project.db))
    rng = np.random.default_rng([project.settings.seed, 0xCE27, count])
    s = project.settings
    cert_store.start_certification(
        project.db, target=s.target_recall, confidence=s.confidence, found=found,
        order=rng.permutation(unlabelled), planned=planned, labels_at=project.snapshot().events)
    project.refresh()
    row = cert_store.latest_certification(project.db)
    assert row is not None  # just stored
    return row


def sample_counts(project: Project, row: cert_store.CertificationRow) -> tuple[int, int]:
    """(items of the sample labelled, positives among them) from the certify labels."""
    events = [r for r in store.active_labels(project.db) if r.kind == "certify"]
    in_sample = set(row.sample_order.tolist())
    finals = final_labels([r for r in events if r.candidate_id in in_sample])
    n = k = 0
    for f in finals.values():
        if f.status == "skipped" or f.value is None:
            continue
        n += 1
        k += int(project.settings.is_positive(f.value))
    return n, k


def after_certify_label(project: Project) -> None:
    """Run the test on the sample so far; end the sample when it is decided."""
    row = cert_store.latest_certification(project.db)
    if row is None or not row.running:
        return
    n, k = sample_counts(project, row)
    from triage.stats.stopping.certify import sample_pvalue  # scipy: only when testing

    p = float(sample_pvalue(row.found, row.remaining, n, k, row.target))
    if p < 1 - row.confidence:
        cert_store.end_certification(project.db, row.id, outcome="certified", p_value=p,
                                  sample_n=n, sample_k=k)
    elif n >= row.remaining:
        cert_store.end_certification(project.db, row.id, outcome="not_certified", p_value=p,
                                  sample_n=n, sample_k=k)


def cancel_certification(project: Project) -> cert_store.CertificationRow | None:
    """Stop a running sample where it is (its labels stay); returns the ended record."""
    row = cert_store.latest_certification(project.db)
    if row is None or not row.running:
        return row
    n, k = sample_counts(project, row)
    from triage.stats.stopping.certify import sample_pvalue  # scipy: only when testing

    p = float(sample_pvalue(row.found, row.remaining, n, k, row.target))
    cert_store.end_certification(project.db, row.id, outcome="cancelled", p_value=p,
                              sample_n=n, sample_k=k)
    return cert_store.latest_certification(project.db)
