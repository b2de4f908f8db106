"""The one way Triage runs work on threads: a shared pool of daemon threads and lanes.

:class:`Pool` hands each job to a thread taken from one queue (a put costs the caller
microseconds: it never waits for a thread to start or for a lock a busy thread holds) and
returns a :class:`concurrent.futures.Future`. Threads start when work is waiting and none is
idle, up to ``limit``, and then stay. A :class:`Lane` is a named share of the pool: at most
``width`` of its jobs run at once, the rest wait in the order given (a lane of width one
keeps a helper's requests in order, or matplotlib on one thread). A lane is also a drop-in
for ``with ThreadPoolExecutor(n) as pool:`` (``submit``, ``map``; leaving the block waits
for its jobs). Qt-free: the GUI's bridge to Qt signals is ``ui.jobs``.
"""

from __future__ import annotations

import atexit
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any

_Item = tuple[Future, Callable[..., Any], tuple, dict, "Lane | None"]

# How long the interpreter's exit waits for jobs still running. A daemon thread that is
# inside a C++ call (Qt, matplotlib's Agg, Arrow: they let go of the interpreter lock) when
# the interpreter finalizes is ended by pthread_exit as it comes back for the lock; the
# forced unwind through C++ frames calls std::terminate and the process aborts ("terminate
# called without an active exception"). So exit first lets running jobs end.
EXIT_WAIT_S = 10.0


class Pool:
    """Daemon threads running jobs from one queue; at most ``limit`` threads."""

    def __init__(self, limit: int = 32, name: str = "triage-job") -> None:
        self.limit, self.name = limit, name
        self._queue: queue.SimpleQueue[_Item] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = self._idle = self._queued = 0
        self._running = 0
        self._closed = False
        self._quiet = threading.Condition(self._lock)

    @property
    def threads(self) -> int:
        """Threads started so far (they stay)."""
        return self._threads

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` on a thread of the pool; its future."""
        future: Future = Future()
        self.put((future, fn, args, kwargs, None))
        return future

    def put(self, item: _Item) -> None:
        """Queue one job (a lane's, or one of its own); start a thread if none is free."""
        with self._lock:
            self._queued += 1
            grow = self._queued > self._idle and self._threads < self.limit
            if grow:
                self._threads += 1
        if grow:
            threading.Thread(target=self._work, daemon=True,
                             name=f"{self.name}-{self._threads}").start()
        self._queue.put(item)

    def _work(self) -> None:
        while True:
            with self._lock:
                self._idle += 1
            future, fn, args, kwargs, lane = self._queue.get()
            loop = lane is not None and lane.loop
            with self._lock:
                self._idle -= 1
                self._queued -= 1
                if self._closed and not loop:
                    future.cancel()   # the interpreter is exiting: start nothing new
                counted = not loop and not future.cancelled()
                self._running += counted
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        result = fn(*args, **kwargs)
                    except BaseException as error:  # noqa: BLE001 - the future carries it
                        future.set_exception(error)
                    else:
                        future.set_result(result)
            finally:
                with self._lock:
                    self._running -= counted
                    self._quiet.notify_all()
                if lane is not None:
                    lane.left()

    def close(self, timeout: float = EXIT_WAIT_S) -> bool:
        """Start no new job; wait for the running ones (loops excepted); True if none runs.

        Waits ``timeout`` seconds at most."""
        with self._lock:
            self._closed = True
            return self._quiet.wait_for(lambda: self._running == 0, timeout)


_SHARED: list[Pool] = []
_SHARED_LOCK = threading.Lock()


def shared_pool() -> Pool:
    """The process's one pool (made on first use)."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(Pool())
            atexit.register(_SHARED[0].close)
        return _SHARED[0]


class Lane:
    """At most ``width`` of its jobs run at once on ``pool`` (the shared one by default)."""

    def __init__(self, name: str, width: int = 1, pool: Pool | None = None,
                 loop: bool = False) -> None:
        self.name, self.width, self.loop = name, width, loop
        self._pool = pool
        self._waiting: deque[_Item] = deque()
        self._running = 0
        self._idle = threading.Condition()

    @property
    def pool(self) -> Pool:
        """The pool the lane's jobs run on."""
        if self._pool is None:
            self._pool = shared_pool()
        return self._pool

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
        """Run ``fn(*args, **kwargs)`` in this lane; its future."""
        future: Future = Future()
        item: _Item = (future, fn, args, kwargs, self)
        with self._idle:
            go = self._running < self.width
            if go:
                self._running += 1
            else:
                self._waiting.append(item)
        if go:
            self.pool.put(item)
        return future

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any],
            chunksize: int = 1) -> Iterator[Any]:
        """``fn`` over the items in this lane; the results in order (as ``Executor.map``).

        ``chunksize`` items go to a job.
        """
        items = list(zip(*iterables, strict=False))
        chunks = [items[i:i + chunksize] for i in range(0, len(items), max(1, chunksize))]
        futures = [self.submit(lambda chunk: [fn(*args) for args in chunk], chunk)
                   for chunk in chunks]

        def results() -> Iterator[Any]:
            for future in futures:
                yield from future.result()
        return results()

    def left(self) -> None:
        """A job of the lane ended (the pool's thread calls it): start the next waiting."""
        with self._idle:
            item = self._waiting.popleft() if self._waiting else None
            if item is None:
                self._running -= 1
                self._idle.notify_all()
        if item is not None:
            self.pool.put(item)

    @property
    def busy(self) -> bool:
        """Some job of the lane runs or waits."""
        return self._running > 0

    def wait(self, timeout: float | None = None) -> bool:
        """Until no job of the lane runs or waits (or ``timeout`` seconds); True if so."""
        with self._idle:
            return self._idle.wait_for(lambda: self._running == 0, timeout)

    def __enter__(self) -> Lane:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.wait()


def lane(name: str, width: int = 1) -> Lane:
    """A new lane of ``width`` on the shared pool (``with lane("read", 2) as pool:``)."""
    return Lane(name, width)


def start(fn: Callable[[], Any], name: str, loop: bool = False) -> Future:
    """Run ``fn`` on the shared pool now, in a lane of its own; its future.

    For a one-off job someone may wait for with ``result()``, or (``loop``) a long-lived
    loop, which the interpreter's exit does not wait for.
    """
    return Lane(name, loop=loop).submit(fn)
