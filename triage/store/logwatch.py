"""Is the write-ahead log this process writes to still the file on disk? And a safe reopen.

SQLite's locks are POSIX advisory locks, owned by a process and a file. If anything in
this process opens and closes the project file behind SQLite's back, they are silently
gone; the next process to close the file then believes it was the last, checkpoints and
deletes ``FILE-wal`` while this process still holds it open and goes on committing into
the deleted file, where no one will ever read it. :mod:`triage.store.connection` keeps
that from happening (one engine per process, nothing else opens the file); this module
notices if it ever does, before a write is acknowledged.

:class:`LogWatch` records the identity (device and inode) of the project file and of its
log as the connection holds them open, found among this process's descriptors, and
compares them with the paths on disk: a ``readlink``, an ``fstat`` and two ``stat``
calls, a few microseconds per write.

:func:`reopen` replaces a connection whose log was lost. Closing that connection would
let SQLite checkpoint the lost log's stale pages into the file, if it could take the
file's exclusive lock; a short-lived helper process holds a read lock meanwhile so it
cannot, then the connection is closed and the file opened afresh.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Iterator

from triage.base.errors import BusyError, LogLost

# SQLite's lock bytes (os_unix.c): a reader holds a read lock on the SHARED range, and a
# connection closing takes a write lock on it before it checkpoints and deletes the log.
_PENDING_BYTE = 0x40000000
_SHARED_FIRST = _PENDING_BYTE + 2
_SHARED_SIZE = 510

_HOLDER = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
    f"fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, {_SHARED_SIZE}, {_SHARED_FIRST}, 0)\n"
    "print('held', flush=True)\n"
    "sys.stdin.read()\n"
)

Identity = tuple[int, int]


def _identity(path: str) -> Identity | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _log_descriptors(log: str) -> list[tuple[int, bool]] | None:
    """(descriptor, deleted) of every descriptor of this process open on ``log`` (a real
    path); None where the system does not say (no ``/proc/self/fd``)."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return None
    found = []
    for name in names:
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        if target == log:
            found.append((int(name), False))
        elif target == f"{log} (deleted)":
            found.append((int(name), True))
    return found


def _held(identity: Identity) -> bool:
    """Does a descriptor of this process (listed in /dev/fd) have that file open?"""
    try:
        names = os.listdir("/dev/fd")
    except OSError:
        return True   # the system does not say: assume all is well
    return any(_same(int(name), identity) for name in names if name.isdigit())


def _same(fd: int, identity: Identity | None) -> bool:
    try:
        info = os.fstat(fd)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == identity


class LogWatch:
    """Watches that the project file and its log are the files this process writes to.

    On Linux the log's descriptor is found in ``/proc/self/fd`` and followed (a
    connection that SQLite closes and opens again gets a new one), and a descriptor on a
    deleted log is the alarm; elsewhere, some descriptor of this process must hold the
    log that is on disk.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        self.log = os.path.realpath(f"{path}-wal")
        self.expected = (_identity(path), _identity(self.log))
        self.log_fd: int | None = None

    def intact(self) -> bool:
        """True while the file and log on disk are the ones this connection has open."""
        if os.name == "nt":
            return True   # Windows locks belong to handles: the question does not arise
        if _identity(self.path) != self.expected[0]:
            return False
        on_disk = _identity(self.log)
        fd = self.log_fd
        if fd is not None and on_disk is not None and _same(fd, on_disk):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/self/fd/{fd}") == self.log:
                    return True
        found = _log_descriptors(self.log)
        if found is None:   # no /proc (macOS): a descriptor of ours holds the log on disk
            return on_disk is not None and _held(on_disk)
        if any(deleted for _fd, deleted in found):
            return False
        self.log_fd = found[0][0] if found else None
        return not found or (on_disk is not None and _same(found[0][0], on_disk))

    def check(self) -> None:
        """Raise :class:`LogLost` unless :meth:`intact`."""
        if not self.intact():
            raise LogLost(lost_sentence(self.path))


def lost_sentence(path: str) -> str:
    """Why a write was not acknowledged: its log was deleted under this process."""
    return (f"another program deleted the write-ahead log of {path} while Triage was "
            "writing to it, so the last change was not saved; open the project again and "
            "repeat it (nothing saved before it was lost)")


@contextlib.contextmanager
def read_lock_elsewhere(path: str) -> Iterator[None]:
    """Hold a read lock on ``path`` from a helper process for the block.

    While it is held no connection, ours included, can take the file's exclusive lock,
    so none checkpoints or deletes a log on closing. BusyError when it cannot be taken.
    """
    try:
        holder = subprocess.Popen([sys.executable, "-I", "-S", "-c", _HOLDER, path],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
    except OSError as error:
        raise BusyError(f"could not reopen {path} safely ({error}); trying again") from error
    try:
        assert holder.stdout is not None
        if holder.stdout.readline().strip() != "held":
            raise BusyError(f"could not reopen {path} safely (another program holds it); "
                            "trying again")
        yield
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait(timeout=30)


def close_without_checkpoint(close: Callable[[], None], path: str) -> None:
    """Run ``close`` (of a connection whose log was lost) so that it writes nothing."""
    with read_lock_elsewhere(path):
        close()
