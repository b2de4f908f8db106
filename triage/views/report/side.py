"""The report's second core: the models' section computed in a forked process.

A report at a million candidates spends most of its time in a section that needs nothing
from the others: the models' (value tables and calibration on every gold label, the gain
report). :func:`start_side` forks a child before the parent opens the project; the child
waits until the parent has opened (and, if need be, migrated and checked) the file, opens
its own connection read-only, computes that section with the same functions the parent
would call, and sends it back pickled through a pipe. The parent meanwhile builds the
other sections and draws their charts. A first, smaller part (the gold curves, which the
parent needs early) can be sent ahead of the rest (:meth:`Side.first`), by a thread of the
child, so the child computes on while the parent is not yet reading.

Forking is only safe in a process that runs one thread (a lock another thread holds at the
fork is held forever in the child), so :func:`can_fork` asks for Linux and a single thread:
the command line. The lead window's "Export report…" runs on a worker thread of the desk
and computes every section in its own process, as before. Every failure of the child
(an error, a crash, a kill) leaves the parent to compute the section itself, so the
report is the same either way.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, NoReturn

SideWork = Callable[[Any], dict[str, Any]]


def can_fork() -> bool:
    """True where a child may be forked safely: Linux, in a process of one thread."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from the pipe; None when it ends first (the child failed)."""
    chunks, left = [], size
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _send_first(out: int, value: Any) -> Future:
    """Send the first part (length, then pickle) from a job: the child computes on."""
    from triage.base.jobs import start

    payload = pickle.dumps(("ok", value), protocol=pickle.HIGHEST_PROTOCOL)
    framed = len(payload).to_bytes(8, "little") + payload
    return start(lambda: _write_all(out, framed), "report-send-first")


def _child(go: int, out: int, path: Path, work: SideWork, prepare: Callable[[], object] | None,
           first: SideWork | None) -> NoReturn:
    """Prepare, wait for the parent's go, compute, send the pickled result; exit."""
    code, sender = 1, None
    try:
        if prepare is not None:   # e.g. imports, while the parent opens the project
            prepare()
        if os.read(go, 1) == b"1":
            from triage.project.files import open_for_reading

            with open_for_reading(path) as project:
                if first is not None:
                    sender = _send_first(out, first(project))
                result: tuple[str, Any] = ("ok", work(project))
        else:
            result = ("skip", None)
        payload = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        if sender is not None:
            sender.result()
        with os.fdopen(out, "wb") as sink:
            sink.write(payload)
        code = 0
    except BaseException:   # noqa: BLE001 - the parent computes it itself then
        code = 1
    finally:
        if sender is not None:   # the first part is whole, even when the rest failed
            with contextlib.suppress(BaseException):   # never leave without os._exit
                sender.exception()
        os._exit(code)   # no atexit handlers, no flushing of the parent's buffers


def _unpickled(payload: bytes | None) -> Any:
    """The value of an ("ok", value) payload; None for anything else (the child failed)."""
    try:
        status, value = pickle.loads(payload) if payload else ("failed", None)
    except Exception:   # noqa: BLE001 - a truncated payload: compute it here
        status, value = "failed", None
    return value if status == "ok" else None


class Side:
    """A forked child computing ``work(project)`` on its own connection."""

    def __init__(self, pid: int, go: int, result: int, names: tuple[str, ...] = (),
                 first: bool = False) -> None:
        self.pid, self._go, self._result = pid, go, result
        self.names = names   # the sections it computes
        self._value: dict[str, Any] | None = None
        self._first: dict[str, Any] | None = None
        self._first_pending = first   # a first part is coming and has not been read
        self._done = False

    def first(self) -> dict[str, Any] | None:
        """The child's first part (see :func:`start_side`), or None if it failed.

        Waits for it; asked again, gives the same."""
        if self._first_pending and not self._done:
            self._signal(b"0")   # never told to start: let it exit rather than wait for it
            self._first_pending = False
            size = _read_exactly(self._result, 8)
            payload = None if size is None else _read_exactly(
                self._result, int.from_bytes(size, "little"))
            self._first = _unpickled(payload)
            if self._first is None:   # the child failed: nothing more will come
                self.result()
        return self._first

    def go(self) -> None:
        """The parent has opened the project: the child may open it too."""
        self._signal(b"1")

    def _signal(self, byte: bytes) -> None:
        if self._go >= 0:
            with contextlib.suppress(OSError):   # the child is gone: result() says None
                os.write(self._go, byte)
            os.close(self._go)
            self._go = -1

    def result(self) -> dict[str, Any] | None:
        """The child's sections, or None if it failed (then compute them here)."""
        if not self._done:
            self._signal(b"0")   # never started: let it exit
            if self._first_pending:
                self.first()
            if self._done:   # the first part failed, and so the child
                return None
            try:
                payload = _read_all(self._result)
            finally:
                os.close(self._result)
                os.waitpid(self.pid, 0)
                self._done = True
            self._value = _unpickled(payload)
        return self._value

    def close(self) -> None:
        """Stop the child if it still runs (the report was cancelled or failed) and reap it."""
        if self._done:
            return
        self._signal(b"0")
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.close(self._result)
        os.waitpid(self.pid, 0)
        self._done = True

    def __enter__(self) -> Side:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# glibc's mallopt parameters: arrays of a million numbers are allocated and freed dozens of
# times per report; by default each comes from a fresh mmap, and every page of it faults
# in again (about a sixth of a report's CPU time, most of it the kernel's).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
_KEEP_BYTES = 1 << 30


def reuse_freed_memory() -> bool:
    """Make this process (a command that ends soon) reuse the memory it frees (glibc only).

    Freed blocks stay with the process instead of going back to the kernel, so the next
    large array reuses pages already mapped. True when the allocator took the setting."""
    import ctypes
    import platform

    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        libc = ctypes.CDLL(None)
        return bool(libc.mallopt(_M_MMAP_THRESHOLD, _KEEP_BYTES)) and \
            bool(libc.mallopt(_M_TRIM_THRESHOLD, _KEEP_BYTES))
    except (OSError, AttributeError):
        return False


def start_side(path: str | Path, work: SideWork, names: tuple[str, ...] = (),
               prepare: Callable[[], object] | None = None,
               first: SideWork | None = None) -> Side | None:
    """Fork a child that will compute ``work(project)``; None where forking is not safe.

    ``names``: the sections ``work`` returns (:attr:`Side.names`, for the parent to skip).
    ``prepare``: what the child may do before the project is open (imports), in the time
    the parent takes to open it; a failure there is a failure of the child. ``first``:
    computed before ``work`` and sent at once (:meth:`Side.first`), for what the parent
    needs early.
    Both processes then reuse the memory they free (:func:`reuse_freed_memory`): this runs
    only in a process of one thread, the command line's, which ends with the report."""
    if not can_fork():
        return None
    reuse_freed_memory()
    go_r, go_w = os.pipe()
    out_r, out_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:   # the child
        os.close(go_w)
        os.close(out_r)
        _child(go_r, out_w, Path(path), work, prepare, first)
    os.close(go_r)
    os.close(out_w)
    return Side(pid, go_w, out_r, names, first is not None)


__all__ = ["Side", "can_fork", "reuse_freed_memory", "start_side"]
