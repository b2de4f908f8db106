"""What an open project knows, as one object: the ranking, the labels followed, serving, live.

:class:`ProjectState` holds the project's connection and writer, its settings and models,
the active model's ranking (read once, lazily), the tracker that follows every desk's label
events, the dispatcher that serves candidates (built on first use) and the live gain and
spend state (rebuilt on first use after anything it depends on changed). Its methods are
the only way to read or change these, so the order things must happen in (the ranking
before the dispatcher, following the file before serving or counting) lives here once.

The facade (:class:`triage.project.core.Project`) holds one; the helpers it calls
(``certify``, ``pool``, ``summary``) take any object with a ``state`` (:class:`HasState`),
so they never import the facade and the facade and its helpers form no import circle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import sqlite_utils

from triage import store
from triage.base.errors import TriageError
from triage.base.labels import LabelEvent
from triage.project import kept_rankings
from triage.project.final import FinalLabel, final_labels
from triage.project.live_replay import (
    found_live,
    ranked_label,
    ranked_labels,
    replaced_by,
    replay,
)
from triage.serving.compose import build_dispatcher
from triage.serving.dispatcher import Dispatcher
from triage.serving.tracker import LabelTracker
from triage.stats.live import LiveSnapshot, LiveState, RankedLabel
from triage.store import connection
from triage.store.settings import Settings
from triage.store.writer import ProjectWriter


@dataclass(frozen=True)
class Ranking:
    """The active model's frozen ranking: index r-1 of ``order``/``scores`` is rank r."""

    model: store.ModelInfo
    order: np.ndarray    # candidate ids, best first
    scores: np.ndarray   # their scores, in the same order
    ranks: np.ndarray    # candidate id -> 1-based rank (0: no such candidate)


