"""Files replaced atomically, and cells made safe for a spreadsheet.

Atomic: rows go to a temporary file in the target's directory, which is flushed,
fsync'ed and then renamed over the target with ``os.replace``. A failure midway (a full
disk, an exception in the row generator, a kill) leaves the previous file untouched and
no half-written file behind. The file gets the mode a plain ``open`` would give it
(0666 less the umask), not the temporary file's private 0600.

Formula guard (CSV only): candidate text is untrusted, and a spreadsheet runs a cell
starting with ``=``, ``+``, ``-`` or ``@`` (and, in some, tab or CR) as a formula. Such
text cells get a leading apostrophe (``'=cmd()``), which spreadsheets hide and treat as
"this is text". Plain numbers stay numbers: a cell that is exactly a decimal number such
as ``-0.5``, ``+3`` or ``-1e-3`` (and every ``int``/``float`` value) is written as is.
"""

from __future__ import annotations

import math
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from triage.base.hidden import reveal_controls

MIN_OUTPUT_MB = 0.0625   # an output on a disk with less free space (64 KiB) is refused at once
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def guard_cell(value: Any) -> Any:
    """``value`` made safe for a spreadsheet cell (see the module docstring)."""
    if value is None:
        return ""
    if isinstance(value, float) and not math.isfinite(value):
        return ""
    if not isinstance(value, str):
        return value
    value = reveal_controls(value)  # no raw NUL or ESC reaches a spreadsheet or a terminal
    if value.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def current_umask() -> int:
    """The process's umask, read without changing it (other threads may be creating files)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # elsewhere: read it the classic way, for an instant
    os.umask(mask)
    return mask


@contextmanager
def atomic_file(path: str | Path, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A temporary file beside ``path`` that replaces it when the block ends without error.

    The data is fsync'ed before the rename and the directory after it; on an error the
    temporary file is removed and ``path`` is untouched. A full disk (before anything is
    written, or while writing) is a sentence naming the disk of ``path``: the output's,
    not the project's it came from.
    """
    path = Path(path)
    _room_for(path)
    try:
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed or removed below
            "wb" if binary else "w", encoding=None if binary else "utf-8",
            newline=None if binary else "", dir=path.parent or ".",
            prefix=f".{path.name}.", suffix=".tmp", delete=False)
    except OSError as error:
        raise _output_fault(error, path) from error
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o666 & ~current_umask())
        os.replace(handle.name, path)
    except Exception as error:
        Path(handle.name).unlink(missing_ok=True)
        raise _output_fault(error, path) from error
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _room_for(path: Path) -> None:
    """Refuse to start an output on a disk with no room at all (not even for an empty file)."""
    from triage.store.faults import free_mb, full_disk

    free = free_mb(path.parent)
    if free is not None and free < MIN_OUTPUT_MB:
        raise full_disk(path, "nothing was written")


def _output_fault(error: Exception, path: Path) -> Exception:
    """A full disk while writing ``path`` as the sentence naming that disk; else ``error``."""
    from triage.store.faults import full_disk, kind_of

    if kind_of(error, path.parent) == "full":
        return full_disk(path, "nothing was written")
    return error


def _fsync_dir(directory: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where directories can't be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
