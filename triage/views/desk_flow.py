"""The desk's decision flow without Qt: the pending step, its retries, busy, and what to say.

Every decision is committed before the next candidate appears. A decision is a chain of
steps (commit the label, then show the next candidate); :class:`DeskFlow` runs the chain
and, when the file is busy (another program holds the write lock past SQLite's busy
timeout), the team server does not answer, or the disk is full or read-only, keeps the
step pending and says when to try again. A log deleted under the desk is reopened and the
step written again; any other error ends the chain with its sentence. ``ui.desk`` draws
what an :class:`Attempt` says and sets its timer; the clock is given, so tests use a fake.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from triage.base.errors import BusyError, LogLost, ServerUnavailable, TriageError, WriteFailed
from triage.views.desk import IDLE_CAP_SECONDS, spent_seconds
from triage.views.text import feedback_excerpt

Step = Callable[[], "Step | None"]

RETRY_S = 0.5
FAULT_RETRY_S = 3.0   # a full or read-only disk is fixed by a person: retry less often

STILL_SAVING = "Still saving the last decision…"
NOTE_FIRST = "Label something first: a note goes with your last label."
NOTHING_TO_UNDO = "Nothing to undo."
UNDONE = "Undone: the candidate is back."
NOTE_SAVED = "Note saved."


def kept_sentence(error: WriteFailed) -> str:
    """What the desk says while a full or read-only disk keeps a decision pending."""
    return f"{feedback_excerpt(str(error), 240)} Your last decision is kept and will be saved."


@dataclass(frozen=True)
class Attempt:
    """What one attempt came to: retry after ``retry_s`` (None: done), the message to show
    (None: leave it), and whether the desk is busy."""

    retry_s: float | None = None
    message: str | None = None
    busy: bool = False


class DeskFlow:
    """The pending step of the desk, its retries and timing; ``clock()`` in seconds."""

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 retry_s: float = RETRY_S, fault_retry_s: float = FAULT_RETRY_S) -> None:
        self.clock = clock
        self.retry_s, self.fault_retry_s = retry_s, fault_retry_s
        self.pending: Step | None = None
        self.busy = False
        self.offline = False        # busy because the team server is not answering
        self.retry_at: float | None = None   # when the pending step is tried again
        self.shown_at = clock()
        self._recovered = ""        # what to say once a lost write-ahead log was recovered

    # -- timing --------------------------------------------------------------------------
    def shown(self) -> None:
        """A candidate (or none) was put on screen now."""
        self.shown_at = self.clock()

    def spent(self, cap: float = IDLE_CAP_SECONDS) -> float:
        """Seconds since the candidate was shown, clamped to [0, cap]."""
        return spent_seconds(self.shown_at, self.clock(), cap)

    def due(self) -> bool:
        """Is a pending step's retry due now?"""
        return self.pending is not None and (self.retry_at is None
                                             or self.clock() >= self.retry_at)

    # -- steps ---------------------------------------------------------------------------
    def refuse(self) -> str | None:
        """Why a new decision cannot start now (the last one is still pending), or None."""
        return STILL_SAVING if self.pending is not None else None

    def begin(self, step: Step) -> bool:
        """Make ``step`` the pending step; False (nothing done) if one is pending."""
        if self.pending is not None:
            return False
        self.pending = step
        return True

    def clear(self) -> None:
        """Forget the pending step (the project closed)."""
        self.pending, self.retry_at = None, None

    def attempt(self, reopen: Callable[[], object] = lambda: None,
                recovered: str = "") -> Attempt:
        """Run the pending steps until done or stopped; what to do and say next.

        After a lost log, ``reopen()`` runs before the step is tried again, and
        ``recovered`` is said once it is written.
        """
        self.retry_at = None
        while self.pending is not None:
            step = self.pending
            try:
                self.pending = step()
            except BusyError as error:
                self.offline = isinstance(error, ServerUnavailable)
                # Offline: say plainly why; the label stays on screen and is sent on a retry.
                return self._later(self.retry_s, str(error) if self.offline else None)
            except LogLost:  # written into a log deleted under us: write it again
                self._recovered = recovered
                self.pending = _after(reopen, step)
            except WriteFailed as error:
                # A full or read-only disk: the decision stays pending and is written on a
                # retry, as for a busy file; the sentence says what to fix.
                return self._later(self.fault_retry_s, kept_sentence(error))
            except TriageError as error:
                self.pending = None
                self.busy = False
                return Attempt(message=feedback_excerpt(str(error), 240))
            except BaseException:
                self.pending = None
                self.busy = False
                raise
        self.busy = False
        recovered, self._recovered = self._recovered, ""
        return Attempt(message=recovered or None)

    def _later(self, seconds: float, message: str | None) -> Attempt:
        self.busy = True
        self.retry_at = self.clock() + seconds
        return Attempt(retry_s=seconds, message=message, busy=True)


def _after(first: Callable[[], object], step: Step) -> Step:
    """``first()``, then ``step`` again."""
    def again() -> Step | None:
        first()
        return step()
    return again
