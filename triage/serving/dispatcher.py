"""Which candidate a desk gets next: ranked queue, overlap, audit, re-test and claims.

Order of precedence for annotator A (each blind to the annotator: the desk sees only
the candidate):

1. A's own live claim, if A has not labeled that candidate yet (a reopened desk).
2. A blind **re-test** of one of A's labels from an earlier session, when the project's
   re-test rate says one is due in this session.
3. An **audit** item: the next candidate of a seeded uniform random order of the whole
   pool that nobody has handled, when the audit rate says one is due.
4. Otherwise the best-ranked candidate under the active model that is either unhandled or
   an **overlap** item still short of its planned number of labels and not yet seen by A.

A claim marks the served candidate so that no other desk gets it while it is on screen;
claims expire, so a desk that dies frees its candidate.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import sqlite_utils

from triage.base.audit import audit_order
from triage.base.errors import BusyError
from triage.serving.calqueue import ARM, CalQueue
from triage.serving.queue import RankedQueue
from triage.serving.tracker import LabelTracker, SyncResult
from triage.store import claims
from triage.store.settings import Settings
from triage.store.writer import ProjectWriter

if TYPE_CHECKING:
    from triage.serving.bandit import BanditQueue

CLAIM_SECONDS = claims.CLAIM_HOLD_SECONDS  # how long a desk's claim holds a candidate
_OVERLAP_SALT = 0x0E1A9


@dataclass(frozen=True)
class Pick:
    candidate_id: int
    kind: str
    arm: str | None = None     # bandit queue mode: the model whose ranking served it


def overlap_plan(order: np.ndarray, rate: float, seed: int) -> np.ndarray:
    """Candidate ids planned for overlap: ``rate`` of every decile, drawn reproducibly.

    Stratified by decile of the given ranking so the overlap measures agreement over the
    whole range of scores, not only at the top.
    """
    n = order.size
    if n == 0 or rate <= 0:
        return np.empty(0, dtype=np.int64)
    rng = np.random.default_rng([seed, _OVERLAP_SALT])
    bounds = np.ceil(np.arange(11) * n / 10).astype(np.int64)
    chosen = []
    for d in range(10):
        block = order[bounds[d]:bounds[d + 1]]
        k = int(round(rate * block.size))
        if k:
            chosen.append(rng.choice(block, size=k, replace=False))
    return np.sort(np.concatenate(chosen)) if chosen else np.empty(0, dtype=np.int64)


class Dispatcher:
    """Chooses and claims the next candidate for a session."""

    def __init__(self, db: sqlite_utils.Database, writer: ProjectWriter,
                 queue: RankedQueue | CalQueue,
                 ranks: np.ndarray, order: np.ndarray, tracker: LabelTracker,
                 settings: Settings):
        self.db = db                # reads (the overlap plan)
        self.writer = writer        # the plan, and claims: judged where they are written
        self.queue = queue
        self.ranks = ranks          # candidate id -> rank under the active model
        self.order = order          # rank - 1 -> candidate id
        self.tracker = tracker
        self.settings = settings
        self._overlap: set[int] | None = None
        self._plan_unsaved = False  # drawn in memory by a reader; stored by the first serve
        # Overlap items that some but not enough annotators have seen, kept up to date from
        # the tracker's changes so serving never rescans every labeled candidate.
        self._open: set[int] | None = None
        self._open_for: dict[str, set[int]] = {}   # open items an annotator has not seen
        self._audit: np.ndarray | None = None
        self.audit_pointer = 0
        self.bandit: BanditQueue | None = None  # in the bandit/pets queue modes
        self.cal: CalQueue | None = None        # the learned ranking (followed, or an arm)
        # A running certification sample comes first (triage.serving.certify.CertifySource).
        self.certify_pick: Callable[[frozenset[int]], Pick | None] = lambda _taken: None
        # Called after losing a race for a candidate; the project brings the tracker (and
        # everything that follows it, like the live numbers) up to date.
        self.resync: Callable[[], None] = lambda: None

    # -- plans -------------------------------------------------------------------------

    def overlap_items(self) -> set[int]:
        """The overlap plan, stored in the file so every desk uses the same one.

        With none stored (yet) the settings' plan is drawn in memory, never written here:
        reading a project (a report, status) writes nothing. It is stored when this
        dispatcher first serves a candidate (:meth:`choose`)."""
        if self._overlap is None:
            self._overlap = claims.overlap_items(self.db)
            if not self._overlap and self.settings.overlap_rate > 0:
                drawn = overlap_plan(self.order, self.settings.overlap_rate, self.settings.seed)
                self._overlap = {int(i) for i in drawn}
                self._plan_unsaved = bool(self._overlap)
        return self._overlap

    def replan_overlap(self) -> None:
        """Draw the overlap plan for the current settings (labels already made stay)."""
        ids = overlap_plan(self.order, self.settings.overlap_rate, self.settings.seed)
        self.writer.replace_overlap_plan(ids)
        self._overlap = {int(i) for i in ids}
        self._plan_unsaved = False
        self._open, self._open_for = None, {}

    def use_settings(self, settings: Settings) -> None:
        """New project settings (labels per overlap item may have changed)."""
        self.settings = settings
        self._open, self._open_for = None, {}

    def note_changes(self, candidate_ids: Iterable[int]) -> None:
        """Candidates whose labels changed: update which overlap items are still open."""
        if self._open is None:
            return  # built on first use
        plan = self.overlap_items()
        for cid in candidate_ids:
            if cid in plan:
                self._update_open(cid)

    def follow(self, change: SyncResult) -> None:
        """Label events arrived or were undone (any desk): keep the plans and queues in step."""
        if self.cal is not None:
            self.cal.refresh()  # one indexed read; a new snapshot is a few ms to adopt
        if change.added or change.removed:
            self.note_changes({r.candidate_id for r in change.added + change.removed})
        bandit = self.bandit
        if bandit is not None:
            if any(row.served_by for row in change.removed):
                bandit.rebuild(list(self.tracker.rows.values()))
            else:
                bandit.fold(change.added)
        for row in change.removed:
            if not self.tracker.is_handled(row.candidate_id):
                self.queue.rewind(int(self.ranks[row.candidate_id]))
                if bandit is not None:  # cheap: each re-scan stops at its head
                    bandit.rewind(dict.fromkeys(bandit.queues, 1))

    def _update_open(self, cid: int) -> None:
        seen = self.tracker.seen_by(cid)
        open_items = self._open
        assert open_items is not None  # callers build the open set first
        is_open = 0 < len(seen) < self.settings.labels_per_overlap_item
        if is_open:
            open_items.add(cid)
        else:
            open_items.discard(cid)
        for annotator, items in self._open_for.items():
            if is_open and annotator not in seen:
                items.add(cid)
            else:
                items.discard(cid)

    def open_overlap_items(self) -> set[int]:
        """Overlap items that still want another annotator's label."""
        if self._open is None:
            self._open = set()
            for cid in self.tracker.by_candidate.keys() & self.overlap_items():
                self._update_open(cid)
        return self._open

    def audit_sequence(self) -> np.ndarray:
        """The audit sample's order: a seeded uniform shuffle of the pool."""
        if self._audit is None:
            self._audit = audit_order(self.order, self.settings.seed)
        return self._audit

    def audit_sample(self) -> np.ndarray:
        """Candidate ids of the audit sample so far: the handled prefix of the audit order."""
        self._advance_audit()
        return self.audit_sequence()[: self.audit_pointer]

    def audit_job(self) -> Callable[[], None]:
        """Work for another thread: the audit order, ready before a key press needs it.

        The order is a permutation of the whole pool (half a second at 5,000,000)."""
        order, seed = self.order, self.settings.seed

        def work() -> None:
            audit = audit_order(order, seed)
            if self._audit is None and self.order is order and self.settings.seed == seed:
                self._audit = audit

        return work

    def _advance_audit(self) -> None:
        seq = self.audit_sequence()
        while self.audit_pointer < seq.size and self.tracker.is_handled(int(seq[self.audit_pointer])):
            self.audit_pointer += 1

    # -- choosing ------------------------------------------------------------------------

    def live_claims(self, session_id: int, now: float) -> tuple[int | None, frozenset[int]]:
        """(this session's claimed candidate or None, candidates other desks hold)."""
        rows = self.writer.live_claims(now)
        own = [cid for cid, sid in rows if sid == session_id]
        return (own[0] if own else None,
                frozenset(cid for cid, sid in rows if sid != session_id))

    def own_claim(self, own: int | None, annotator: str) -> Pick | None:
        """This desk's still-valid claim as a pick (after a restart), else None."""
        if own is None or annotator in self.tracker.seen_by(own):
            return None
        return Pick(own, self._kind_for(own, annotator))

    def choose(self, session_id: int, annotator: str, now: float,
               taken: frozenset[int] | None = None) -> Pick | None:
        """The next candidate: certification, re-test, audit, overlap, then the queue."""
        if self.overlap_items() and self._plan_unsaved:
            self.writer.replace_overlap_plan(sorted(self._overlap or ()))
            self._plan_unsaved = False
        if taken is None:
            taken = self.live_claims(session_id, now)[1]
        for pick in (self.certify_pick(taken), self._retest(session_id, annotator, taken),
                     self._audit_pick(taken)):
            if pick is not None:
                return pick
        if self.bandit is not None:
            chosen = self.bandit.choose(taken)
            best = Pick(chosen[1], "triage", chosen[0]) if chosen else None
            best_rank = int(self.ranks[chosen[1]]) if chosen else None
        else:
            fresh = self.queue.peek(1, skip=taken)
            best_rank = int(self.ranks[fresh[0][1]]) if fresh else None
            arm = ARM if isinstance(self.queue, CalQueue) else None   # stored in served_by
            best = Pick(fresh[0][1], "triage", arm) if fresh else None
        for cid in self._open_overlap(annotator, taken):
            rank = int(self.ranks[cid])
            if best_rank is None or rank < best_rank:
                best_rank, best = rank, Pick(cid, "overlap")
        return best

    def _kind_for(self, cid: int, annotator: str) -> str:
        return "overlap" if self.tracker.is_handled(cid) else "triage"

    def _open_overlap(self, annotator: str, taken: frozenset[int]) -> list[int]:
        if self.settings.overlap_rate <= 0:
            return []
        items = self._open_for.get(annotator)
        if items is None:
            items = self._open_for[annotator] = {
                cid for cid in self.open_overlap_items()
                if annotator not in self.tracker.seen_by(cid)}
        return [cid for cid in items if cid not in taken]

    def _audit_pick(self, taken: frozenset[int]) -> Pick | None:
        rate = self.settings.audit_rate
        if rate <= 0:
            return None
        total = self.tracker.total_events
        audits = self.tracker.kind_counts.get("audit", 0)
        if audits + 1 > rate * (total + 1):
            return None
        self._advance_audit()
        seq = self.audit_sequence()
        for i in range(self.audit_pointer, min(seq.size, self.audit_pointer + 64)):
            cid = int(seq[i])
            if cid not in taken and not self.tracker.is_handled(cid):
                return Pick(cid, "audit")
        return None

    def _retest(self, session_id: int, annotator: str, taken: frozenset[int]) -> Pick | None:
        rate = self.settings.retest_rate
        if rate <= 0:
            return None
        mine = [r for r in self.tracker.rows.values() if r.annotator == annotator]
        this_session = [r for r in mine if r.session_id == session_id]
        retests = sum(1 for r in this_session if r.kind == "retest")
        if retests + 1 > rate * (len(this_session) + 1):
            return None
        retested = {r.candidate_id for r in mine if r.kind == "retest"}
        earlier = [r for r in mine if r.session_id != session_id and r.value is not None
                   and r.kind in ("triage", "overlap", "audit")
                   and r.candidate_id not in retested and r.candidate_id not in taken]
        if not earlier:
            return None
        # A reproducible but scattered choice, so re-tests are not the most recent items.
        pick = min(earlier, key=lambda r: (r.id * 2654435761 + session_id) % 4294967291)
        return Pick(pick.candidate_id, "retest")

    # -- claims --------------------------------------------------------------------------

    def claim(self, session_id: int, candidate_id: int, now: float,
              annotator: str | None = None, kind: str = "triage") -> bool:
        """Claim a candidate for this session; False if it is no longer free for us.

        The choice was made outside any transaction, so another desk may have claimed or
        labeled the candidate since. Inside the claim's write transaction nobody else can
        commit, so we check again there: the candidate must still be unclaimed by another
        live desk and still need this annotator (unhandled, or an overlap item short of
        its labels that this annotator has not seen).

        Claims need no durability (losing one only frees a candidate), so they are written
        without an fsync; the next label's durable commit carries them to disk anyway.
        """
        return self.writer.claim(session_id, candidate_id, now, now + CLAIM_SECONDS,
                                 lambda: self._still_needed(candidate_id, annotator, kind))

    def _still_needed(self, candidate_id: int, annotator: str | None, kind: str) -> bool:
        """Re-check, inside the write transaction, that the candidate is still ours to label."""
        rows = self.writer.active_label_kinds(candidate_id)
        seen = {name for name, k in rows if k in ("triage", "overlap", "audit", "certify")}
        if kind == "certify":
            return not any(k == "certify" for _name, k in rows)
        if kind == "retest":
            return not any(name == annotator and k == "retest" for name, k in rows)
        if annotator is not None and annotator in seen:
            return False
        if kind == "overlap":
            return 0 < len(seen) < self.settings.labels_per_overlap_item
        return not seen

    def next_for(self, session_id: int, annotator: str) -> Pick | None:
        """Choose and claim; retries when another desk claims the same candidate first."""
        now = time.time()
        mine, taken = self.live_claims(session_id, now)
        own = self.own_claim(mine, annotator)
        if own is not None and self.claim(session_id, own.candidate_id, now, annotator, own.kind):
            return own
        lost: set[int] = set()
        for attempt in range(50):
            if attempt:
                taken = self.live_claims(session_id, now)[1] | lost
            pick = self.choose(session_id, annotator, now, taken)
            if pick is None:
                return None
            if self.claim(session_id, pick.candidate_id, now, annotator, pick.kind):
                return pick
            # Lost a race to another desk: look again with the file as it is now, and past
            # what we lost, so a slow desk among fast ones still moves down the queue.
            lost.add(pick.candidate_id)
            self.resync()
        # Candidates remain but other desks took each one tried: that is "busy", never
        # "done" (None would tell the annotator the pool is finished).
        raise BusyError("other desks took every candidate this desk tried; nothing was "
                        "lost, trying again")
