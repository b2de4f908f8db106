"""The one-off certification sample of a project: start it, follow it, end it.

"Certify now" draws a seeded random order of the unlabelled remainder and stores it with
the positives known at that moment (:mod:`triage.store.certification`); the desks serve it
blind, first, as label kind ``certify``. After every certify label the hypergeometric test
of Callaghan & Müller-Hansen runs on the sample so far — the longest prefix of the sample
order in which every item is decided, a skipped item counting as a positive
(:func:`sample_count`); the sample ends as soon as it rejects "recall < target"
(certified), or when every item of it is decided (not certified), or when the lead cancels
it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from triage import store
from triage.base.errors import TriageError
from triage.project.final import FinalStatus, is_positive
from triage.project.state import HasState, ProjectState
from triage.store import certification as cert_store


def labelled_state(state: ProjectState) -> tuple[np.ndarray, int]:
    """(candidate ids without a label, positives found so far) — skips count as unlabelled."""
    finals = state.final_labels()
    found = sum(1 for f in finals.values() if is_positive(f, state.settings))
    labelled = {cid for cid, f in finals.items() if not f.skipped}
    order = store.rank_order(state.db, state.require_model().id)
    unlabelled = np.array([c for c in order.tolist() if c not in labelled], dtype=np.int64)
    return unlabelled, found


def start_certification(project: HasState,
                        planned: int | None = None) -> cert_store.CertificationRow:
    """Draw and store the sample (or return the one already running)."""
    state = project.state
    running = cert_store.latest_certification(state.db)
    if running is not None and running.running:
        return running
    if not state.models:
        raise TriageError(f"{state.location} has no candidates yet; import a file first")
    unlabelled, found = labelled_state(state)
    if unlabelled.size == 0:
        raise TriageError("nothing is left unlabelled: recall is known exactly, there is "
                          "nothing to certify")
    count = len(cert_store.certifications(state.db))
    rng = np.random.default_rng([state.settings.seed, 0xCE27, count])
    s = state.settings
    state.writer.start_certification(
        target=s.target_recall, confidence=s.confidence, found=found,
        order=rng.permutation(unlabelled), planned=planned, labels_at=state.snapshot().events)
    state.refresh()
    row = cert_store.latest_certification(state.db)
    assert row is not None  # just stored
    return row


@dataclass(frozen=True)
class SampleCount:
    """What the test counts of a sample: its longest decided prefix, in sample order.

    ``n`` items from the start of the order are all decided and ``k`` of them count as
    positives, ``skipped`` of those because they were skipped or left unresolved (the worst
    case for recall). ``waiting`` items further on are decided but not counted until every
    item before them is.
    """

    n: int
    k: int
    skipped: int = 0
    waiting: int = 0


def sample_count(state: ProjectState, row: cert_store.CertificationRow) -> SampleCount:
    """Count the sample as the test sees it: the longest prefix of its order all decided.

    A sample is random only as a prefix of its order: items labelled past an undecided one
    are not a random sample of the rest, so they wait. An item is decided once it has a
    certification label (a skip too) or any decision of another kind (e.g. from a second
    desk on the same file); a skip of another kind leaves it to be served as a certification
    item. It counts with its final label over every kind, and as a positive when that is a
    certification skip or a tie (the worst case for recall). An ended sample keeps the
    prefix and positives stored when it ended: labels made after it (the ranked pass goes
    on) neither extend nor change the certificate.
    """
    order = row.sample_order
    finals = state.final_labels()
    ids = np.fromiter(finals.keys(), np.int64, len(finals))
    ids = ids[np.isin(ids, order)]   # the sample's items with any event: at most the labels
    flags = np.zeros((3, ids.size), dtype=bool)   # decided, positive, worst case
    for i, cid in enumerate(ids.tolist()):
        f = finals[cid]
        certified = any(e.kind == "certify" for e in state.tracker.events_of(cid))
        decided = certified or not f.skipped
        flags[:, i] = (decided, is_positive(f, state.settings),
                       decided and f.status is not FinalStatus.RESOLVED)
    worst = ids[flags[2]]
    if not row.running and row.sample_n is not None:
        n = min(int(row.sample_n), int(order.size))
        return SampleCount(n, int(row.sample_k or 0), int(np.isin(order[:n], worst).sum()), 0)
    return prefix_count(order, ids[flags[0]], ids[flags[1] | flags[2]], worst)


def prefix_count(order: np.ndarray, decided: np.ndarray, positive: np.ndarray,
                 worst: np.ndarray) -> SampleCount:
    """The decided prefix of ``order`` and what it holds; a few vectorised passes.

    ``decided``, ``positive`` and ``worst`` are candidate ids of the sample: decided,
    counted as positives, and of those the worst cases (skips and ties)."""
    n, block = 0, 1024
    # Walk the head of the order in growing blocks: the decided prefix is at most the
    # labels made, so a million-item order is not scanned after every certify label.
    while n < order.size:
        done = np.isin(order[n:n + block], decided)
        if not done.all():
            n += int(np.argmin(done))
            break
        n, block = n + done.size, block * 2
    prefix = order[:n]
    decided_in_order = int(np.unique(decided).size)   # the caller's ids are the sample's
    return SampleCount(n=n, k=int(np.isin(prefix, positive).sum()),
                       skipped=int(np.isin(prefix, worst).sum()),
                       waiting=decided_in_order - n)


def sample_counts(state: ProjectState, row: cert_store.CertificationRow) -> tuple[int, int]:
    """(items of the sample counted, positives among them): the decided prefix only."""
    count = sample_count(state, row)
    return count.n, count.k


def _pvalue(row: cert_store.CertificationRow, n: int, k: int) -> float:
    # Imported here: the stopping package loads the stopping rules and their distribution
    # functions, which opening a project for any other command must not pay.
    from triage.stats.stopping.certify import sample_pvalue

    return float(sample_pvalue(row.found, row.remaining, n, k, row.target))


def after_certify_label(state: ProjectState) -> None:
    """Run the test on the sample so far; end the sample when it is decided."""
    row = cert_store.latest_certification(state.db)
    if row is None or not row.running:
        return
    n, k = sample_counts(state, row)
    p = _pvalue(row, n, k)
    if p < 1 - row.confidence:
        state.writer.end_certification(row.id, outcome="certified", p_value=p,
                                       sample_n=n, sample_k=k)
    elif n >= row.remaining:
        state.writer.end_certification(row.id, outcome="not_certified", p_value=p,
                                       sample_n=n, sample_k=k)


def cancel_certification(project: HasState) -> cert_store.CertificationRow | None:
    """Stop a running sample where it is (its labels stay); returns the ended record."""
    state = project.state
    row = cert_store.latest_certification(state.db)
    if row is None or not row.running:
        return row
    n, k = sample_counts(state, row)
    p = _pvalue(row, n, k)
    state.writer.end_certification(row.id, outcome="cancelled", p_value=p,
                                   sample_n=n, sample_k=k)
    return cert_store.latest_certification(state.db)
