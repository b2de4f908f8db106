"""A job's Qt objects are let go on the GUI thread, never on a thread of the pool.

Dropped on a pool thread, a job's signals object is destroyed there: Qt takes its signal
lock and then waits for the interpreter lock, while the GUI thread, holding the
interpreter lock, waits for the signal lock to make a widget (a hang seen in the suite).
"""

from __future__ import annotations

import threading

from ui.jobs import GENERAL, Worker


def test_every_workers_signals_die_on_the_gui_thread(qtbot):
    died_on: list[str] = []
    finished: list[int] = []
    for i in range(40):
        worker = Worker(lambda _progress, i=i: i)
        worker.signals.destroyed.connect(
            lambda *_: died_on.append(threading.current_thread().name))
        worker.signals.finished.connect(finished.append)
        worker.start(GENERAL)
        del worker   # the caller keeps nothing, as a fire-and-forget job does
    qtbot.waitUntil(lambda: len(finished) == 40 and len(died_on) >= 36, timeout=20_000)
    qtbot.wait(50)
    assert set(died_on) == {threading.main_thread().name}
