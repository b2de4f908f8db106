"""One computation on the open project at a time, off the GUI thread, requests coalesced.

The base of :class:`~ui.advice_feed.AdviceFeed` and :class:`~ui.cal_feed.CalFeed`: a request
while a computation runs is remembered, and exactly one more runs after it (never one per
request). Each feed runs in its helper's lane of :mod:`ui.jobs` (one at a time: it mostly
waits for its helper process, and the panels' reads never wait behind it). A result that
arrives after :meth:`CoalescedFeed.clear` is dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ui.jobs import GENERAL, Lane, Worker


class CoalescedFeed:
    """Runs :meth:`compute` for the newest project path, one at a time, without blocking."""

    def __init__(self, on_error: Callable[[str], None] | None = None,
                 lane: Lane = GENERAL) -> None:
        self.on_error = on_error
        self.worker: Worker | None = None
        self.path: Path | None = None
        self.pending = False
        self.runs = 0               # computations started (tests check the coalescing)
        self.lane = lane

    def compute(self, path: Path) -> object:
        """The result for the project at ``path`` (runs in the worker thread)."""
        raise NotImplementedError

    def deliver(self, result: object) -> None:
        """Hand a result on (GUI thread; only while a project is open)."""
        raise NotImplementedError

    def request(self, path: str | Path | None) -> None:
        """Compute for the project at ``path`` (None: nothing open); coalesced while busy."""
        if path is None:
            return
        self.path = Path(path)
        if self.worker is not None:
            self.pending = True
            return
        self._start()

    def _start(self) -> None:
        path = self.path
        assert path is not None
        self.pending = False
        self.runs += 1
        worker = Worker(lambda _progress: self.compute(path))
        worker.signals.finished.connect(self._arrived)
        worker.signals.failed.connect(self._failed)
        worker.signals.cancelled.connect(self._next)
        self.worker = worker
        worker.start(self.lane)

    def _arrived(self, result: object) -> None:
        self.worker = None
        if self.path is not None:
            self.deliver(result)
        self._next()

    def _failed(self, message: str) -> None:
        self.worker = None
        if self.on_error is not None:
            self.on_error(message)
        self._next()

    def _next(self, *_args: object) -> None:
        self.worker = None
        if self.pending and self.path is not None:
            self._start()

    def clear(self) -> None:
        """Forget the project: a computation still in flight is dropped."""
        self.path, self.pending = None, False
