"""A new team project straight on a server: ``triage new postgresql://…?project=NAME FILE``.

The file is read, checked and ranked by the same importer as for a project file (streamed
batch by batch when it is clean), with a temporary project file supplying the settings and
seed; only the writer differs: the pool goes to PostgreSQL with COPY as it is read
(:mod:`triage.store.pg.ingest`). The schema, settings and project information go in the
same server transaction, so the project appears whole or not at all. The overlap plan,
drawn by the caller's ``plan`` from the active model's ranking, is stored in that
transaction too, as for a file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from triage.ingest.importer import ColumnMapping, ImportResult, Progress, import_candidates
from triage.store.connection import create_database
from triage.store.poolwrite import Plan
from triage.store.settings import Settings
from triage.store.writer import FileWriter, write_new_project

if TYPE_CHECKING:
    from triage.store.pg.ahead import Ahead


def create_on_server(url: str, source: str | Path, mapping: ColumnMapping, settings: Settings,
                     *, skip_invalid: bool = False, progress: Progress | None = None,
                     plan: Plan | None = None, ahead: Ahead | None = None) -> ImportResult:
    """Create ``url``'s project from ``source`` on the server, in one server transaction.

    ``ahead``: that transaction, begun while the command loaded
    (:func:`triage.store.pg.ahead.begin`); begun here when not given.
    """
    from triage.base.errors import TriageError
    from triage.store.pg.ahead import begin
    from triage.store.pg.ingest import pool_writer
    from triage.store.pg.url import parse_url

    server = parse_url(url)
    ahead = ahead if ahead is not None else begin(server)
    with ahead_closed(ahead), tempfile.TemporaryDirectory(prefix="triage-new-",
                                                          dir=_scratch_dir()) as tmp:
        active = settings.active_model
        if active and active not in {model for model, _column in mapping.scores}:
            raise TriageError(f"--active-model {active!r} is not one of the models")
        # What create_project writes, without loading the project package (a second of
        # imports on a busy machine, against a COPY that takes two).
        db = create_database(Path(tmp) / "new.triage")
        try:
            write_new_project(FileWriter(db), settings)
            # The schema is made on the server while this process loads and starts the
            # reader; the rows then stream into COPY as they are read.
            return import_candidates(db, source, mapping, skip_invalid=skip_invalid,
                                     progress=progress, seed=settings.seed,
                                     writer=pool_writer(server, db, seed=settings.seed,
                                                        plan=plan, ahead=ahead))
        finally:
            db.close()


def _scratch_dir() -> str | None:
    """Where the settings' scratch project file goes: a RAM disk when there is one (its
    schema's commits then wait for no disk), else the temporary folder."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


@contextlib.contextmanager
def ahead_closed(ahead: Ahead) -> Iterator[None]:
    """Roll back ``ahead``'s transaction at the end if the import never took it."""
    try:
        yield
    finally:
        ahead.close()


__all__ = ["ahead_closed", "create_on_server"]
