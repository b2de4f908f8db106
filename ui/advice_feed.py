"""The desk's one-line stopping advice, recomputed now and then off the GUI thread."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QThreadPool

from triage.base.errors import TriageError
from ui.analysis import AdviceBanner
from ui.workers import Worker

EVERY_LABELS = 25      # recompute after this many new labels...
EVERY_SECONDS = 60.0   # ...or this long, whichever comes first


class AdviceFeed:
    """Keeps an :class:`AdviceBanner` current without ever blocking the desk."""

    def __init__(self, banner: AdviceBanner, on_advice: Callable[[dict], None] | None = None):
        self.banner = banner
        self.on_advice = on_advice
        self.worker: Worker | None = None
        self._events_at_last = -1
        self._time_at_last = 0.0
        self.latest: dict | None = None

    def maybe_refresh(self, project, events: int) -> None:
        """Start a recomputation when enough has changed and none is running."""
        if project is None or self.worker is not None:
            return
        due = (self._events_at_last < 0 or events - self._events_at_last >= EVERY_LABELS
               or time.monotonic() - self._time_at_last >= EVERY_SECONDS)
        if due:
            self.refresh(project, events)

    def refresh(self, project, events: int) -> None:
        from triage.project.advice import advice_job

        self._events_at_last, self._time_at_last = events, time.monotonic()
        try:
            work = advice_job(project)   # reads the file here, on the GUI thread
        except TriageError:
            return                        # e.g. no candidates yet: nothing to advise
        worker = Worker(lambda _progress: work())
        worker.signals.finished.connect(self._show)
        worker.signals.failed.connect(self._done)
        worker.signals.cancelled.connect(self._done)
        self.worker = worker
        QThreadPool.globalInstance().start(worker)

    def _show(self, advice: dict) -> None:
        self.worker = None
        self.latest = advice
        self.banner.show_advice(advice)
        if self.on_advice is not None:
            self.on_advice(advice)

    def _done(self, *_args) -> None:
        self.worker = None

    def clear(self) -> None:
        self.banner.show_advice(None)
        self.latest, self._events_at_last = None, -1
