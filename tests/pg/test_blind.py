"""Blind means blind: what an annotator reads of others and of the lead is coarse or blank.

``sana`` (an annotator at her own SQL prompt, and her desk's replica) reads ``sben``'s
sessions only to the hour (not his pace), her own exactly; the models' score files (the
lead's paths) reach nobody but the lead; the lead still reads everything exactly.
"""

from __future__ import annotations

import sqlite3

import psycopg
import pytest

from tests.pg.team_setup import publish
from triage.project import open_project
from triage.project.demo import simulate

_PATH = "/home/lena/secret/scores.csv"


@pytest.fixture
def team(pg, pg_url, project_name, tmp_path, monkeypatch):
    """Lead ``blead``, annotators ``bana`` (reading) and ``bben`` (who labelled 6)."""
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    publish(pg, pg_url(), tmp_path, n=40, annotators=("bana", "bben"), leads=("blead",))
    ben = open_project(pg_url("bben"))
    simulate(ben, 6, "bben")
    ben.close()
    s = f"triage_{project_name}"
    with pg.connect() as admin:
        admin.execute(f"UPDATE {s}.models SET source_file = %s", [_PATH])
        # A session that ended too: both of its times are his.
        admin.execute(f"UPDATE {s}.sessions SET ended_at = started_at WHERE id = "
                      f"(SELECT min(t.id) FROM {s}.sessions t JOIN {s}.annotators a "
                      "ON a.id = t.annotator_id WHERE a.name = 'bben')")
    return pg, pg_url, s, tmp_path


def _sessions(conn, s: str, name: str) -> list[tuple[str, str | None]]:
    return conn.execute(f"SELECT f.started_at, f.ended_at FROM {s}.session_feed(0) f "
                        f"JOIN {s}.annotators a ON a.id = f.annotator_id "
                        "WHERE a.name = %s ORDER BY f.id", [name]).fetchall()


def _coarse(at: str | None) -> bool:
    return at is None or at.endswith(":00:00+00:00")


def test_others_sessions_are_coarse_ones_own_exact(team):
    pg, _url, s, _tmp = team
    with pg.connect() as admin:
        exact = _sessions(admin, s, "bben")
    with pg.connect("bana") as ana:
        ana.execute(f"SELECT {s}.start_session('desk', 'test')")
        others = _sessions(ana, s, "bben")
        own = _sessions(ana, s, "bana")
        own_direct = ana.execute(f"SELECT started_at, ended_at FROM {s}.sessions "
                                 "ORDER BY id").fetchall()
    assert len(others) == len(exact) and any(ended for _start, ended in others)
    assert all(_coarse(start) and _coarse(end) for start, end in others)
    assert [(a[:13], b and b[:13]) for a, b in others] == \
        [(a[:13], b and b[:13]) for a, b in exact]
    assert not all(_coarse(start) for start, _end in exact)   # the lead reads them exactly
    assert own == own_direct and not _coarse(own[0][0])


def test_the_leads_paths_reach_no_annotator(team):
    pg, url, s, tmp_path = team
    with pg.connect("bana") as ana:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            ana.execute(f"SELECT source_file FROM {s}.models")
        names = [n for (n,) in ana.execute(f"SELECT name FROM {s}.models")]
        fed = ana.execute(f"SELECT name, source_file FROM {s}.model_feed()").fetchall()
    with pg.connect("blead") as lead:
        lead_fed = lead.execute(f"SELECT source_file FROM {s}.model_feed()").fetchall()
    assert names and [n for n, _f in fed] == names and all(f is None for _n, f in fed)
    assert lead_fed and all(f == _PATH for (f,) in lead_fed)
    # The annotator's desk opens on what it may read; its replica holds no path.
    desk = open_project(url("bana"))
    desk.start_session("bana")
    desk.close()
    replicas = list((tmp_path / "cache").rglob("*.triage"))
    assert replicas
    for replica in replicas:
        with sqlite3.connect(replica) as db:
            rows = db.execute("SELECT source_file FROM models").fetchall()
            dump = "\n".join(db.iterdump())
        assert rows and all(f is None for (f,) in rows) and _PATH not in dump


def test_when_others_joined_reaches_an_annotator_only_to_the_day(team):
    """``annotators.created_at`` is a person's moment: others' only to the day."""
    pg, url, s, tmp_path = team
    with pg.connect() as admin:   # an exact moment that is not midnight
        admin.execute(f"UPDATE {s}.annotators SET created_at = '2026-11-20T14:37:12.345678+00:00'")
    with pg.connect("bana") as ana, pytest.raises(psycopg.errors.InsufficientPrivilege):
        ana.execute(f"SELECT created_at FROM {s}.annotators")
    with pg.connect("bana") as ana:
        fed = dict(ana.execute(f"SELECT name, created_at FROM {s}.annotator_feed()").fetchall())
        names = {n for (n,) in ana.execute(f"SELECT name FROM {s}.annotators")}
    with pg.connect("blead") as lead:
        lead_fed = dict(lead.execute(f"SELECT name, created_at FROM {s}.annotator_feed()"))
    assert fed["bben"] == "2026-11-20T00:00:00+00:00"
    assert fed["bana"] == "2026-11-20T14:37:12.345678+00:00" and names == set(fed)
    assert lead_fed["bben"] == "2026-11-20T14:37:12.345678+00:00"
    desk = open_project(url("bana"))   # her desk's replica holds the day only
    desk.start_session("bana")
    desk.close()
    from triage.project.team import replica_path
    from triage.store.pg.url import parse_url

    with sqlite3.connect(replica_path(parse_url(url("bana")), "bana")) as db:
        joined = dict(db.execute("SELECT name, created_at FROM annotators"))
    assert joined["bben"] == "2026-11-20T00:00:00+00:00"
