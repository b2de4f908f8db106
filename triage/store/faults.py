"""What went wrong with a project file, as one sentence that says what to do.

SQLite and the operating system report faults as codes ("database or disk is full",
``ENOSPC``, "attempt to write a readonly database", "database disk image is malformed").
:func:`explain` turns each into the matching :mod:`triage.base.errors` exception with a
message a user can act on; the command line and the desk show ``str()`` of it.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

from triage.base.errors import BusyError, DamagedProject, ProjectError, TriageError, WriteFailed

# Primary result codes (extended codes carry them in the low byte).
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 5, 6, 8, 10, 11, 13, 14, 26
_FULL_ERRNO = {errno.ENOSPC, errno.EDQUOT}
_READONLY_ERRNO = {errno.EROFS, errno.EACCES, errno.EPERM}
MIN_FREE_MB = 32  # what a label, its log frame and a checkpoint need, with room to spare


def free_mb(where: str | Path | None) -> float | None:
    """Free space (MB) on the file system holding ``where``; None when unknown."""
    if where is None:
        return None
    folder = Path(where)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if folder.is_file():
        folder = folder.parent
    try:
        return shutil.disk_usage(folder).free / 1e6
    except OSError:
        return None


def _code(error: BaseException) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    return int(code) & 0xFF if code is not None else None


def kind_of(error: BaseException, where: str | Path | None = None) -> str | None:
    """'full', 'readonly', 'busy', 'damaged', 'cantopen' or 'io' for a file fault; else None."""
    text = str(error).lower()
    if isinstance(error, OSError) and error.errno is not None:
        if error.errno in _FULL_ERRNO:
            return "full"
        if error.errno in _READONLY_ERRNO:
            return "readonly"
        return "io" if error.errno == errno.EIO else None  # a missing input file is no fault
    if not isinstance(error, sqlite3.Error):
        return _foreign_kind(error, where)
    code = _code(error)
    if code == _FULL or "disk is full" in text:
        return "full"
    if code == _READONLY or "readonly" in text or "read-only" in text:
        # A project opened read-only because the disk had no room for its log is full.
        return "full" if _writable(where) and _low(where) else "readonly"
    if code in (_BUSY, _LOCKED) or "locked" in text or "busy" in text:
        return "busy"
    if code in (_CORRUPT, _NOTADB) or "malformed" in text or "not a database" in text:
        return "damaged"
    if code == _CANTOPEN or "unable to open" in text:
        return "cantopen"
    if code == _IOERR or "disk i/o error" in text:
        # A write that fails for want of space often surfaces as a plain I/O error.
        return "full" if _low(where) else "io"
    return None


# What SQLite and the system say, as other libraries pass it on in their own exceptions.
_FOREIGN_SIGNS = (("full", ("database or disk is full", "no space left on device",
                            "disk quota exceeded", "sqlite_full")),
                  ("readonly", ("attempt to write a readonly database",
                                "read-only file system")),
                  ("damaged", ("database disk image is malformed", "file is not a database")),
                  ("busy", ("database is locked",)),
                  ("io", ("disk i/o error",)))
_FOREIGN_MODULES = ("adbc_driver", "pyarrow")


def _foreign_kind(error: BaseException, where: str | Path | None) -> str | None:
    """The fault behind an error of the bulk writer (ADBC's SQLite driver, Arrow), from its
    text, whether raised here or passed on from a child process; else None."""
    module = type(error).__module__ or ""
    if not module.startswith(_FOREIGN_MODULES) and type(error) not in (RuntimeError, Exception):
        return None
    text = " ".join(str(error).lower().split())
    for kind, signs in _FOREIGN_SIGNS:
        if any(sign in text for sign in signs):
            return "full" if kind == "io" and _low(where) else kind
    return None


def _low(where: str | Path | None) -> bool:
    free = free_mb(where)
    return free is not None and free < MIN_FREE_MB


def _writable(where: str | Path | None) -> bool:
    if where is None:
        return False
    path = Path(where)
    return os.access(path, os.W_OK) and os.access(path.resolve().parent, os.W_OK)


def explain(error: BaseException, where: str | Path | None = None,
            *, doing: str = "") -> TriageError | None:
    """The user-facing exception for a file fault (None: not a fault we recognise).

    ``where`` is the project file (or the folder being written); ``doing`` a few words on
    what was being done ("your last label is kept and will be saved"), added to the end.
    """
    kind = kind_of(error, where)
    if kind is None:
        return None
    name = str(where) if where is not None else "the project file"
    tail = f"; {doing}" if doing else ""
    if kind == "full":
        return full_disk(where, doing)
    if kind == "readonly":
        return WriteFailed(f"{name} cannot be written (the file or its folder is read-only): "
                           "make it writable, or copy it to a writable folder; reading "
                           f"commands (status, export, report) still work{tail}")
    if kind == "busy":
        return BusyError(f"{name} is busy: another program (a desk, the sqlite3 shell) is "
                         f"writing to it; nothing was lost, close that program or try again{tail}")
    if kind == "damaged":
        return DamagedProject(damaged_message(name, str(error)))
    if kind == "cantopen":
        return ProjectError(f"{name} cannot be opened: check that it and its folder exist "
                            f"and that you may read them ({error}){tail}")
    return WriteFailed(f"{name} could not be read or written (disk I/O error): check the disk "
                       f"or network drive it is on, then try again{tail}")


def full_disk(where: str | Path | None, doing: str = "") -> WriteFailed:
    """The full-disk sentence for the disk holding ``where`` (with how much is free)."""
    name = str(where) if where is not None else "the project file"
    free = free_mb(where)
    have = f" (only {free:.0f} MB free)" if free is not None else ""
    tail = f"; {doing}" if doing else ""
    return WriteFailed(f"the disk holding {name} is full{have}: free at least "
                       f"{MIN_FREE_MB} MB and try again{tail}")


def damaged_message(name: str, detail: str) -> str:
    """The sentence for a damaged project: what happened and the way back (the backup)."""
    detail = " ".join(detail.split())
    detail = detail if len(detail) <= 200 else detail[:199] + "…"
    backup = Path(f"{name}.backup")
    offer = (f"restore the backup made when it was last opened (copy {backup} over it)"
             if backup.exists() else "restore it from a copy you trust")
    return (f"{name} is damaged ({detail}); nothing was written to it. Run `triage check "
            f"{name}` for details, then {offer}")
