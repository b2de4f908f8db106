"""The GUI's one way to run background work: the lanes of the shared pool, the helper
processes, and the bridge from a job's future to Qt signals.

Every thread the GUI uses is a thread of the process's one pool
(:func:`triage.base.jobs.shared_pool`); each kind of work has its :class:`Lane`, a share of
the pool that runs at most so many of its jobs at once, in order:

- ``CHARTS`` (1): every chart render (matplotlib shares caches between figures);
- ``PANELS`` (3): the panels' reads (two of them wait on a helper process);
- ``ADVICE``, ``CAL``, ``LEAD``, ``MODELS`` (1 each): the requests to each helper process,
  which serves one at a time (the Models tab never waits for the lead's helper);
- ``PICTURES`` (2), ``THUMBNAILS`` (2): decoding the desk's pictures, the lead's thumbnails;
- ``DATA_QUERIES``, ``DATA_INDEX`` (1 each): the data manager's queries, its search index;
- ``GENERAL`` (4): the rest (imports, exports, reports, loading chart modules).

A put onto the pool never makes the GUI thread wait for a thread to start (the desk probe
once caught ``QThreadPool.start`` holding it, under load).

:class:`Worker` is the one bridge from a job to Qt: ``Worker(fn).start(lane)`` runs
``fn(progress)`` in ``lane``; the core reports through the plain callback
``progress(done, total) -> bool``, which the worker turns into a ``progress`` signal and
answers ``False`` once :meth:`Worker.cancel` was called (the core then aborts and rolls
back); when the job's future is done, exactly one of ``finished(result)``,
``failed(message)`` or ``cancelled()`` is emitted, queued to the GUI thread.

``HELPERS`` is the set of helper processes (:mod:`ui.advice_process`), asked for with typed
tasks (:mod:`triage.views.tasks`), never names.
"""

from __future__ import annotations

import contextlib
import threading
import traceback
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot

from triage.base.errors import TriageError
from triage.base.jobs import Lane
from triage.base.progress import Progress
from ui.advice_process import HELPERS_RUNNING, HelperProcesses
from ui.gui_collector import collect_on_gui_thread

Work = Callable[[Progress], Any]

CHARTS = Lane("charts", 1)
PANELS = Lane("panels", 3)
ADVICE = Lane("advice", 1)
CAL = Lane("cal", 1)
LEAD = Lane("lead", 1)
MODELS = Lane("models", 1)
PICTURES = Lane("pictures", 2)
THUMBNAILS = Lane("thumbnails", 2)
GENERAL = Lane("general", 4)
DATA_QUERIES = Lane("data-queries", 1)   # the data manager's queries, on its own connection
DATA_INDEX = Lane("data-index", 1)       # ... and its search index, built beside them
LANES = (CHARTS, PANELS, ADVICE, CAL, LEAD, MODELS, PICTURES, THUMBNAILS, GENERAL,
         DATA_QUERIES, DATA_INDEX)
HELPERS: HelperProcesses = HELPERS_RUNNING
# The lane of each helper's requests: one at a time, as the helper serves them.
HELPER_LANES = {"advice": ADVICE, "cal": CAL, "lead": LEAD, "models": MODELS}


# The lanes' jobs draw charts and compute while the desk answers keys. With Python's
# default 5 ms switch interval, every SQLite call the desk makes (which lets go of the
# interpreter lock) could wait a whole interval to get it back from a busy job, and a key
# press makes many such calls. A shorter interval keeps those waits short while a chart is
# drawn during a key (bench/picture_probe.py, bench/desk_probe.py; the figures are in
# docs/benchmarks.md, "One pool"). So it stays.
SWITCH_INTERVAL_S = 0.0001


def quick_handover() -> None:
    """Let the GUI thread win the interpreter lock back quickly from the pool's jobs
    (process-wide; ``ui.app`` calls it once the desk is built)."""
    import sys

    sys.setswitchinterval(SWITCH_INTERVAL_S)


def wait_for_images(seconds: float = 1.0) -> bool:
    """Let the lanes that make images (charts, pictures, thumbnails) finish, ``seconds``
    at most in all: no image may be made while Qt goes away (quitting)."""
    import time

    end = time.monotonic() + seconds
    return all(lane.wait(max(0.0, end - time.monotonic()))
               for lane in (CHARTS, PICTURES, THUMBNAILS))


class WorkerSignals(QObject):
    """Signals live on a QObject (made on the GUI thread); delivered queued."""

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()


