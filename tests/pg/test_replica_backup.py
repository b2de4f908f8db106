"""A team desk keeps a backup of its replica too, like every project that labels."""

from __future__ import annotations

import sqlite3

from tests.pg.team_setup import publish
from triage.project import open_project
from triage.project.team import replica_path
from triage.store.pg.url import parse_url


def test_labelling_a_team_project_leaves_a_backup_of_the_replica(pg, pg_url, tmp_path,
                                                                  monkeypatch):
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    publish(pg, pg_url(), tmp_path, leads=("bk_lead",))
    project = open_project(pg_url("bk_lead"))
    session = project.start_session("bk_lead")
    for _ in range(3):
        item = project.next_candidate(session)
        project.record_label(session, item.candidate_id, "idiom")
    project.close()
    replica = replica_path(parse_url(pg_url("bk_lead")), "bk_lead")
    backup = replica.with_name(replica.name + ".backup")
    conn = sqlite3.connect(f"file:{backup}?mode=ro", uri=True)
    assert conn.execute("SELECT count(*) FROM labels").fetchone()[0] == 3
    conn.close()
