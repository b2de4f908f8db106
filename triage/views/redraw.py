"""When the live panels redraw while labels keep coming, without Qt (``ui.panel_control``
sets the timers; the clock is given, so tests use a fake one).

A chart redraw is Python work on the chart thread, and every SQLite
call of a key press then waits its turn for the interpreter lock: a redraw that overlaps a
key press delays the next candidate. So while labels keep coming, one panel (each in turn)
redraws just after a label's next candidate is shown (the annotator is reading it: the
quietest time ahead; three in a row overran a quick annotator's next key), at most every
``min_gap_s``; all of them redraw once the annotator pauses (``pause_s``), and at least
every ``max_defer_s``. (Waiting for a pause alone lined redraws up with a steady
annotator's keys.) While the annotator pauses, after ``checkpoint_every`` label events, the
log is folded into the file.
"""

from __future__ import annotations

import time
from collections.abc import Callable

MIN_GAP_S = 0.3
PAUSE_S = 0.6
MAX_DEFER_S = 5.0
CHECKPOINT_EVERY = 200  # label events between checkpoints taken while the annotator pauses


class RedrawPolicy:
    """The panels' redraw timing and the checkpoints' pacing; ``clock()`` in seconds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *,
                 min_gap_s: float = MIN_GAP_S, pause_s: float = PAUSE_S,
                 max_defer_s: float = MAX_DEFER_S,
                 checkpoint_every: int = CHECKPOINT_EVERY) -> None:
        self.clock = clock
        self.min_gap_s, self.pause_s, self.max_defer_s = min_gap_s, pause_s, max_defer_s
        self.checkpoint_every = checkpoint_every
        self.refreshed_at = float("-inf")   # the last refresh of any panel
        self.all_at = float("-inf")         # ... of every panel
        self.changed_at = float("-inf")     # ... and the last change asked for
        self.turn = 0                       # the panel whose turn it is in a burst
        self.checkpointed_at: int | None = None   # label events at the last checkpoint

    def changed(self) -> bool:
        """A change (a label): True if one panel may redraw just after it."""
        self.changed_at = now = self.clock()
        return now - self.refreshed_at >= self.min_gap_s

    def all_due(self, panels: int) -> bool:
        """At the redraw just after a change: must every panel redraw now?

        Yes when not all have for ``max_defer_s``, or there is only one.
        """
        return self.clock() - self.all_at >= self.max_defer_s or panels < 2

    def next_turn(self, panels: int) -> int:
        """The panel that redraws now, in turn (one of ``panels``)."""
        self.refreshed_at = self.clock()
        self.turn = (self.turn + 1) % panels
        return self.turn

    def all_refreshed(self) -> bool:
        """Every panel redraws now: True if the annotator has paused since the last change."""
        self.refreshed_at = self.all_at = now = self.clock()
        return now - self.changed_at >= self.pause_s

    def checkpoint_due(self, events: int, paused: bool) -> bool:
        """At ``events`` label events: is it time to fold the log into the file?

        The first call only counts from there.
        """
        if self.checkpointed_at is None:
            self.checkpointed_at = events
            return False
        if events - self.checkpointed_at >= self.checkpoint_every and paused:
            self.checkpointed_at = events
            return True
        return False

    def closed(self) -> None:
        """The project closed: count checkpoints afresh for the next one."""
        self.checkpointed_at = None
