"""Run long core work (import, export, recomputation) off the GUI thread.

The core reports through a plain callback ``progress(done, total) -> bool``; the worker
turns each call into a Qt signal and answers ``False`` once :meth:`Worker.cancel` was
called, so the core aborts (and rolls back) its transaction.
"""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal

from triage.base.errors import TriageError
from triage.base.progress import Progress

Work = Callable[[Progress], Any]


class WorkerSignals(QObject):
    """Signals live on a QObject (a QRunnable cannot have them); delivered queued."""

    progress = Signal(int, int)
    finished = Signal(object)
    failed = Signal(str)
    cancelled = Signal()


class Worker(QRunnable):
    """``Worker(fn)`` runs ``fn(progress)`` in a thread pool and reports by signals.

    Exactly one of ``finished(result)``, ``failed(message)`` or ``cancelled()`` is emitted.
    ``cancelled`` wins whenever ``cancel()`` was called before the work ended, whatever
    ``fn`` did then (the caller asked to have nothing; it cleans up what ``fn`` left).
    A :class:`TriageError` reports its own message; anything else its type, message and
    where it was raised, since that is a bug to report rather than a user error.
    """

    def __init__(self, fn: Work) -> None:
        super().__init__()
        self.fn = fn
        self.signals = WorkerSignals()
        self._cancel = threading.Event()
        self.setAutoDelete(False)  # the owner keeps a reference; Python frees it

    def cancel(self) -> None:
        """Ask the work to stop at its next progress call."""
        self._cancel.set()

    @property
    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    def progress(self, done: int, total: int) -> bool:
        """The Qt-free callback handed to the core."""
        self.signals.progress.emit(int(done), int(total))
        return not self._cancel.is_set()

    def run(self) -> None:
        try:
            result = self.fn(self.progress)
        except TriageError as error:
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
