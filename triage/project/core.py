"""The open project: sessions, the queue, labels, undo and the live figures.

This is the documented Python API (example in :mod:`triage`). Every label is committed
durably (WAL + synchronous=FULL) before ``record_label`` returns, so whatever the caller
shows next, the label is already safe. What the project knows (ranking, labels followed,
dispatcher, live state) is its :class:`~triage.project.state.ProjectState`; every write
goes through its :class:`~triage.store.writer.ProjectWriter`. Read-only summaries live in
:mod:`triage.project.summary`, imports in :mod:`triage.project.pool`.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlite_utils

import triage.project.cal as cal
import triage.project.certify as certify
import triage.project.pool as pool
import triage.project.summary as summary
from triage import store
from triage.base.errors import TriageError
from triage.project.final import FinalLabel
from triage.project.state import ProjectState
from triage.project.types import Candidate, Progress, ProjectStatus, Session, busy_guard
from triage.serving.bandit import BanditBelief
from triage.serving.calqueue import learning
from triage.serving.dispatcher import Dispatcher, Pick
from triage.serving.queue import decile_of
from triage.serving.tracker import LabelTracker
from triage.stats.live import LiveSnapshot, LiveState
from triage.stats.models.cal import CalConfig, require_sklearn
from triage.store import connection
from triage.store.backups import RollingBackup
from triage.store.calsnap import CalSnapshot
from triage.store.settings import Settings
from triage.store.writer import FileWriter, ProjectWriter

if TYPE_CHECKING:
    from triage.ingest.importer import ColumnMapping, ImportResult


class Project:
    """An open project. Use :func:`open_project` or :func:`create_project`."""

    def __init__(self, path: Path, database: sqlite_utils.Database, backup: Path | None = None,
                 writer: ProjectWriter | None = None):
        self.path = path
        self.db = database
        self.backup = backup
        self.writer: ProjectWriter = writer if writer is not None else FileWriter(database)
        self.backups = RollingBackup(database)   # FILE.backup, refreshed after labelling
        self.state = ProjectState(database, self.writer, store.load_settings(database),
                                  self.location)
        self._served: dict[int, tuple[int, str, str | None]] = {}
        self._returning: dict[int, tuple[int, str, str | None]] = {}

    # -- lifecycle -------------------------------------------------------------------

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the project file now (call when the annotator pauses)."""
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
        """Close the project file (refreshing its backup first when labels were written)."""
        self.backups.at_close()
        self.db.close()

    def reopen(self) -> None:
        """Open the project file afresh after its write-ahead log was lost (LogLost).

        Whatever was written since the log was deleted is not in the file; the caller
        writes it again (the desk keeps its pending decision for that). BusyError while
        another connection of this process still has the file open: try again later.
        """
        database = connection.reopen_after_lost_log(self.db)
        self.db = database
        self.writer = FileWriter(database)
        self.backups.db = database
        self.state = ProjectState(database, self.writer, store.load_settings(database),
                                  self.location)

    def __enter__(self) -> Project:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what the state knows ----------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The project's settings as stored."""
        return self.state.settings

    @property
    def models(self) -> list[store.ModelInfo]:
        """The imported models in import order."""
        return self.state.models

    @property
    def pool(self) -> int:
        """Number of candidates in the pool."""
        return self.state.pool

    @property
    def tracker(self) -> LabelTracker:
        """The active label events of every desk, followed incrementally."""
        return self.state.tracker

    def reload_models(self) -> None:
        """Re-read models and rankings (after an import); the live state is rebuilt lazily."""
        self.state.reload()
        self._served, self._returning = {}, {}

    def active_model(self) -> store.ModelInfo | None:
        """The model whose ranking the queue follows (the setting, else the first)."""
        return self.state.active_model()

    def rank_of(self, candidate_id: int) -> int:
        """1-based rank of a candidate under the active model."""
        return self.state.rank_of(candidate_id)

    def final_labels(self) -> dict[int, FinalLabel]:
        """Every labelled candidate's final label, as of now (followed, not re-read)."""
        return dict(self.state.final_labels())

    @property
    def dispatcher(self) -> Dispatcher:
        """What serves this project's candidates (built on first use)."""
        return self.state.dispatcher

    def bandit_belief(self) -> BanditBelief | None:
        """The bandit's belief about which model's ranking is best (None in follow mode)."""
        self.state.sync()
        bandit = self.dispatcher.bandit
        return bandit.belief() if bandit is not None else None

    # -- settings ------------------------------------------------------------------------

    def update_settings(self, **changes: Any) -> Settings:
        """Validate and store new settings; the live state follows at once."""
        old = self.settings
        new = old.with_changes(**changes)
        names = {m.name for m in self.models}
        if new.active_model is not None and new.active_model not in names | {cal.ARM}:
            raise TriageError(f"there is no model named {new.active_model!r}")
        if learning(new.active_model, new.learn) and not learning(old.active_model, old.learn):
            require_sklearn()  # a clear sentence naming the extra to install, before storing
        self.writer.save_settings(new)
        if new.active_model != old.active_model or new.queue_mode != old.queue_mode:
            self._served, self._returning = {}, {}
        self.state.use_settings(new)
        if self.models and (new.overlap_rate, new.seed, new.active_model) != (
                old.overlap_rate, old.seed, old.active_model):
            self.dispatcher.replan_overlap()
        return new

    def trains_cal(self) -> bool:
        """Whether this desk fits the cal ranking: the project learns and this desk may write."""
        return (bool(self.models) and learning(self.settings.active_model, self.settings.learn)
                and not connection.read_only(self.state.db))

    def store_cal_snapshot(self, snapshot: CalSnapshot) -> int | None:
        """Store a fit of the cal ranking (from the helper); every desk serves it next.

        A fit on fewer labels than the newest stored one (another trainer was quicker) is
        dropped: None.
        """
        if snapshot.last_label_id < cal.newest_label_id(self.state.db):
            return None
        snapshot_id = self.writer.add_cal_snapshot(snapshot)
        self.state.refresh()
        return snapshot_id

    def train_cal(self, force: bool = False) -> CalSnapshot | None:
        """Fit the cal ranking in this process when due (or ``force``) and store it."""
        config = CalConfig(seed=self.settings.seed)
        if not force and not cal.due(self.state.db, self.settings, config):
            return None
        snapshot = cal.train_snapshot(self.state.db, self.settings, config)
        if snapshot is None:
            return None
        stored = self.store_cal_snapshot(snapshot)
        return replace(snapshot, id=stored) if stored is not None else None

    def set_hourly_rate(self, annotator: str, rate: float | None) -> None:
        """Set (or with None clear) an annotator's hourly rate; spend follows."""
        self.writer.set_hourly_rate(annotator, rate)
        self.state.drop_live()

    # -- sessions --------------------------------------------------------------------

    @busy_guard
    def start_session(self, annotator: str) -> Session:
        """Start an annotation session for ``annotator`` (created on first use)."""
        annotator_id = self.writer.ensure_annotator(annotator)
        session_id = self.writer.start_session(annotator_id)
        return Session(annotator.strip(), annotator_id, session_id)

    @busy_guard
    def end_session(self, session: Session) -> None:
        """Record the end of an annotator's session."""
        self.writer.end_session(session.session_id)

    # -- keeping in step with other desks ----------------------------------------------

    def refresh(self) -> None:
        """Follow events and undo marks written since we last looked, by any desk or this one."""
        self.state.refresh()

    # -- the queue -------------------------------------------------------------------

    @busy_guard
    def next_candidate(self, session: Session) -> Candidate | None:
        """The next candidate for this annotator (claimed for them), or None when done."""
        self.state.sync()
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
        self.state.sync()
        return [self._candidate(c) for _r, c, _s in self.dispatcher.queue.peek(count)]

    def _candidate(self, candidate_id: int, kind: str = "triage") -> Candidate:
        key, text, meta, _gold = store.candidate_rows(self.db, [candidate_id])[candidate_id]
        ranking = self.state.ranking()
        rank = int(ranking.ranks[candidate_id])
        score = float(ranking.scores[rank - 1])
        return Candidate(
            candidate_id=candidate_id, key=key, text=text, meta=meta, rank=rank,
            decile=decile_of(rank, self.pool), pool=self.pool, score=score,
            model=ranking.model.name, kind=kind,
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
        ranks = self.state.ranking().ranks
        if not 0 < candidate_id < len(ranks) or ranks[candidate_id] == 0:
            raise TriageError(f"there is no candidate with id {candidate_id}")
        if not change and kind != "adjudication":
            self.state.sync()
            self.tracker.refuse_second_label(session.annotator, candidate_id, kind)
        label_id = self.writer.insert_label(
            candidate_id=candidate_id, annotator_id=session.annotator_id,
            session_id=session.session_id, value=value, kind=kind, seconds=seconds, note=note,
            served_by=served_by,
        )
        self.backups.after_label()
        self.state.refresh()
        if kind == "certify":
            certify.after_certify_label(self.state)
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
        self.writer.mark_undone(last.id, session.session_id)
        self.backups.after_label()
        self.state.refresh()
        dispatcher = self.state.built_dispatcher()
        if dispatcher is not None:
            dispatcher.queue.rewind(self.rank_of(last.candidate_id))
        # Whatever the queue mode, the undone candidate is what this desk shows next,
        # served for the same reason as before (audit, overlap, an arm of the bandit...).
        self._returning[session.session_id] = (last.candidate_id, last.kind, last.served_by)
        return last.candidate_id

    @busy_guard
    def add_note(self, label_id: int, note: str) -> None:
        """Attach (or replace) the note on a label event."""
        self.writer.set_note(label_id, note)
        self.backups.after_label()

    # -- live numbers ----------------------------------------------------------------

    @property
    def live(self) -> LiveState:
        """The incremental gain/spend state (rebuilt from the file on first use)."""
        return self.state.live

    def snapshot(self) -> LiveSnapshot:
        """The live figures now: spend, positives found, yield per decile."""
        return self.state.snapshot()

    # -- read-only summaries (triage.project.summary) ------------------------------------

    def status(self) -> ProjectStatus:
        """Pool, models, annotators, sessions, settings and the live snapshot."""
        return summary.status(self)

    def audit_sample(self) -> tuple[np.ndarray, np.ndarray]:
        """(ranks, is-positive) of the random audit sample handled so far (skips left out)."""
        return summary.audit_sample(self)

    def has_gold(self) -> bool:
        """Does any candidate carry a gold label?"""
        return summary.has_gold(self)

    def gold_positive_in_rank_order(self, model: store.ModelInfo,
                                    flags: np.ndarray | None = None) -> np.ndarray:
        """Bool array: is the candidate at rank r+1 of ``model`` a gold positive?"""
        return summary.gold_positive_in_rank_order(self, model, flags)

    def offline_curves(self, flags: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """Per model, gold positives found after annotating the top r (index r-1)."""
        return summary.offline_curves(self, flags)

    def annotator_table(self) -> list[dict[str, Any]]:
        """Per annotator: labels, skips, positives, seconds per label, sessions, spend."""
        return summary.annotator_table(self)

    # -- import ------------------------------------------------------------------------

    def import_file(self, path: str | Path, mapping: ColumnMapping, *, skip_invalid: bool = False,
                    progress: Progress | None = None) -> ImportResult:
        """Import the candidate pool (one transaction: all or nothing)."""
        result = pool.import_file(self, path, mapping, skip_invalid=skip_invalid,
                                  progress=progress)
        self._served, self._returning = {}, {}
        return result

    def add_scores(self, path: str | Path, *, key: str, scores: list[tuple[str, str]],
                   progress: Progress | None = None) -> ImportResult:
        """Add later models' scores, matched by key; labels are untouched."""
        result = pool.add_scores(self, path, key=key, scores=scores, progress=progress)
        self._served, self._returning = {}, {}
        return result
