"""The parent's side of bulk work in a child process (the child: :mod:`triage.store.bulkchild`).

:func:`write` streams a pool import to the child and waits for its commit; :func:`read`
streams a query's result back from it. This process never loads the ADBC driver, so its
one SQLite engine (the standard library's) keeps its locks; see the child's module.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

import numpy as np

from triage.base.errors import TriageError
from triage.store import bulkchild, connection


def available() -> bool:
    """Can this system pass descriptors to a child (not on Windows)?"""
    return os.name == "posix"


def check_ids(first: int | None, last: int | None, n: int) -> None:
    """TriageError unless the candidates written are ids 1..n."""
    if (first, last) != (1, n):
        raise TriageError(f"internal error: candidate ids {first}..{last}, expected 1..{n}")


def raise_reported(outcome: Any) -> None:
    """Raise the child's reported error again here (nothing for ``("ok",)``).

    A refusal keeps its sentence as a TriageError; anything else becomes a RuntimeError
    carrying the child's type name and SQLite's message, which :mod:`triage.store.faults`
    recognises (a full disk, a read-only file).
    """
    if not isinstance(outcome, tuple) or not outcome:
        raise RuntimeError("the bulk writer ended without saying how (it may have been killed)")
    if outcome[0] == "ok":
        return
    _, kind, message = outcome
    if kind == "TriageError":
        raise TriageError(message)
    raise RuntimeError(f"{kind}: {message}")


def _read_outcome(stream: BinaryIO) -> Any:
    """The pickled outcome the child wrote to ``stream``; None when it wrote none."""
    try:
        return pickle.load(stream)  # noqa: S301 - our own child, over our own pipe
    except (EOFError, pickle.UnpicklingError, OSError):
        return None


def _start(job: str, path: str, args: list[str], fds: tuple[int, ...],
           **pipes: Any) -> subprocess.Popen[bytes]:
    """The child running ``job`` on ``path`` (isolated: it imports no package of ours)."""
    pragmas = ";".join([connection.busy_timeout_pragma(), *connection.PRAGMAS])
    return subprocess.Popen(  # noqa: S603 - our own interpreter and file, no shell
        [sys.executable, "-I", str(Path(bulkchild.__file__).resolve()), job, path,
         args[0], pragmas, *args[1:]], pass_fds=fds, **pipes)


def _outcome_pipe() -> tuple[int, int]:
    read_fd, write_fd = os.pipe()
    os.set_inheritable(write_fd, True)
    return read_fd, write_fd


def _finish(child: subprocess.Popen[bytes], outcome_fd: int) -> Any:
    """The child's pickled outcome (None when it wrote none), once it has exited."""
    with os.fdopen(outcome_fd, "rb") as stream:
        outcome = _read_outcome(stream)
    child.wait()
    return outcome


def _send(stream: IO[bytes], message: tuple[Any, ...]) -> None:
    pickle.dump(message, stream, protocol=5)


def _buffer(values: Any) -> pickle.PickleBuffer:
    return pickle.PickleBuffer(np.ascontiguousarray(values, dtype="<i8").data)


@dataclass(frozen=True)
class Extra:
    """What an import adds around the rows (see :func:`write`)."""

    on_batch: Callable[[Any], None]
    after_rows: Callable[[], list[tuple[str, list[Any]]]]
    per_model: Callable[[Any], list[tuple[str, list[Any]]]]


class _Writer:
    """A started child for the ``write`` job, waiting for the candidates' stream."""

    def __init__(self, path: str) -> None:
        rows_read, rows_write = os.pipe()
        os.set_inheritable(rows_read, True)
        outcome_read, outcome_write = _outcome_pipe()
        try:
            self.child = _start("write", path, [str(outcome_write), str(rows_read)],
                                (rows_read, outcome_write), stdin=subprocess.PIPE)
        except BaseException:
            for fd in (rows_write, outcome_read):
                os.close(fd)
            raise
        finally:
            os.close(rows_read)
            os.close(outcome_write)
        self.outcome = outcome_read
        self.sink = os.fdopen(rows_write, "wb")
        assert self.child.stdin is not None
        self.control: IO[bytes] = self.child.stdin

    def run(self, rows: Any, models: Callable[[], Iterable[Any]], info: Callable[[], Any],
            chunk: int, advance: Callable[[int], None], plan: Callable[[Any], Any] | None,
            more: Extra) -> None:
        """Send the import and wait for the child's commit; its error is raised here."""
        # long: the protocol's steps in order, and one way out on any failure
        try:
            written = _send_rows(self.sink, rows, chunk, advance, more.on_batch)
            self.sink.close()
            _send(self.control, ("count", written))
            for sql, params in more.after_rows():
                _send(self.control, ("run", sql, params))
            for model in models():
                ids, scores = model.blobs()
                ranked = plan(model) if plan is not None else None
                _send(self.control, ("model", model.row(), pickle.PickleBuffer(ids),
                                     pickle.PickleBuffer(scores),
                                     None if ranked is None else _buffer(ranked)))
                for sql, params in more.per_model(model):
                    _send(self.control, ("run", sql, params))
                advance(len(model.candidate_ids))
                del model, ids, scores  # tens of MB at five million: gone before the next
            _send(self.control, ("info", info()))
            _send(self.control, ("commit",))
            self.control.close()
        except BaseException as error:
            outcome = self.abandon()
            if _pipe_trouble(error) and _failed_first(outcome):
                raise_reported(outcome)  # the child's own failure came first
            raise
        raise_reported(_finish(self.child, self.outcome))

    def abandon(self) -> Any:
        """Close the pipes (the child rolls back and exits) and wait; its outcome."""
        _close_quietly(self.sink, self.control)
        return _finish(self.child, self.outcome)


