"""Builders for the team-desk tests: a project pushed to the test server, annotator roles."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.helpers import make_project
from triage.store.pg.copy import push
from triage.store.pg.functions import LEASE_KEY
from triage.store.pg.judge import LABEL_RATE_KEY
from triage.store.pg.schema import grant
from triage.store.pg.url import parse_url


def publish(pg, url: str, tmp_path: Path, *, n: int = 40, annotators: tuple[str, ...] = (),
            leads: tuple[str, ...] = (), lease_seconds: float | None = None,
            **settings) -> Path:
    """Make an n-candidate project file, push it to ``url`` and grant the roles; its path.

    ``lease_seconds`` sets the server's lease length (the lead's ``server_lease_seconds``).
    """
    project = make_project(tmp_path, n, **settings)
    project.dispatcher.overlap_items()   # draws the overlap plan when overlap is on
    path = project.path
    project.close()
    push(path, url)
    for role in (*annotators, *leads):
        pg.role(role)
    grant(url, leads=list(leads), annotators=list(annotators))
    # Scripted desks label faster than a person: lift the server's pace limit for them.
    facts = {LABEL_RATE_KEY: "1000"}
    if lease_seconds is not None:
        facts[LEASE_KEY] = str(lease_seconds)
    for key, value in facts.items():
        pg.psql(f"INSERT INTO {parse_url(url).schema}.project(key, value) VALUES "
                f"('{key}', '{value}') ON CONFLICT (key) DO UPDATE SET value = '{value}'")
    return path


_uids = itertools.count(1)


def one(conn, sql: str, params: Sequence[Any] = ()) -> Any:
    """The first column of the first row ``sql`` returns on ``conn``."""
    return conn.execute(sql, params).fetchone()[0]


def desk_session(conn, s: str) -> int:
    """A new desk session of the connection's role in project schema ``s``."""
    return one(conn, f"SELECT {s}.start_session('desk', 'test')")


def claim(conn, s: str, session: int, candidate: int) -> bool:
    """Whether the server leased ``candidate`` to ``session``."""
    return bool(one(conn, f"SELECT {s}.claim(%s, %s)", [candidate, session]))


def add_label(conn, s: str, session: int, candidate: int, value: str | None, kind: str,
              seconds: float = 1.0, uid_prefix: str = "u-test") -> int:
    """The id of the label the server took, called as an annotator's psql prompt would."""
    return one(conn, f"SELECT {s}.add_label(%s, %s, %s, %s, %s, %s, NULL, NULL)",
               [f"{uid_prefix}-{next(_uids):06d}", candidate, session, value, kind, seconds])


def attacked_team(pg, pg_url, project_name: str, tmp_path: Path, monkeypatch, *,
                  prefix: str, n: int, labelled: int, **settings: Any) -> tuple[Any, Any, str]:
    """A team for the attacks from a psql prompt: lead ``{prefix}lead``, annotators
    ``{prefix}ana`` (the attacker) and ``{prefix}ben``, who labelled ``labelled`` first;
    ``settings`` as for :func:`publish` (no overlap, audit or re-tests unless given).

    Returns (server, url maker, project schema)."""
    from triage.project import open_project
    from triage.project.demo import simulate

    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    publish(pg, pg_url(), tmp_path, n=n, annotators=(f"{prefix}ana", f"{prefix}ben"),
            leads=(f"{prefix}lead",), **{"overlap_rate": 0.0, "audit_rate": 0.0,
                                         "retest_rate": 0.0, **settings})
    ben = open_project(pg_url(f"{prefix}ben"))
    simulate(ben, labelled, f"{prefix}ben")
    ben.close()
    return pg, pg_url, f"triage_{project_name}"
