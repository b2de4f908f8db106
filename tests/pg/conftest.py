"""A real PostgreSQL for the team-store tests: one pgserver per test session.

``pgserver`` (a test dependency) bundles PostgreSQL 16 and starts it in about a second
with trust authentication on a Unix socket in a temporary data directory, so the tests
need no system packages and leave nothing running: the server stops at the session's end.
Each test gets its own project name, so tests share the server without sharing data.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_names = itertools.count(1)


class PgServer:
    """The running test server: its socket directory, psql and role/connection helpers."""

    def __init__(self, server: Any):
        self.server = server
        self.host = str(server.get_postmaster_info().socket_dir)

    def url(self, project: str, user: str = "postgres", **params: str) -> str:
        """A triage server address for ``project`` on this server, connecting as ``user``."""
        extra = "".join(f"&{k}={v}" for k, v in params.items())
        return f"postgresql://{user}@/postgres?host={self.host}&project={project}{extra}"

    def psql(self, command: str) -> str:
        """Run SQL as the superuser with the bundled psql; returns its output."""
        return str(self.server.psql(command))

    def role(self, name: str) -> str:
        """Create login role ``name`` unless it exists; returns the name."""
        self.psql(f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{name}')"
                  f" THEN CREATE ROLE {name} LOGIN; END IF; END $$;")
        return name

    def connect(self, user: str = "postgres", autocommit: bool = True) -> Any:
        """A plain psycopg connection as ``user`` (trust authentication: no password)."""
        import psycopg

        return psycopg.connect(host=self.host, dbname="postgres", user=user,
                               autocommit=autocommit)

    @property
    def bin_dir(self) -> Path:
        """Where pgserver keeps the PostgreSQL programs (psql …)."""
        from pgserver._commands import POSTGRES_BIN_PATH

        return Path(POSTGRES_BIN_PATH)


@pytest.fixture(scope="session")
def pg() -> Iterator[PgServer]:
    """The session's PostgreSQL server (started on first use, stopped and removed at the end).

    The data directory is a fresh temporary directory of its own, not under pytest's
    base temp: run as root, pgserver runs PostgreSQL as a separate system user, and every
    pytest session that starts resets ``/tmp/pytest-of-root`` to mode 0700, which would
    lock that user out of a server another session is running.
    """
    import pgserver

    where = Path(tempfile.mkdtemp(prefix="triage-pg-"))
    server = pgserver.get_server(where / "data", cleanup_mode="stop")
    try:
        yield PgServer(server)
    finally:
        server.cleanup()
        shutil.rmtree(where, ignore_errors=True)


@pytest.fixture
def project_name() -> str:
    """A project name no other test of the session uses."""
    return f"t{next(_names)}"


@pytest.fixture
def pg_url(pg: PgServer, project_name: str) -> Callable[..., str]:
    """``pg_url(user="postgres")``: this test's project address on the session server."""
    return lambda user="postgres", **params: pg.url(project_name, user, **params)
