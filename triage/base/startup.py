"""Start-up policy: everything Triage defers, masks or freezes to start quickly, and why.

Three measures, each with the versions it was checked against (outside them the plain
behaviour runs: a plain import, the collector left alone). ``bench/bench_startup.py``
times each one as whole processes with it on and off; docs/benchmarks.md has the figures.
No measure touches a private name of another library.

``mask-pandas``
    ``sqlite_utils.db`` imports pandas (and pyarrow through it) at import time only to map
    ``pd.Timestamp`` to TEXT, which Triage never uses, and falls back when the import
    fails. Every command imports sqlite-utils; most never need pandas. While sqlite-utils
    loads, ``sys.modules["pandas"] = None`` (the documented way to make an import fail)
    stands in for pandas, then is removed, so later code imports pandas normally.
``defer-scipy``, ``warm-scipy``
    :mod:`triage.stats.distributions` computes one project state's bounds in pure Python
    (:mod:`triage.stats.incbeta`) and sends only large calls (a backtest's thousands of
    checkpoints) to ``scipy.special``, whose ``__init__`` also prepares every function for
    the array API standard (importing array-api-compat and, through it, much of NumPy: a
    cost of the order of NumPy's own import). It is imported on first use
    (:func:`scipy_special`), so commands that never make such a call never pay it
    (``defer-scipy``: ``status``, ``advise``, ``gain`` and ``report`` no longer import it);
    the backtest, which will, starts the import on the shared pool first thing
    (:func:`prepare_command`, ``warm-scipy``), so it runs while the command reads its data.
    Public names only: no version bound needed.
``freeze-gc``
    Starting the desk creates a few hundred thousand objects that live as long as it does;
    each full collection would walk them all. The collector waits while the desk starts
    (:func:`desk_starting`) and then freezes them out of later collections
    (:func:`desk_started`), as are matplotlib's once the charts load it
    (:func:`freeze_survivors`). At the end of a command, interpreter shutdown would collect
    every object numpy and pyarrow made, for memory the system takes back anyway, so the
    objects are frozen first (:func:`freeze_survivors`).
``pause-gc``
    The lead's quick read-only commands (``status``, ``advise``...) run with the collector
    paused (:func:`prepare_command`): they live for a second or two and make few
    reference cycles, which refcounting cannot free and the process's exit frees anyway,
    while each full collection would walk every object the imports made.
``fork-first``
    ``triage report`` forks its second process (``triage/views/report/side.py``) before it
    imports what only the first one needs, and a process may fork only while it runs one
    thread. So nothing is warmed on a thread for it (a warming import would keep it from
    forking: the report then ran on one core), and the collector pauses while it runs
    (:func:`fork_first`): it makes a few million short-lived objects and ends with the
    command, so collections would only walk them.
"""

from __future__ import annotations

import gc
import importlib
import importlib.util
import os
import sys
from concurrent.futures import Future
from types import ModuleType

# Policies in force; bench/bench_startup.py switches one off to measure what it saves.
ENABLED: dict[str, bool] = {"mask-pandas": True, "defer-scipy": True, "warm-scipy": True,
                            "freeze-gc": True, "pause-gc": True}

# sqlite-utils versions whose ``db`` module treats pandas as optional (checked: 3.x, 4.x).
SQLITE_UTILS_BOUNDS = ((3, 0), (5, 0))
# CPython versions whose collector the freeze was measured on (3.14 collects incrementally).
GC_BOUNDS = ((3, 11), (3, 14))
# Commands that compute bounds in bulk (a backtest's checkpoints), and so need scipy.special.
STATISTICS_COMMANDS = frozenset({"simulate"})
# The lead's quick read-only commands: the collector pauses while they run (``pause-gc``).
QUICK_READS = frozenset({"adjudicate", "advise", "agree", "gain", "status"})

# What a helper process that computes the advice imports before its first request (the
# desk's forkserver preloads these, so forked helpers never pay for them).
HELPER_PRELOAD = ("scipy.special",)

# Commands that fork a helper process before they compute (``fork-first``).
FORK_FIRST = frozenset({"report"})

_WARMING: dict[str, Future] = {}
_PAUSED: list[str] = []   # the command that paused the collector, until it returns
# Set while one thread runs every collection (a GUI: ui.gui_collector): no measure here
# turns automatic collection back on then.
_ONE_THREAD: list[bool] = []


