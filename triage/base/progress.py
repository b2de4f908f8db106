"""The progress callback every long task takes."""

from __future__ import annotations

from collections.abc import Callable

# Called with (done, total) as work proceeds; returning False asks the task to stop
# (it cancels cleanly); True or None carry on.
Progress = Callable[[int, int], "bool | None"]
