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

import tempfile
from pathlib import Path

from triage.ingest.importer import ColumnMapping, ImportResult, Progress, import_candidates
from triage.store.connection import create_database
from triage.store.poolwrite import Plan
from triage.store.settings import Settings
from triage.store.writer import FileWriter, write_new_project


def create_on_server(url: str, source: str | Path, mapping: ColumnMapping, settings: Settings,
                     *, skip_invalid: bool = False, progress: Progress | None = None,
                     plan: Plan | None = None) -> ImportResult:
    """Create ``url``'s project from ``source`` on the server, in one server transaction."""
    from triage.base.errors import TriageError
    from triage.store.pg.ingest import pool_writer
    from triage.store.pg.url import parse_url

    server = parse_url(url)
    active = settings.active_model
    if active and active not in {model for model, _column in mapping.scores}:
        raise TriageError(f"--active-model {active!r} is not one of the models")
    with tempfile.TemporaryDirectory(prefix="triage-new-") as tmp:
        # What create_project writes, without loading the project package (a second of
        # imports on a busy machine, against a COPY that takes two).
        db = create_database(Path(tmp) / "new.triage")
        try:
            write_new_project(FileWriter(db), settings)
            # The writer connects when the reader has started: the schema is made while
            # the first rows are parsed, and the rows stream into COPY as they come.
            return import_candidates(db, source, mapping, skip_invalid=skip_invalid,
                                     progress=progress, seed=settings.seed,
                                     writer=pool_writer(server, db, seed=settings.seed,
                                                        plan=plan))
        finally:
            db.close()


__all__ = ["create_on_server"]
