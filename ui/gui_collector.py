"""Python's cyclic garbage collector, run on the GUI thread only.

CPython collects on whichever thread happens to allocate when a generation's threshold is
crossed. When the pool's threads draw charts and read data, that is often one of them, and
a collection there may free a Qt object caught in a reference cycle. Qt then disconnects it
on that thread, taking its signal lock and waiting for the interpreter lock, while the GUI
thread, holding the interpreter lock, waits for the signal lock to make a widget: both wait
for ever (seen in the suite: a chart job's collection froze the lead window as it filled a
label). :func:`ui.jobs.run_kept` already makes sure a job's own Qt objects are let go on
the GUI thread; this makes sure cycles are too.

So once the GUI starts pool work, automatic collection stops
(:func:`triage.base.startup.collect_on_one_thread`) and a timer on the GUI thread runs the
collections the thresholds ask for, twice a second, as the automatic collector would have
(the young generation when its count passes its threshold, the older ones when theirs do).
"""

from __future__ import annotations

import gc
import threading

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Slot

from triage.base import startup

CHECK_EVERY_MS = 500

_RUNNING: list[GuiThreadCollector] = []


class GuiThreadCollector(QObject):
    """Runs the collections the thresholds ask for, on the thread it lives on (the GUI's)."""

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.timer = QTimer(self)
        self.timer.setInterval(CHECK_EVERY_MS)
        self.timer.timeout.connect(self.collect_due)
        self.timer.start()

    @Slot()
    def collect_due(self) -> None:
        """The collection the automatic collector would have run by now, if any."""
        counts, limits = gc.get_count(), gc.get_threshold()
        if counts[0] <= limits[0]:
            return
        generation = 0
        if counts[1] > limits[1]:
            generation = 2 if counts[2] > limits[2] else 1
        gc.collect(generation)


def collect_on_gui_thread() -> bool:
    """From now on, collect on the GUI thread only (called on it; idempotent).

    False when there is no application, or when called from another thread than the
    main one (the GUI's, where the application was made): nothing changes then."""
    app = QCoreApplication.instance()
    if _RUNNING or app is None or threading.current_thread() is not threading.main_thread():
        return bool(_RUNNING)
    _RUNNING.append(GuiThreadCollector(app))
    startup.collect_on_one_thread()
    return True


def stop_collecting_on_gui_thread() -> None:
    """Automatic collection again (the application is going, or a test ends)."""
    while _RUNNING:
        collector = _RUNNING.pop()
        collector.timer.stop()
        collector.deleteLater()
    startup.collect_on_any_thread()


__all__ = ["CHECK_EVERY_MS", "GuiThreadCollector", "collect_on_gui_thread",
           "stop_collecting_on_gui_thread"]
