"""Reference cycles are collected on the GUI thread only, whatever the pool's jobs allocate.

A collection on a pool thread may free a Qt object caught in a cycle there, which
deadlocks against the GUI thread (ui/gui_collector.py says how; the suite froze on it)."""

from __future__ import annotations

import gc
import threading

from triage.base import startup


class Cycle:
    """Garbage only a collection frees; says on which thread it was freed."""

    def __init__(self, freed_on: list[str]) -> None:
        self.me = self
        self.freed_on = freed_on

    def __del__(self) -> None:
        self.freed_on.append(threading.current_thread().name)


class AllocatingJob:
    """A pool job that leaves cycles behind and allocates enough to cross every threshold."""

    def __init__(self, freed_on: list[str]) -> None:
        self.freed_on = freed_on

    def run(self) -> None:
        for _ in range(20):
            Cycle(self.freed_on)
            junk = [[] for _ in range(20_000)]
            del junk


def test_cycles_left_by_pool_jobs_are_collected_on_the_gui_thread(qtbot):
    from ui.jobs import CHARTS, run_kept

    gc.collect()
    freed_on: list[str] = []
    future = run_kept(CHARTS, AllocatingJob(freed_on))
    qtbot.waitUntil(future.done, timeout=30_000)
    assert future.exception() is None
    # The GUI thread goes on making objects: the young generation's count passes its
    # threshold, and the next check collects there.
    kept = [[] for _ in range(3 * gc.get_threshold()[0])]
    qtbot.waitUntil(lambda: len(freed_on) == 20, timeout=5_000)
    assert len(kept) > 0
    assert set(freed_on) == {threading.main_thread().name}
    assert not gc.isenabled()


def test_the_start_up_measures_leave_collection_to_the_gui_thread(qtbot):
    from ui.gui_collector import collect_on_gui_thread, stop_collecting_on_gui_thread

    assert collect_on_gui_thread()
    startup.desk_started()            # would turn automatic collection back on
    startup.prepare_command("status")
    startup.command_finished()
    assert not gc.isenabled()
    stop_collecting_on_gui_thread()
    assert gc.isenabled()


def test_off_the_gui_thread_nothing_changes(qtbot):
    from triage.base.jobs import Lane
    from ui.gui_collector import collect_on_gui_thread

    assert Lane("probe", 1).submit(collect_on_gui_thread).result(timeout=10) is False
    assert gc.isenabled()