# Children started ahead of their import (see ``warmed``), by project file.
_spares: dict[str, _Writer] = {}


@contextlib.contextmanager
def warmed(path: str | None) -> Iterator[None]:
    """Start the writing child for ``path`` now, so that its start overlaps the reading.

    :func:`write` inside the block takes it, and an unused one is stopped.
    """
    if path is None or not available() or path in _spares:
        yield
        return
    _spares[path] = _Writer(path)
    try:
        yield
    finally:
        spare = _spares.pop(path, None)
        if spare is not None:
            spare.abandon()


def write(path: str, rows: Any, models: Callable[[], Iterable[Any]], *,
          info: Callable[[], list[tuple[str, str]]], chunk: int,
          advance: Callable[[int], None], plan: Callable[[Any], Any] | None,
          on_batch: Callable[[Any], None] = lambda batch: None,
          after_rows: Callable[[], list[tuple[str, list[Any]]]] = list,
          per_model: Callable[[Any], list[tuple[str, list[Any]]]] = lambda model: []) -> None:
    """The pool import's transaction, in a child (see :func:`triage.store.poolwrite.write_pool`).

    Candidates go as an Arrow IPC stream, then models, info and the commit.

    ``on_batch(batch)`` sees each batch sent; ``after_rows()`` and ``per_model(model)``
    give more statements ``(sql, params)`` to run after the candidates and each model.
    """
    writer = _spares.pop(path, None) or _Writer(path)
    writer.run(rows, models, info, chunk, advance, plan, Extra(on_batch, after_rows, per_model))


@contextlib.contextmanager
def rollback_journal(conn: sqlite3.Connection) -> Iterator[bool]:
    """The file in rollback-journal mode while the block writes a pool, when it can be.

    With the write-ahead log every new page is written twice: into the log, then by the
    checkpoint into the file. A rollback journal keeps only the old content of the pages
    a transaction changes, and pages appended to the file have none, so the candidates
    are written once (as the ``sqlite3`` shell's ``.import`` does), still all or nothing.
    Leaving the log needs every other connection to the file closed; when one is open (a
    desk elsewhere) this gives up at once (no wait) and the block writes through the log.
    ``conn`` must hold no transaction; it is back on the log after the block. Yields
    whether the mode was changed.
    """
    changed = False
    if not conn.in_transaction:
        wait = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        conn.execute("PRAGMA busy_timeout=0")
        try:
            mode = conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]
            changed = str(mode).lower() == "delete"
        except sqlite3.OperationalError:  # another connection has the file open
            changed = False
        finally:
            conn.execute(f"PRAGMA busy_timeout={int(wait)}")
    try:
        yield changed
    finally:
        if changed:  # back to the log every other connection expects
            with contextlib.suppress(sqlite3.OperationalError):
                conn.execute("PRAGMA journal_mode=WAL").fetchone()


def has_spare(path: str) -> bool:
    """Is a writing child already started for ``path`` (see ``warmed``)?"""
    return path in _spares


def _send_rows(sink: Any, rows: Any, chunk: int, advance: Callable[[int], None],
               on_batch: Callable[[Any], None]) -> int:
    """Write ``rows`` to the child as one Arrow IPC stream; the number of rows."""
    import pyarrow as pa

    if not set(rows.schema.names) <= set(bulkchild.COLUMNS):
        raise ValueError(f"unexpected candidate columns {rows.schema.names}")
    writer = pa.ipc.new_stream(sink, rows.schema)
    written = 0
    for batch in chunks(rows, chunk):
        on_batch(batch)
        writer.write_batch(batch)
        written += batch.num_rows
        advance(batch.num_rows)
    writer.close()  # the end-of-stream mark: only now may the child take the rows as all
    return written


def chunks(rows: Any, chunk: int) -> Iterator[Any]:
    """Arrow batches of at most ``chunk`` rows, of a table or a record batch reader."""
    if hasattr(rows, "to_batches"):
        yield from rows.to_batches(max_chunksize=chunk)
        return
    for batch in rows:
        for start in range(0, batch.num_rows, chunk):
            yield batch.slice(start, chunk)


def _pipe_trouble(error: BaseException) -> bool:
    """Did writing to the child fail because the child had stopped reading?"""
    import pyarrow as pa

    return isinstance(error, (OSError, pa.ArrowException))


def _failed_first(outcome: Any) -> bool:
    """Did the child fail on its own (not merely end because we stopped talking to it)?"""
    return isinstance(outcome, tuple) and outcome[:1] == ("error",) \
        and outcome[1] != bulkchild.ABANDONED


def _close_quietly(*streams: Any) -> None:
    for stream in streams:
        if stream is None:
            continue
        with contextlib.suppress(OSError):
            stream.close()


def read(path: str, sql: str) -> Iterator[Any]:
    """The record batches of ``sql``'s result on the file at ``path``, read by the child."""
    import pyarrow as pa

    outcome_read, outcome_write = _outcome_pipe()
    try:
        child = _start("read", path, [str(outcome_write), sql], (outcome_write,),
                       stdout=subprocess.PIPE)
    except BaseException:
        os.close(outcome_read)
        raise
    finally:
        os.close(outcome_write)
    assert child.stdout is not None
    try:
        yield from pa.ipc.open_stream(child.stdout)
    except BaseException as error:
        _close_quietly(child.stdout)
        outcome = _finish(child, outcome_read)
        if _pipe_trouble(error) and _failed_first(outcome):
            raise_reported(outcome)
        raise
    _close_quietly(child.stdout)
    raise_reported(_finish(child, outcome_read))


__all__ = ["available", "check_ids", "chunks", "has_spare", "raise_reported", "read", "warmed",
           "write"]
