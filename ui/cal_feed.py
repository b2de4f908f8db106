"""The cal ranking, refit off the GUI thread in its own helper process, coalesced.

:meth:`CalFeed.request` is called whenever the advice is (after labels, once the annotator
pauses). The worker hands the project's path to the ``cal`` helper process
(:mod:`ui.advice_process`), which opens its own read connection to the file, fits when
enough new labels came in (every 50, then in growing batches) and sends back the snapshot,
or None when no fit was due. The GUI thread then stores it through the project (one small
write) and the desk serves its order from the next candidate on. The desk never waits for
a fit: until a snapshot arrives it serves the newest one stored.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QThreadPool

from ui.workers import Worker


class CalFeed:
    """Keeps the cal ranking fit on the labels without ever blocking the desk."""

    def __init__(self, on_snapshot: Callable[[object], None]) -> None:
        self.on_snapshot = on_snapshot
        self.worker: Worker | None = None
        self.path: Path | None = None
        self.pending = False
        self.runs = 0
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(1)

    def request(self, path: str | Path | None) -> None:
        """Fit if due, in the helper (a request while one runs: exactly one more after it)."""
        if path is None:
            return
        self.path = Path(path)
        if self.worker is not None:
            self.pending = True
            return
        self._start()

    def _start(self) -> None:
        from ui.advice_process import helper_call

        path = self.path
        self.pending = False
        self.runs += 1
        worker = Worker(lambda _progress: helper_call("cal", path, helper="cal"))
        worker.signals.finished.connect(self._arrived)
        worker.signals.failed.connect(self._next)
        worker.signals.cancelled.connect(self._next)
        self.worker = worker
        self.pool.start(worker)

    def _arrived(self, snapshot) -> None:
        self.worker = None
        if self.path is not None and snapshot is not None:
            self.on_snapshot(snapshot)
        self._next()

    def _next(self, *_args) -> None:
        self.worker = None
        if self.pending and self.path is not None:
            self._start()

    def clear(self) -> None:
        """Forget the project: a fit still in flight is dropped."""
        self.path, self.pending = None, False
