"""The client's side of a team project: its replica file and the server's readiness for desks.

A replica is an ordinary project file holding the server's rows with the server's ids;
the link writes to it only by pulling (:func:`triage.store.pg.copy.pull_into`). It needs
no durability of its own (the server is the truth and a lost replica is pulled again), so
the link's connection to it commits without waiting for the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlite_utils

from triage.base.errors import TriageError
from triage.store import connection as dbmod
from triage.store.pg.url import ServerUrl


def replica_database(path: Path) -> sqlite_utils.Database:
    """The link's own connection to the replica at ``path`` (created empty if missing)."""
    if path.exists():
        db, _backup = dbmod.open_database(path)
    else:
        db = dbmod.create_database(path)
    db.conn.execute("PRAGMA synchronous=NORMAL")
    return db


def others_without_value(db: sqlite_utils.Database, role: str) -> int:
    """Active label events of other annotators that reached this replica without a value."""
    row = db.execute(
        "SELECT count(*) FROM labels l JOIN annotators a ON a.id = l.annotator_id "
        "WHERE l.undone_at IS NULL AND l.value IS NULL AND a.name != ?", [role]).fetchone()
    return int(row[0])


def check_project(conn: Any, url: ServerUrl) -> str:
    """The login role of ``conn``, once the server is known to hold ``url``'s project."""
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("SELECT session_user, to_regclass(%s) IS NOT NULL",
                    [f"{url.schema}.project"])
        role, exists = cur.fetchone()
    if not exists:
        raise TriageError(f"{url.display}: there is no project {url.project!r} on this server "
                          "(the lead creates it with `triage new URL FILE …` or `triage push`)")
    return str(role)
