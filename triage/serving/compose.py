"""Composing what the desk serves from: the ranked queue, the dispatcher and the bandit."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import sqlite_utils

from triage.serving.calqueue import ARM, CalQueue, learning
from triage.serving.certify import CertifySource
from triage.serving.dispatcher import Dispatcher
from triage.serving.queue import RankedQueue
from triage.serving.tracker import LabelTracker
from triage.store.records import ModelInfo
from triage.store.settings import Settings
from triage.store.writer import ProjectWriter


def build_dispatcher(db: sqlite_utils.Database, writer: ProjectWriter, order: np.ndarray,
                     ordered_scores: np.ndarray, ranks: np.ndarray, tracker: LabelTracker,
                     settings: Settings, models: list[ModelInfo],
                     resync: Callable[[], None]) -> Dispatcher:
    """The dispatcher over the active ranking, with its overlap plan.

    The plan is drawn, without writing, when none is stored: see
    :meth:`Dispatcher.overlap_items`.

    When the queue mode asks for one and there are several models, it also gets the bandit
    over their rankings. A project that learns (``learn``, or the active model ``cal``)
    gets the cal queue: followed alone when the active model is ``cal``, else one more
    bandit arm. The frozen ranking given here stays what deciles and yield are counted on.
    """
    imported = RankedQueue(order, ordered_scores, tracker.is_handled)
    cal = (CalQueue(db, imported, tracker.is_handled)
           if learning(settings.active_model, settings.learn) else None)
    queue: RankedQueue | CalQueue = imported
    if cal is not None and settings.active_model == ARM and settings.queue_mode == "follow":
        queue = cal
    dispatcher = Dispatcher(db, writer, queue, ranks, order, tracker, settings)
    dispatcher.cal = cal
    dispatcher.resync = resync
    dispatcher.certify_pick = CertifySource(db, tracker)  # a running certification sample
    if settings.queue_mode != "follow" and len(models) + (cal is not None) > 1:
        from triage.serving.bandit import BanditQueue

        bandit = BanditQueue(db, models, settings, tracker.is_handled, cal)
        bandit.fold(sorted(tracker.rows.values(), key=lambda r: r.id))
        dispatcher.bandit = bandit
    return dispatcher