class ProjectState:
    """The ranking, the followed labels, the dispatcher and the live state of one project."""

    def __init__(self, db: sqlite_utils.Database, writer: ProjectWriter, settings: Settings,
                 location: str) -> None:
        self.db = db
        self.writer = writer
        self.settings = settings
        self.location = location       # as the user named the project (a file or an address)
        self.reload()

    def reload(self) -> None:
        """Re-read models (after an import or a new active model); the rest follows lazily."""
        self.models = store.models(self.db)
        self.pool = store.pool_size(self.db)
        self.tracker = LabelTracker()
        self._ranking: Ranking | None = None
        self._dispatcher: Dispatcher | None = None
        self._live: LiveState | None = None
        self._live_events: dict[int, RankedLabel] = {}
        self._finals: dict[int, FinalLabel] | None = None
        self._seen_version: int | None = None
        self._wrote = True

    # -- models and ranking ----------------------------------------------------------

    def active_model(self) -> store.ModelInfo | None:
        """The model whose ranking the queue follows (the setting, else the first)."""
        if not self.models:
            return None
        by_name = {m.name: m for m in self.models}
        return by_name.get(self.settings.active_model or "", self.models[0])

    def require_model(self) -> store.ModelInfo:
        """The active model, or TriageError when nothing was imported yet."""
        model = self.active_model()
        if model is None:
            raise TriageError(f"{self.location} has no candidates yet; import a file first")
        return model

    def ranking(self) -> Ranking:
        """The active model's ranking (read from the file on first use)."""
        if self._ranking is None:
            model = self.require_model()
            order, scores = kept_rankings.ranking(self.db, model.id)
            ranks = np.zeros(int(order.max()) + 1 if order.size else 1, dtype=np.int64)
            ranks[order] = np.arange(1, order.size + 1)
            self._ranking = Ranking(model, order, scores, ranks)
        return self._ranking

    def rank_of(self, candidate_id: int) -> int:
        """1-based rank of a candidate under the active model."""
        return int(self.ranking().ranks[candidate_id])

    # -- serving -----------------------------------------------------------------------

    @property
    def dispatcher(self) -> Dispatcher:
        """What serves this project's candidates (built on first use)."""
        if self._dispatcher is None:
            r = self.ranking()
            self._dispatcher = build_dispatcher(self.db, self.writer, r.order, r.scores,
                                                r.ranks, self.tracker, self.settings,
                                                self.models, self.sync)
        return self._dispatcher

    def built_dispatcher(self) -> Dispatcher | None:
        """The dispatcher if something has built it, else None (never builds one)."""
        return self._dispatcher

    def use_settings(self, new: Settings) -> None:
        """Settings were stored: follow them (a new ranking or queue mode starts afresh)."""
        old, self.settings = self.settings, new
        if (new.active_model, new.queue_mode, new.learn) != (old.active_model, old.queue_mode,
                                                             old.learn):
            self.reload()
            return
        self._live = None  # positives or prices may have changed: rebuild lazily
        if self._dispatcher is not None:
            self._dispatcher.use_settings(new)

    # -- following the file ------------------------------------------------------------

    def note_write(self) -> None:
        """This project has just written: the next :meth:`sync` reads, whatever the file says."""
        self._wrote = True

    def refresh(self) -> None:
        """Follow events and undo marks written since we last looked, by any desk or this one."""
        self.note_write()
        self.sync()

    def sync(self) -> None:
        """Follow label events and undo marks written since we last looked, by any desk."""
        self.ranking()
        # data_version changes when another connection commits; our own writes set
        # _wrote. When neither happened there is nothing new to read.
        version = connection.data_version(self.db)
        if version == self._seen_version and not self._wrote:
            return
        self._seen_version, self._wrote = version, False
        change = self.tracker.sync(self.db)
        if self._finals is not None:   # only the candidates whose events changed
            for cid in {r.candidate_id for r in (*change.added, *change.removed)}:
                self._finals.pop(cid, None)
                self._finals.update(final_labels(self.tracker.events_of(cid)))
        dispatcher = self._dispatcher
        if dispatcher is not None:
            dispatcher.follow(change)
        for row in change.added:
            if self._live is not None:
                ranked = self.ranked(row)
                self._live.apply(ranked)
                self._live_events[row.id] = ranked
        for row in change.removed:
            if self._live is not None:
                ranked = self._live_events.pop(row.id)
                if self.tracker.is_handled(row.candidate_id):
                    # Other labels remain on the candidate: its final label is recomputed
                    # from scratch rather than patched.
                    self._live = None
                else:
                    self._live.revert(ranked)

    def final_labels(self) -> Mapping[int, FinalLabel]:
        """Every labelled candidate's final label, kept and followed with the labels.

        Computed once from the followed events, then only for the candidates an event
        changed; read it before the next write (it follows the labels)."""
        if self.active_model() is None:
            return {}   # nothing imported: no candidates, so no labels
        self.sync()
        if self._finals is None:
            self._finals = final_labels(list(self.tracker.rows.values()))
        return self._finals

    def events(self) -> list[LabelEvent]:
        """Every label event not undone, oldest first (followed, not read afresh)."""
        if self.active_model() is None:
            return []
        self.sync()
        return sorted(self.tracker.rows.values(), key=lambda r: r.id)

    # -- the live numbers --------------------------------------------------------------

    def ranked(self, event: LabelEvent) -> RankedLabel:
        """The live state's view of one label event (its rank and the project's verdict)."""
        positive, credit = self._positive_now(event)
        return ranked_label(event, self.rank_of(event.candidate_id), positive,
                            replaced_by(event, self.tracker.events_of(event.candidate_id)),
                            credit)

    def _positive_now(self, event: LabelEvent) -> tuple[bool, str | None]:
        """Is the candidate found by its final label, counting events up to ``event``, and
        who is credited with it (None: the event's annotator)?"""
        events = [r for r in self.tracker.events_of(event.candidate_id) if r.id <= event.id]
        if len(events) == 1:
            return self.settings.is_positive(event.value), None
        final = final_labels(events).get(event.candidate_id)
        return found_live(final, self.settings)

    @property
    def live(self) -> LiveState:
        """The incremental gain/spend state (rebuilt from the file on first use)."""
        self.sync()
        if self._live is None:
            s = self.settings
            rows = sorted(self.tracker.rows.values(), key=lambda r: r.id)
            events = ranked_labels(rows, self.ranking().ranks, s)
            self._live = replay(
                self.pool, events, price_model=s.price_model, price_per_item=s.price_per_item,
                hourly_rates=store.hourly_rates(self.db, s.default_hourly_rate),
                budget=s.budget, value_per_positive=s.value_per_positive, currency=s.currency,
            )
            self._live_events = {e.event_id: e for e in events}
        return self._live

    def built_live(self) -> LiveState | None:
        """The live state if it is built and current, else None (never builds one)."""
        return self._live

    def install_live(self, live: LiveState, events: dict[int, RankedLabel]) -> None:
        """Adopt a live state built elsewhere from these events (see ``live_build``)."""
        self._live, self._live_events = live, events

    def drop_live(self) -> None:
        """Forget the live state (prices changed): the next use rebuilds it."""
        self._live = None

    def snapshot(self) -> LiveSnapshot:
        """The live figures now: spend, positives found, yield per decile."""
        return self.live.snapshot()


class HasState(Protocol):
    """An open project as its helpers see it: anything holding a :class:`ProjectState`."""

    @property
    def state(self) -> ProjectState:
        """The project's state."""
        ...
