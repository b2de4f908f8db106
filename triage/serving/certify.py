"""Serving a certification sample: its items come first, blind, until the sample ends.

The sample's order (a seeded random permutation of the unlabelled remainder when the lead
started it) is stored with the certification record; every desk walks the same order and
serves the first item nobody has labelled yet. The project ends the record as soon as the
hypergeometric test rejects "recall < target" (:mod:`triage.project.certify`), and from
then on nothing more is served from it.
"""

from __future__ import annotations

import sqlite_utils

from triage.serving.dispatcher import Pick
from triage.serving.tracker import LabelTracker
from triage.store.certification import latest_certification


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

    def __call__(self, taken: frozenset[int]) -> Pick | None:
        row = latest_certification(self.db)
        if row is None or not row.running:
            return None
        for cid in row.sample_order.tolist():
            if cid not in taken and needs_certify_label(self.tracker, cid):
                return Pick(int(cid), "certify")
        return None
