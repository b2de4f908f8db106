"""Serving a certification sample: its items come first, blind, until the sample ends.

The sample's order (a seeded random permutation of the unlabelled remainder when the lead
started it) is stored with the certification record; every desk walks the same order and
serves the first item nobody has labelled yet. The project ends the record as soon as the
hypergeometric test rejects "recall < target" (:mod:`triage.project.certify`), and from
then on nothing more is served from it.
"""

from __future__ import annotations

import numpy as np
import sqlite_utils

from triage.serving.dispatcher import Pick
from triage.serving.tracker import LabelTracker
from triage.store.certification import running_certification_id, sample_order

# A pick walks the order a block at a time: only the decided items at its head and the
# first open one are looked at, not a million-item order turned into Python ints.
_BLOCK = 256


def needs_certify_label(tracker: LabelTracker, candidate_id: int) -> bool:
    """True while the candidate has neither a label (skips aside) nor a certify event."""
    for row in tracker.events_of(candidate_id):
        if row.value is not None or row.kind == "certify":
            return False
    return True


class CertifySource:
    """``source(taken)`` → the next certify item for a desk, or None when none is due."""

    def __init__(self, db: sqlite_utils.Database, tracker: LabelTracker) -> None:
        self.db = db
        self.tracker = tracker
        self._order: tuple[int, np.ndarray] | None = None   # (sample id, its stored order)

    def _sample_order(self, cert_id: int) -> np.ndarray:
        """The running sample's order, read once per sample (it never changes)."""
        if self._order is None or self._order[0] != cert_id:
            self._order = (cert_id, sample_order(self.db, cert_id))
        return self._order[1]

    def __call__(self, taken: frozenset[int]) -> Pick | None:
        cert_id = running_certification_id(self.db)
        if cert_id is None:
            return None
        order = self._sample_order(cert_id)
        for start in range(0, order.size, _BLOCK):
            for cid in order[start:start + _BLOCK].tolist():
                if cid not in taken and needs_certify_label(self.tracker, cid):
                    return Pick(int(cid), "certify")
        return None
