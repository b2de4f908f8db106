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
from typing import Any

from triage.views import tasks
from ui.coalesced_feed import CoalescedFeed
from ui.jobs import ADVICE, HELPERS


class AdviceFeed(CoalescedFeed):
    """Keeps the advice state current without ever blocking the desk."""

    def __init__(self, on_state: Callable[[object], None],
                 on_error: Callable[[str], None] | None = None) -> None:
        super().__init__(on_error, ADVICE)
        self.on_state = on_state
        self.latest: Any = None             # the last AdviceState delivered

    def compute(self, path: Path) -> object:
        """The whole advice state, computed in the advice helper process."""
        return HELPERS.call(tasks.ADVICE, path)

    def deliver(self, result: object) -> None:
        """Keep the state as the latest and hand it to every surface."""
        self.latest = result
        self.on_state(result)

    def clear(self) -> None:
        """Forget the project: results still in flight are dropped."""
        super().clear()
        self.latest = None
