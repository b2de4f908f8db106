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

import os
import re
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

CACHE_ENV = "TRIAGE_CACHE_DIR"
# Notified tables whose changes the quick pull brings (triage.store.pg.follow).
QUICK_TABLES = frozenset({"labels", "sessions", "annotators"})


def cache_dir() -> Path:
    """Where replicas are kept: ``$TRIAGE_CACHE_DIR``, else ``~/.cache/triage/team``."""
    raw = os.environ.get(CACHE_ENV, "").strip()
    return Path(raw).expanduser() if raw else Path.home() / ".cache" / "triage" / "team"


def replica_path(url: ServerUrl, role: str) -> Path:
    """The replica file of ``url``'s project as seen by login role ``role``."""
    parts = [url.host, url.port or "5432", url.dbname or role, url.project, role]
    name = "-".join(re.sub(r"[^A-Za-z0-9_.]+", "_", p) for p in parts)
    return cache_dir() / f"{name}.triage"


class TeamProject(Project):
    """A project on a server, worked on through its local replica."""

    def __init__(self, path: Path, database: sqlite_utils.Database, link: TeamLink,
                 url: ServerUrl):
        self.link = link
        self.url = url
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

    def close(self) -> None:
        """Close the replica and the server connection."""
        super().close()
        self.link.close()


def open_team_project(address: str) -> TeamProject:
    """Open the server project at ``address`` (``postgresql://…?project=NAME``)."""
    from triage.store.pg.connect import connect
    from triage.store.pg.link import TeamLink
    from triage.store.pg.replica import check_project, replica_database
    from triage.store.pg.url import parse_url

    url = parse_url(address)
    conn = connect(url)
    role = check_project(conn, url)
    path = replica_path(url, role)
    path.parent.mkdir(parents=True, exist_ok=True)
    link = TeamLink(url=url, connect=lambda: connect(url), pull_db=replica_database(path))
    link.adopt(conn)
    try:
        link.pull()
        database, _backup = dbmod.open_database(path)
    except BaseException:
        link.close()
        raise
    return TeamProject(path, database, link, url)
