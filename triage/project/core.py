"""The open project: sessions, the queue, labels, undo and the live figures.

This is the documented Python API (example in :mod:`triage`). Every label is committed
durably (WAL + synchronous=FULL) before ``record_label`` returns, so whatever the caller
shows next, the label is already safe. Read-only summaries live in
:mod:`triage.project.summary`, imports in :mod:`triage.project.pool`.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

import triage.project.certify as certify
import triage.project.pool as pool
import triage.project.summary as summary
from triage import store
from triage.base.errors import TriageError
from triage.project.final import final_labels
from triage.project.history import refuse_second_label
from triage.project.live_replay import label_events, replay
from triage.project.types import Candidate, Progress, Session, busy_guard
from triage.serving.bandit import BanditBelief
from triage.serving.compose import build_dispatcher
from triage.serving.dispatcher import Dispatcher, Pick
from triage.serving.queue import decile_of
from triage.serving.tracker import LabelTracker
from triage.stats.live import LabelEvent, LiveSnapshot, LiveState
from triage.store import connection
from triage.store.schema import LABEL_KINDS
from triage.store.settings import Settings

if TYPE_CHECKING:
    from triage.ingest.importer import ColumnMapping, ImportResult


class Project:
    """An open project file. Use :func:`open_project` or :func:`create_project`."""

    def __init__(self, path: Path, database, backup: Path | None = None):
        self.path = path
        self.db = database
        self.backup = backup
        self.settings = store.load_settings(self.db)
        self.reload_models()

    # -- lifecycle -------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the project file now, without waiting for anyone.

        Call it when the annotator pauses; otherwise SQLite does it inside some commit.
        """
        connection.checkpoint(self.db)

    def set_busy_timeout(self, seconds: float) -> None:
        """How long a write waits for another desk's lock before BusyError (default 10 s).

        The desk uses a short wait so that it can say "busy, retrying" instead of freezing.
        """
        connection.set_busy_timeout(self.db, seconds)

    @property
    def location(self) -> str:
        """Where the project lives, as the user named it (a team project: its address)."""
        return str(self.path)

    def close(self) -> None:
        """Close the project file."""
        self.db.close()

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- models and ranking ----------------------------------------------------------

    def reload_models(self) -> None:
        """Re-read models and rankings (after an import); the live state is rebuilt lazily."""
        self.models = store.models(self.db)
        self.pool = store.pool_size(self.db)
        self._order: np.ndarray | None = None
        self._rank_of: np.ndarray | None = None
        self._dispatcher: Dispatcher | None = None
        self._live: LiveState | None = None
        self._live_events: dict[int, LabelEvent] = {}
        self._served: dict[int, tuple[int, str, str | None]] = {}
        self._returning: dict[int, tuple[int, str, str | None]] = {}
        self._seen_version: int | None = None
        self._wrote = True
        self.tracker = LabelTracker()

    def active_model(self) -> store.ModelInfo | None:
        """The model whose ranking the queue follows (the setting, else the first)."""
        if not self.models:
            return None
        by_name = {m.name: m for m in self.models}
        return by_name.get(self.settings.active_model or "", self.models[0])

    def rank_of(self, candidate_id: int) -> int:
        """1-based rank of a candidate under the active model."""
        return int(self._ranks()[candidate_id])

    def _ranks(self) -> np.ndarray:
        if self._rank_of is None:
            model = self._require_model()
            order, scores = store.ranking(self.db, model.id)
            ranks = np.zeros(int(order.max()) + 1 if order.size else 1, dtype=np.int64)
            ranks[order] = np.arange(1, order.size + 1)
            self._order, self._ordered_scores, self._rank_of = order, scores, ranks
        return self._rank_of

    def _require_model(self) -> store.ModelInfo:
        model = self.active_model()
        if model is None:
            raise TriageError(f"{self.path} has no candidates yet; import a file first")
        return model

    @property
    def dispatcher(self) -> Dispatcher:
        """What serves this project's candidates (built on first use)."""
        if self._dispatcher is None:
            ranks = self._ranks()
            assert self._order is not None  # set by _ranks()
            self._dispatcher = build_dispatcher(self.db, self._order, self._ordered_scores, ranks,
                                                self.tracker, self.settings, self.models,
                                                self._sync)
        return self._dispatcher

    def bandit_belief(self) -> BanditBelief | None:
        """The bandit's belief about which model's ranking is best (None in follow mode)."""
        self._sync()
        bandit = self.dispatcher.bandit
        return bandit.belief() if bandit is not None else None

    # -- settings ------------------------------------------------------------------------

    def update_settings(self, **changes: Any) -> Settings:
        """Validate and store new settings; the live state follows at once."""
        new = self.settings.with_changes(**changes)
        if new.active_model is not None and new.active_model not in {m.name for m in self.models}:
            raise TriageError(f"there is no model named {new.active_model!r}")
        store.save_settings(self.db, new)
        old = self.settings
        self.settings = new
        if new.active_model != old.active_model or new.queue_mode != old.queue_mode:
            self.reload_models()
        else:
            self._live = None  # positives or prices may have changed: rebuild lazily
            if self._dispatcher is not None:
                self._dispatcher.use_settings(new)
        if self.models and (new.overlap_rate, new.seed, new.active_model) != (
                old.overlap_rate, old.seed, old.active_model):
            self.dispatcher.replan_overlap()
        return new

    def set_hourly_rate(self, annotator: str, rate: float | None) -> None:
        """Set (or with None clear) an annotator's hourly rate; spend follows."""
        store.set_hourly_rate(self.db, annotator, rate)
        self._live = None

    # -- sessions --------------------------------------------------------------------

    @busy_guard
    def start_session(self, annotator: str) -> Session:
        """Start an annotation session for ``annotator`` (created on first use)."""
        annotator_id = store.ensure_annotator(self.db, annotator)
        session_id = store.start_session(self.db, annotator_id)
        return Session(annotator.strip(), annotator_id, session_id)

    @busy_guard
    def end_session(self, session: Session) -> None:
        """Record the end of an annotator's session."""
        store.end_session(self.db, session.session_id)

    # -- keeping in step with other desks ----------------------------------------------

    def refresh(self) -> None:
        """Follow events and undo marks written since we last looked, by any desk or this one."""
        self._wrote = True
        self._sync()

    def _sync(self) -> None:
        """Follow label events and undo marks written since we last looked, by any desk."""
        self._ranks()
        # data_version changes when another connection commits; our own writes set
        # _wrote. When neither happened there is nothing new to read.
        version = connection.data_version(self.db)
        if version == self._seen_version and not self._wrote:
            return
        self._seen_version, self._wrote = version, False
        change = self.tracker.sync(self.db)
        if self._dispatcher is not None and (change.added or change.removed):
            self._dispatcher.note_changes({r.candidate_id for r in change.added + change.removed})
        bandit = self._dispatcher.bandit if self._dispatcher is not None else None
        if bandit is not None:
            if any(row.served_by for row in change.removed):
                bandit.rebuild(list(self.tracker.rows.values()))
            else:
                bandit.fold(change.added)
        for row in change.added:
            if self._live is not None:
                event = self._event(row)
                self._live.apply(event)
                self._live_events[row.id] = event
        for row in change.removed:
            if not self.tracker.is_handled(row.candidate_id) and self._dispatcher is not None:
                self._dispatcher.queue.rewind(self.rank_of(row.candidate_id))
                if bandit is not None:
                    for queue in bandit.queues.values():
                        queue.cursor = 1  # cheap enough: each re-scan stops at its head
            if self._live is not None:
                event = self._live_events.pop(row.id)
                if self.tracker.is_handled(row.candidate_id):
                    # Other labels remain on the candidate: its final label is recomputed
                    # from scratch rather than patched.
                    self._live = None
                else:
                    self._live.revert(event)

    def _positive_now(self, row: store.LabelRow) -> bool:
        """Is the candidate positive by its final label, counting events up to ``row``?"""
        events = [r for r in self.tracker.events_of(row.candidate_id) if r.id <= row.id]
        if len(events) == 1:
            return self.settings.is_positive(row.value)
        final = final_labels(events).get(row.candidate_id)
        return final is not None and self.settings.is_positive(final.value)

    def _event(self, row: store.LabelRow) -> LabelEvent:
        return LabelEvent(
            event_id=row.id, rank=self.rank_of(row.candidate_id), annotator=row.annotator,
            positive=self._positive_now(row), skipped=row.value is None,
            seconds=row.seconds, kind=row.kind,
        )

    # -- the queue -------------------------------------------------------------------

    @busy_guard
    def next_candidate(self, session: Session) -> Candidate | None:
        """The next candidate for this annotator (claimed for them), or None when done."""
        self._sync()
        pick = self._returning_pick(session)
        if pick is None:
            pick = self.dispatcher.next_for(session.session_id, session.annotator)
        if pick is None:
            return None
        self._served[session.session_id] = (pick.candidate_id, pick.kind, pick.arm)
        return self._candidate(pick.candidate_id, pick.kind)

    def _returning_pick(self, session: Session) -> Pick | None:
        back = self._returning.pop(session.session_id, None)
        if back is None:
            return None
        cid, kind, arm = back
        if session.annotator in self.tracker.seen_by(cid):
            return None
        if not self.dispatcher.claim(session.session_id, cid, time.time(), session.annotator,
                                     kind):
            return None
        return Pick(cid, kind, arm)

    def upcoming(self, count: int) -> list[Candidate]:
        """The next ``count`` unlabeled candidates in ranking order (previews, prefetch)."""
        self._sync()
        return [self._candidate(c) for _r, c, _s in self.dispatcher.queue.peek(count)]

    def _candidate(self, candidate_id: int, kind: str = "triage") -> Candidate:
        key, text, meta, _gold = store.candidate_rows(self.db, [candidate_id])[candidate_id]
        model = self._require_model()
        rank = self.rank_of(candidate_id)
        score = float(self._ordered_scores[rank - 1])
        return Candidate(
            candidate_id=candidate_id, key=key, text=text, meta=meta, rank=rank,
            decile=decile_of(rank, self.pool), pool=self.pool, score=score,
            model=model.name, kind=kind,
        )

    # -- labels ----------------------------------------------------------------------

    @busy_guard
    def record_label(
        self,
        session: Session,
        candidate_id: int,
        value: str | None,
        *,
        seconds: float = 0.0,
        note: str | None = None,
        kind: str | None = None,
        change: bool = False,
    ) -> int:
        """Record (and durably commit) one label; ``value=None`` records a skip.

        ``kind`` defaults to why the candidate was served to this session (triage,
        overlap, audit or re-test), so callers never have to know, and the desk stays blind.
        One label per decision: a second one by the same annotator on the same candidate
        raises AlreadyRecorded unless ``change`` says it is a change of mind (the history).
        """
        served = self._served.get(session.session_id)
        served_by = served[2] if served is not None and served[0] == candidate_id else None
        if kind is None:
            if served is not None and served[0] == candidate_id:
                kind = served[1]
            else:
                kind = "overlap" if self.tracker.is_handled(candidate_id) else "triage"
        if value is not None and value not in {o.value for o in self.settings.labels}:
            raise TriageError(f"{value!r} is not a label of this project's scheme")
        if kind not in LABEL_KINDS:
            raise TriageError(f"unknown label kind {kind!r}")
        ranks = self._ranks()
        if not 0 < candidate_id < len(ranks) or ranks[candidate_id] == 0:
            raise TriageError(f"there is no candidate with id {candidate_id}")
        if not change and kind != "adjudication":
            self._sync()
            refuse_second_label(self.tracker, session.annotator, candidate_id, kind)
        seconds = max(0.0, float(seconds))
        label_id = store.insert_label(
            self.db, candidate_id=candidate_id, annotator_id=session.annotator_id,
            session_id=session.session_id, value=value, kind=kind, seconds=seconds, note=note,
            served_by=served_by,
        )
        self._wrote = True
        self._sync()
        if kind == "certify":
            certify.after_certify_label(self)
        return label_id

    def skip(self, session: Session, candidate_id: int, *, seconds: float = 0.0,
             note: str | None = None, kind: str | None = None) -> int:
        """Seen and paid for, but no class: the candidate is not served again."""
        return self.record_label(session, candidate_id, None, seconds=seconds, note=note,
                                 kind=kind)

    @busy_guard
    def undo(self, session: Session) -> int | None:
        """Undo the annotator's last label (any session); returns its candidate id or None."""
        last = store.last_active_label(self.db, session.annotator_id)
        if last is None:
            return None
        store.mark_undone(self.db, last.id, session.session_id)
        self._wrote = True
        self._sync()
        if self._dispatcher is not None:
            self._dispatcher.queue.rewind(self.rank_of(last.candidate_id))
        # Whatever the queue mode, the undone candidate is what this desk shows next,
        # served for the same reason as before (audit, overlap, an arm of the bandit...).
        self._returning[session.session_id] = (last.candidate_id, last.kind, last.served_by)
        return last.candidate_id

    @busy_guard
    def add_note(self, label_id: int, note: str) -> None:
        """Attach (or replace) the note on a label event."""
        store.set_note(self.db, label_id, note)

    # -- live numbers ----------------------------------------------------------------

    @property
    def live(self) -> LiveState:
        """The incremental gain/spend state (rebuilt from the file on first use)."""
        self._sync()
        if self._live is None:
            s = self.settings
            rows = sorted(self.tracker.rows.values(), key=lambda r: r.id)
            events = label_events(rows, self._ranks(), s)
            self._live = replay(
                self.pool, events, price_model=s.price_model, price_per_item=s.price_per_item,
                hourly_rates=store.hourly_rates(self.db, s.default_hourly_rate),
                budget=s.budget, value_per_positive=s.value_per_positive, currency=s.currency,
            )
            self._live_events = {e.event_id: e for e in events}
        return self._live

    def snapshot(self) -> LiveSnapshot:
        """The live figures now: spend, positives found, yield per decile."""
        return self.live.snapshot()

    # Read-only summaries: functions of the project in summary.py, bound here as methods.
    audit_sample = summary.audit_sample
    status = summary.status
    has_gold = summary.has_gold
    gold_positive_in_rank_order = summary.gold_positive_in_rank_order
    offline_curves = summary.offline_curves
    annotator_table = summary.annotator_table

    # -- import ------------------------------------------------------------------------

    def import_file(self, path: str | Path, mapping: ColumnMapping, *, skip_invalid: bool = False,
                    progress: Progress | None = None) -> ImportResult:
        """Import the candidate pool (one transaction: all or nothing)."""
        return pool.import_file(self, path, mapping, skip_invalid=skip_invalid, progress=progress)

    def add_scores(self, path: str | Path, *, key: str, scores: list[tuple[str, str]],
                   progress: Progress | None = None) -> ImportResult:
        """Add later models' scores, matched by key; labels are untouched."""
        return pool.add_scores(self, path, key=key, scores=scores, progress=progress)
