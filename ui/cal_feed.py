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
from typing import TYPE_CHECKING, cast

from ui.coalesced_feed import CoalescedFeed

if TYPE_CHECKING:
    from triage.project.cal import CalSnapshot


class CalFeed(CoalescedFeed):
    """Keeps the cal ranking fit on the labels without ever blocking the desk."""

    def __init__(self, on_snapshot: Callable[[CalSnapshot], None]) -> None:
        super().__init__()
        self.on_snapshot = on_snapshot

    def compute(self, path: Path) -> object:
        """Fit if due, in the ``cal`` helper process: the snapshot, or None."""
        from ui.advice_process import helper_call

        return helper_call("cal", path, helper="cal")

    def deliver(self, result: object) -> None:
        """Store a new snapshot (None: no fit was due)."""
        if result is not None:
            self.on_snapshot(cast("CalSnapshot", result))  # what the cal helper returns
