"""A new team project straight on a server: ``triage new postgresql://…?project=NAME FILE``.

The file is read, checked and ranked by the same importer as for a project file, with a
temporary project file supplying the settings and seed; only the writer differs: the pool
goes to PostgreSQL with COPY (:mod:`triage.store.pg.ingest`). Settings and project
information follow in the same server transaction, so the project appears whole or not at
all. The overlap plan, drawn by the caller's ``plan`` from the active model's ranking, is
stored in that transaction too, as for a file.
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
    from triage.store.pg.connect import transaction
    from triage.store.pg.copy import push_tables, refuse_if_published
    from triage.store.pg.ingest import pool_writer
    from triage.store.pg.schema import ensure_project
    from triage.store.pg.url import parse_url

    server = parse_url(url)
    with tempfile.TemporaryDirectory(prefix="triage-new-") as tmp:
        # What create_project writes, without loading the project package (a second of
        # imports on a busy machine, against a COPY that takes two).
        db = create_database(Path(tmp) / "new.triage")
        try:
            write_new_project(FileWriter(db), settings)
            with transaction(server) as conn:
                ensure_project(conn, server)
                refuse_if_published(conn, server)
                result = import_candidates(db, source, mapping, skip_invalid=skip_invalid,
                                           progress=progress, seed=settings.seed,
                                           writer=pool_writer(conn, server, plan))
                active = settings.active_model
                if active and active not in result.models:
                    raise TriageError(f"--active-model {active!r} is not one of the models")
                push_tables(db, conn, server, only=("project", "settings"))
        finally:
            db.close()
    return result


__all__ = ["create_on_server"]