class Worker:
    """``Worker(fn).start(lane)`` runs ``fn(progress)`` in ``lane`` and reports by signals.

    Exactly one of ``finished(result)``, ``failed(message)`` or ``cancelled()`` is emitted.
    ``cancelled`` wins whenever ``cancel()`` was called before the work ended, whatever
    ``fn`` did then (the caller asked to have nothing; it cleans up what ``fn`` left).
    A :class:`TriageError` or ``OSError`` (a file gone, no permission) reports its own
    message; anything else its type, message and where it was raised, since that is a bug
    to report rather than a user error.
    """

    def __init__(self, fn: Work) -> None:
        self.fn = fn
        self.signals = WorkerSignals()
        self.future: Future | None = None
        self._cancel = threading.Event()

    def start(self, lane: Lane = GENERAL) -> Worker:
        """Run in ``lane``; the signals follow (the worker is kept until it reported)."""
        self.future = run_kept(lane, self)
        return self

    def cancel(self) -> None:
        """Ask the work to stop at its next progress call (or not to begin)."""
        self._cancel.set()

    @property
    def is_cancelled(self) -> bool:
        """Was :meth:`cancel` called?"""
        return self._cancel.is_set()

    def progress(self, done: int, total: int) -> bool:
        """The Qt-free callback handed to the core."""
        self.signals.progress.emit(int(done), int(total))
        return not self._cancel.is_set()

    def run(self) -> None:
        """Run the work here and report (a thread of the pool calls it)."""
        if self._cancel.is_set():
            self._end()
            return
        try:
            result = self.fn(self.progress)
        except (TriageError, OSError) as error:
            self._end(failed=str(error))
        except Exception as error:  # noqa: BLE001 - a worker must always report back
            frame = traceback.extract_tb(error.__traceback__)[-1]
            where = f"{frame.filename}:{frame.lineno}"
            self._end(failed=f"unexpected error: {type(error).__name__}: {error} (at {where})")
        else:
            self._end(result=result)

    def _end(self, *, failed: str | None = None, result: Any = None) -> None:
        try:
            if self._cancel.is_set():
                self.signals.cancelled.emit()
            elif failed is not None:
                self.signals.failed.emit(failed)
            else:
                self.signals.finished.emit(result)
        except RuntimeError:
            # The signals' Qt object went with its owner (a window closed, or the program
            # quitting) while the work ran: there is nobody left to report to.
            pass


class _Keeper(QObject):
    """Holds each job run by :func:`run_kept` until its thread has let go of it."""

    released = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.kept: set[Any] = set()
        self.released.connect(self._release, Qt.ConnectionType.QueuedConnection)

    @Slot(object)
    def _release(self, ref: weakref.ref) -> None:
        self.kept.discard(ref())   # the last reference goes here, on the GUI thread


_KEEPER: list[_Keeper] = []


def run_kept(lane: Lane, job: Any) -> Future:
    """Run ``job.run()`` in ``lane``; ``job`` is let go on the GUI thread, never on the pool's.

    A job holds Qt objects (its signals, and the slots connected to them). Were a pool
    thread the last to let go of one, Qt would disconnect it there, taking Qt's signal lock
    and then waiting for the interpreter lock, while the GUI thread, holding the interpreter
    lock, waits for Qt's signal lock to make a widget: both wait for ever. So the job is
    kept here (called on the GUI thread), the thread holds it only by a weak reference while
    it runs, and hands it back when done. For the same reason, reference cycles are
    collected on the GUI thread from the first job on (:mod:`ui.gui_collector`).
    """
    collect_on_gui_thread()
    if not _KEEPER:
        _KEEPER.append(_Keeper())
    keeper = _KEEPER[0]
    keeper.kept.add(job)
    return lane.submit(_run_then_hand_back, weakref.ref(job), keeper)


def _run_then_hand_back(ref: weakref.ref, keeper: _Keeper) -> None:
    job = ref()
    if job is not None:
        job.run()
        del job   # this thread's last reference, before the keeper lets go of its own
    with contextlib.suppress(RuntimeError):   # Qt is going away: nobody to release to
        keeper.released.emit(ref)


def progress_dialog(worker: Worker, parent: Any, text: str, title: str,
                    delay_ms: int) -> Any:
    """A cancellable progress dialog following ``worker`` (shown after ``delay_ms``)."""
    from PySide6.QtWidgets import QProgressDialog

    dialog = QProgressDialog(text, "Cancel", 0, 100, parent)
    dialog.setWindowTitle(title)
    dialog.setMinimumDuration(delay_ms)
    dialog.canceled.connect(worker.cancel)
    worker.signals.progress.connect(
        lambda done, total: dialog.setValue(int(100 * done / max(1, total))))
    return dialog