def installed_version(distribution: str, package: str) -> tuple[int, ...] | None:
    """The installed (major, minor) of ``distribution``, or None when it cannot be told.

    Read from the ``.dist-info`` folder beside ``package``: ``importlib.metadata`` would
    answer too, but importing it costs more than the measure this check guards."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.origin:
        return None
    site = os.path.dirname(os.path.dirname(spec.origin))
    prefix = distribution.replace("-", "_") + "-"
    try:
        names = [n for n in os.listdir(site) if n.startswith(prefix) and n.endswith(".dist-info")]
    except OSError:
        return None
    if len(names) != 1:
        return None
    parts = names[0][len(prefix):-len(".dist-info")].split(".")
    numbers = [int(p) for p in parts[:2] if p.isdigit()]
    return tuple(numbers) if len(numbers) == 2 else None


def _within(version: tuple[int, ...] | None, bounds: tuple[tuple[int, ...], ...]) -> bool:
    return version is not None and bounds[0] <= version < bounds[1]


def import_sqlite_utils() -> None:
    """Load sqlite-utils, keeping pandas out of it (``mask-pandas``) where that is safe."""
    if "sqlite_utils" in sys.modules:
        return
    if not ENABLED["mask-pandas"] or "pandas" in sys.modules or not _within(
            installed_version("sqlite-utils", "sqlite_utils"), SQLITE_UTILS_BOUNDS):
        importlib.import_module("sqlite_utils")
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]
    try:
        importlib.import_module("sqlite_utils")
    finally:
        if "pandas" in sys.modules and sys.modules["pandas"] is None:
            del sys.modules["pandas"]


def scipy_special() -> ModuleType:
    """``scipy.special``, imported now if no one has (``defer-scipy``)."""
    return importlib.import_module("scipy.special")


def statistics_loaded() -> None:
    """Called as the distribution functions load: scipy.special now, if not deferred.

    Without ``defer-scipy`` it loads with them, as a plain top-level import would."""
    if not ENABLED["defer-scipy"]:
        scipy_special()


def warm(module: str) -> Future:
    """Start importing ``module`` on the shared pool (once); the import's future."""
    if module not in _WARMING:
        from triage.base.jobs import shared_pool

        _WARMING[module] = shared_pool().submit(importlib.import_module, module)
    return _WARMING[module]


def prepare_command(command: str) -> Future | None:
    """Start what ``command`` will need: ``scipy.special`` for a backtest.

    Returns the import's future; None when the command needs nothing (or no warming)."""
    if fork_first(command):
        return None
    if command in QUICK_READS and _gc_applies("pause-gc") and gc.isenabled():
        gc.disable()
        _PAUSED.append(command)
    if command not in STATISTICS_COMMANDS:
        return None
    return warm("scipy.special") if ENABLED["warm-scipy"] else None


def fork_first(command: str) -> bool:
    """True for a command that forks first: no thread starts for it; the collector pauses.

    The collector runs again when the command returns (:func:`command_finished`)."""
    if command not in FORK_FIRST:
        return False
    if _gc_applies("pause-gc") and gc.isenabled():
        gc.disable()
        _PAUSED.append(command)
    return True


def command_finished() -> None:
    """The command has returned: the collector runs again if it paused for it."""
    if _PAUSED:
        _PAUSED.clear()
        _enable_collector()


def collect_on_one_thread() -> None:
    """Automatic collection stops for good: one thread (the GUI's) runs every collection.

    The measures here pause and resume the collector; after this they leave it off."""
    _ONE_THREAD.append(True)
    gc.disable()


def collect_on_any_thread() -> None:
    """Automatic collection again (the thread that collected stops)."""
    _ONE_THREAD.clear()
    gc.enable()


def _enable_collector() -> None:
    if not _ONE_THREAD:
        gc.enable()


def _gc_applies(policy: str = "freeze-gc") -> bool:
    return ENABLED[policy] and sys.implementation.name == "cpython" and _within(
        sys.version_info[:2], GC_BOUNDS)


def desk_starting() -> None:
    """The desk is about to start: no collection until it has (``freeze-gc``)."""
    if _gc_applies():
        gc.disable()


def desk_started() -> None:
    """The desk is up: what lives now stays out of later collections, which run again."""
    freeze_survivors()
    _enable_collector()


def freeze_survivors() -> None:
    """What exists now lives as long as the process: keep it out of later collections.

    Called once the desk is up, when a library that stays loaded (matplotlib) has been
    imported, and when a command returns just before the process ends (interpreter
    shutdown then skips those objects)."""
    if _gc_applies():
        gc.freeze()
