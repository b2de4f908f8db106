"""The advice (and the panels' whole-file reads) computed in a helper process, so that it
never competes with the desk.

An advice state takes seconds to compute, and much of that is Python code: on a thread of
the desk's process it would hold the interpreter lock the desk needs to answer a key (every
SQLite call the desk makes gives the lock up and must win it back). So the computation runs
in one long-lived helper process (started on first use; a daemon, ended with the desk;
once the desk has settled, helpers fork from a server that has imported what they need).
:func:`helper_call` sends a helper a typed task (:mod:`triage.views.tasks`) and a project
path and waits for the result, on a thread of :mod:`ui.jobs`: the advice, the offline
curves and checkpoints, the lead window's agreement and disagreements (a second helper, ``helper="lead"``, started when the lead window first opens) and for its
model comparison (a third, ``helper="models"``: on a million candidates it takes a second or
two, its permutation tests much longer, and the other tabs should not queue behind them).
Each helper serves its requests one at a time; they run side by side, so a lead window
never waits for an advice computation, nor the Agreement tab for the Models tab.

The desk's process never opens the project file a second time either: closing any file
descriptor of a file drops every POSIX lock the process holds on it, including the shared
lock of the desk's own SQLite connection, and another process may then take the file's
write-ahead log away from under the desk ("disk I/O error").

This module imports no Qt: the helper process imports it to find :func:`serve`.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from pathlib import Path
from typing import Any

from triage.base import startup
from triage.views.tasks import HELPERS, Helper, Task

# The advice helper works in the background; the lead window's helper computes what a
# person is waiting for, and keeps the desk's priority.
NICENESS = {"advice": 10, "cal": 10}


def serve(connection, niceness: int = 0) -> None:
    """The helper's loop: (Task, path, args, kwargs) in, ``("ok", result)`` or
    ``("error", message)`` out; ``niceness``: how far below the desk it runs."""
    from triage.base.errors import TriageError

    if niceness and hasattr(os, "nice"):
        # On a machine with few cores the helper's imports and computations would take
        # processor time from the desk (its first seconds most of all); lowered, it gets
        # what the desk leaves.
        with contextlib.suppress(OSError):
            os.nice(niceness)

    while True:
        try:
            task, path, args, kwargs = connection.recv()
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", task.resolve()(path, *args, **kwargs))
        except TriageError as error:
            reply = ("error", str(error))
        except Exception as error:  # noqa: BLE001 - the desk reports it; the helper lives on
            reply = ("error", f"unexpected error: {type(error).__name__}: {error}")
        try:
            connection.send(reply)
        except OSError:  # the desk has gone
            return


# What the helpers import to do their work. Helpers fork from a server process that has
# imported these once (multiprocessing's "forkserver"), so the helpers started when the lead
# window opens begin at once, instead of each paying for the imports again on a machine
# the window's own drawing keeps busy. (A server, not the desk: a fork of a process
# running Qt threads is not safe.) The desk starts the server once it has settled
# (prepare_lead_helpers), so its imports never compete with the desk's start: a helper
# needed before that (the advice's, for the panels' curves) is spawned. Without a
# forkserver, every helper is spawned.
PRELOAD = ["ui.advice_process", "triage.project.advice", "triage.project.live_build",
           "triage.views.analysis", "triage.views.gallery", "triage.views.models",
           *startup.HELPER_PRELOAD]
FORKED = ("lead", "models")   # these start the server if it is not running yet


class HelperProcesses:
    """The helper processes of one desk (``ui.jobs.HELPERS``): started on first use, one
    request at a time each, ended with the desk (daemons) or by :meth:`stop`."""

    def __init__(self) -> None:
        self._locks = {helper: threading.Lock() for helper in HELPERS}
        self._servers: dict[str, tuple[Any, Any]] = {}  # helper -> (process, connection)
        self._forkserver = False   # this process has started the server helpers fork from

    def process(self, helper: Helper) -> Any:
        """The running process of ``helper`` (None if it is not running)."""
        server = self._servers.get(helper)
        return server[0] if server is not None else None

    def _start_method(self, helper: str) -> Any:
        if "forkserver" not in multiprocessing.get_all_start_methods() or (
                helper not in FORKED and not self._forkserver):
            return multiprocessing.get_context("spawn")
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        self._forkserver = True
        return context

    def prepare(self) -> None:
        """Start the server the helpers fork from, if not yet (returns at once; the server
        imports on its own, on a thread of the shared pool)."""
        if "forkserver" not in multiprocessing.get_all_start_methods() or self._forkserver:
            return
        from multiprocessing import forkserver

        from triage.base.jobs import start

        self._start_method(FORKED[0])
        start(forkserver.ensure_running, "triage-forkserver")

    def _connection(self, helper: Helper) -> Any:
        server = self._servers.get(helper)
        if server is None or not server[0].is_alive():
            context = self._start_method(helper)
            ours, theirs = context.Pipe()
            process = context.Process(target=serve, args=(theirs, NICENESS.get(helper, 0)),
                                      daemon=True, name=f"triage-{helper}")
            process.start()
            theirs.close()
            server = self._servers[helper] = (process, ours)
        return server[1]

    def call(self, task: Task, path: str | Path, *args: Any, **kwargs: Any) -> Any:
        """Run ``task`` (:mod:`triage.views.tasks`) on ``path`` in its helper; wait for it."""
        from triage.base.errors import TriageError

        helper = task.helper
        with self._locks[helper]:
            connection = self._connection(helper)
            try:
                connection.send((task, str(path), args, kwargs))
                status, value = connection.recv()
            except (EOFError, OSError) as error:
                self._servers.pop(helper, None)
                raise TriageError(f"the {helper} helper stopped: {error}") from error
        if status != "ok":
            raise TriageError(value)
        return value

    def stop(self, helper: Helper = "advice") -> None:
        """End a helper process (a daemon: the desk's exit ends it anyway); a request
        waiting on it fails, which is how the lead window cancels a model comparison."""
        server = self._servers.pop(helper, None)
        if server is not None:
            server[0].terminate()  # a request waiting on it fails with "the helper stopped"


HELPERS_RUNNING = HelperProcesses()   # the process's one set (ui.jobs hands it out)


def helper_call(task: Task, path: str | Path, *args: Any, **kwargs: Any) -> Any:
    """Run ``task`` on ``path`` in its helper process and wait (HelperProcesses.call)."""
    return HELPERS_RUNNING.call(task, path, *args, **kwargs)


def stop_helper(helper: Helper = "advice") -> None:
    """End ``helper``'s process (HelperProcesses.stop)."""
    HELPERS_RUNNING.stop(helper)


def prepare_lead_helpers() -> None:
    """Start the server the lead's helpers fork from (HelperProcesses.prepare)."""
    HELPERS_RUNNING.prepare()
