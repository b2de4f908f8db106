"""Opening a project on a team server: a :class:`Project` on a local replica, linked.

``open_team_project("postgresql://host/db?project=name")`` connects, brings the local
replica up to date (creating it on first use) and returns an ordinary :class:`Project` on
it, whose writer (:class:`triage.store.teamwriter.TeamWriter`) writes on the server first
and follows each change back into the replica (:class:`triage.store.pg.link.TeamLink`). Reads
(statistics, panels, reports) run on the replica with the code that reads project files,
so nothing above the store knows a server exists.

The replica lives in ``$TRIAGE_CACHE_DIR`` (default ``~/.cache/triage/team``), one file
per host, port, database, project and login role: two roles on one machine never share
one (they see different labels).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import sqlite_utils

from triage.project.core import Project
from triage.store import connection as dbmod
from triage.store.teamwriter import TeamWriter

if TYPE_CHECKING:
    from triage.store.pg.link import TeamLink
    from triage.store.pg.listen import Listener
    from triage.store.pg.url import ServerUrl

log = logging.getLogger("triage.team")
CACHE_ENV = "TRIAGE_CACHE_DIR"
# Notified tables whose changes the quick pull brings (triage.store.pg.follow).
QUICK_TABLES = frozenset({"labels", "sessions", "annotators"})


def cache_dir() -> Path:
    """Where replicas are kept: ``$TRIAGE_CACHE_DIR``, else ``~/.cache/triage/team``."""
    raw = os.environ.get(CACHE_ENV, "").strip()
    return Path(raw).expanduser() if raw else Path.home() / ".cache" / "triage" / "team"


def replica_path(url: ServerUrl, role: str) -> Path:
    """The replica file of ``url``'s project as seen by login role ``role``.

    Named by a hash of (host, port, database, project, role): names that differ only in
    characters a file name cannot keep (``zoé`` and ``zoë😀``) never share a replica.
    """
    parts = [url.host, url.port or "5432", url.dbname or role, url.project, role]
    digest = hashlib.sha256(json.dumps(parts, ensure_ascii=False).encode()).hexdigest()[:32]
    return cache_dir() / f"{url.project}-{digest}.triage"


def private_folder(folder: Path) -> None:
    """Create ``folder`` (and parents) readable by its owner only (mode 0700)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    folder.chmod(0o700)


def private_file(path: Path) -> None:
    """Make the replica (and its log files) readable by its owner only (mode 0600)."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(FileNotFoundError):
            name.chmod(0o600)


class TeamProject(Project):
    """A project on a server, worked on through its local replica."""

    def __init__(self, path: Path, database: sqlite_utils.Database, link: TeamLink,
                 url: ServerUrl):
        self.link = link
        self.url = url
        self.server = self   # the live listener, role, address and problems: below
        super().__init__(path, database, writer=TeamWriter(link))
        # What a write's or a lease check's pull brought is followed at once, so the next
        # choice is made on it (as after a lost race on one file).
        link.on_news = self.state.sync

    @property
    def address(self) -> str:
        """The server address (shown instead of the replica's file name)."""
        return self.url.display

    @property
    def location(self) -> str:
        """The server address, not the replica's file name."""
        return self.url.display

    def listener(self, on_change: Callable[[set[str]], None]) -> Listener:
        """A live listener (not started): on each change it pulls, then calls ``on_change``."""
        from triage.store.pg.connect import connect
        from triage.store.pg.listen import Listener, channel_of

        def changed(tables: set[str]) -> None:
            # Labels, undo marks and sessions come by the quick pull; a change to settings,
            # the plan, guidelines … (or a reconnect, "*") brings everything.
            if tables <= QUICK_TABLES:
                self.link.pull_new(follow=False)
            else:
                self.link.pull()
            on_change(tables)

        return Listener(lambda: connect(self.url), channel_of(self.url.schema), changed)

    @property
    def role(self) -> str | None:
        """The login role this project is worked on as."""
        return self.link.role

    def trains_cal(self) -> bool:
        """On a team only the lead's desk fits the cal ranking; every desk serves it."""
        return self.link.is_lead and super().trains_cal()

    def hidden_events(self) -> int:
        """Active label events whose decision this role may not see (others', for an annotator).

        They reach an annotator's replica as "handled by someone": no value, so they must
        not be counted as skips.
        """
        from triage.store.pg.replica import others_without_value

        return 0 if self.link.is_lead else others_without_value(self.db, self.link.role or "")

    @property
    def server_problems(self) -> str | None:
        """"N rows from the server could not be used: …" when a pull set rows aside."""
        from triage.store.pg.quarantine import summary

        return summary(self.link.pull_db)

    def close(self) -> None:
        """Free this desk's leases, close the replica and the server connection."""
        self.link.release_sessions()
        super().close()
        self.link.close()


def open_team_project(address: str) -> TeamProject:
    """Open the server project at ``address`` (``postgresql://…?project=NAME``)."""
    from triage.store.pg.connect import require_driver

    require_driver()   # before the modules that need the driver are imported
    from triage.store.pg.connect import connect
    from triage.store.pg.link import TeamLink
    from triage.store.pg.replica import check_project, replica_database
    from triage.store.pg.url import parse_url

    url = parse_url(address)
    conn = connect(url)
    role = check_project(conn, url)
    path = replica_path(url, role)
    private_folder(path.parent)   # nobody else can reach the file, even before its chmod
    link = TeamLink(url=url, connect=lambda: connect(url), pull_db=replica_database(path))
    private_file(path)
    link.adopt(conn)
    try:
        link.pull()
        private_file(path)
        database, _backup = dbmod.open_database(path)
    except BaseException:
        link.close()
        raise
    project = TeamProject(path, database, link, url)
    problems = project.server_problems
    if problems:   # the command line shows it on stderr (logging's last resort), a desk too
        log.warning("%s", problems)
    return project
