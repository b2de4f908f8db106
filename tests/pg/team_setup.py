"""Builders for the team-desk tests: a project pushed to the test server, annotator roles."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import make_project
from triage.store.pg.copy import push
from triage.store.pg.schema import grant


def publish(pg, url: str, tmp_path: Path, *, n: int = 40, annotators: tuple[str, ...] = (),
            leads: tuple[str, ...] = (), **settings) -> Path:
    """Make an n-candidate project file, push it to ``url`` and grant the roles; its path."""
    project = make_project(tmp_path, n, **settings)
    project.dispatcher.overlap_items()   # draws the overlap plan when overlap is on
    path = project.path
    project.close()
    push(path, url)
    for role in (*annotators, *leads):
        pg.role(role)
    grant(url, leads=list(leads), annotators=list(annotators))
    return path
