"""The one advice state, recomputed off the GUI thread after every change, coalesced.

:meth:`AdviceFeed.request` is called after every label, undo, skip, settings change,
import, merge, adjudication and certification step. The worker hands the project's path to
the advice helper process (:mod:`ui.advice_process`), which opens its own connection to the
project file (SQLite's WAL lets it read while the desk writes) and computes the whole
:class:`~triage.project.advice.AdviceState` there; the GUI thread only receives the frozen
result and hands the same object to every surface. A request made while one computation
runs is remembered, and exactly one more runs after it: never one per label.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QThreadPool

from ui.workers import Worker


class AdviceFeed:
    """Keeps the advice state current without ever blocking the desk."""

    def __init__(self, on_state: Callable[[object], None],
                 on_error: Callable[[str], None] | None = None) -> None:
        self.on_state = on_state
        self.on_error = on_error
        self.worker: Worker | None = None
        self.path: Path | None = None
        self.pending = False
        self.latest = None          # the last AdviceState delivered
        self.runs = 0               # computations started (tests check the coalescing)
        # Its own thread: it mostly waits for the helper process, and must not keep the
        # panels' reads waiting for a slot in the global pool.
        self.pool = QThreadPool()
        self.pool.setMaxThreadCount(1)

    def request(self, path: str | Path | None) -> None:
        """Ask for a fresh state of the project at ``path`` (None: nothing open)."""
        if path is None:
            return
        self.path = Path(path)
        if self.worker is not None:
            self.pending = True
            return
        self._start()

    def _start(self) -> None:
        from ui.advice_process import compute_advice

        path = self.path
        self.pending = False
        self.runs += 1
        worker = Worker(lambda _progress: compute_advice(path))
        worker.signals.finished.connect(self._arrived)
        worker.signals.failed.connect(self._failed)
        worker.signals.cancelled.connect(self._next)
        self.worker = worker
        self.pool.start(worker)

    def _arrived(self, state) -> None:
        self.worker = None
        if self.path is not None:
            self.latest = state
            self.on_state(state)
        self._next()

    def _failed(self, message: str) -> None:
        self.worker = None
        if self.on_error is not None:
            self.on_error(message)
        self._next()

    def _next(self, *_args) -> None:
        self.worker = None
        if self.pending and self.path is not None:
            self._start()

    def clear(self) -> None:
        """Forget the project: results still in flight are dropped."""
        self.path, self.pending, self.latest = None, False, None
