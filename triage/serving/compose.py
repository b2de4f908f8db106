"""Composing what the desk serves from: the ranked queue, the dispatcher and the bandit."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import sqlite_utils

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
    """The dispatcher over the active ranking, with its overlap plan (drawn, without
    writing, when none is stored: see :meth:`Dispatcher.overlap_items`).

    When the queue mode asks for one and there are several models, it also gets the bandit
    over their rankings.
    """
    queue = RankedQueue(order, ordered_scores, tracker.is_handled)
    dispatcher = Dispatcher(db, writer, queue, ranks, order, tracker, settings)
    dispatcher.resync = resync
    dispatcher.certify_pick = CertifySource(db, tracker)  # a running certification sample
    if settings.queue_mode != "follow" and len(models) > 1:
        from triage.serving.bandit import BanditQueue

        bandit = BanditQueue(db, models, settings, tracker.is_handled)
        bandit.fold(sorted(tracker.rows.values(), key=lambda r: r.id))
        dispatcher.bandit = bandit
    return dispatcher
