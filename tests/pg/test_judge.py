"""The server is the judge of every write, and annotators see what blind labelling allows.

A hostile annotator at a ``psql`` prompt (here: a psycopg connection as their login role)
tries what a review found: adjudicating, crafted label rows, direct table writes, lease
times from the client, reading gold, scores and others' decisions.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import psycopg
import pytest

from triage.cli.program import main
from triage.project.demo import create_demo, simulate
from triage.store.pg.copy import push
from triage.store.pg.functions import MAX_OPEN_SESSIONS
from triage.store.pg.judge import LABEL_RATE_KEY
from triage.store.pg.schema import grant
from triage.store.pg.tables import head_tables

S = "triage_judge"


@pytest.fixture(scope="module")
def team(pg, tmp_path_factory):
    """Project ``judge``: lead ``jlena``, annotators ``jana`` and ``jben`` with labels."""
    for role in ("jlena", "jana", "jben"):
        pg.role(role)
    path = Path(tmp_path_factory.mktemp("judge")) / "demo.triage"
    project = create_demo(path)
    simulate(project, 30, "jana")
    simulate(project, 20, "jben")
    project.close()
    url = pg.url("judge")
    push(path, url)
    grant(url, leads=["jlena"], annotators=["jana", "jben"])
    # These tests label in quick bursts; the pace limit has its own test (test_served).
    pg.psql(f"INSERT INTO {S}.project VALUES ('{LABEL_RATE_KEY}', '1000')")
    return pg


def _one(conn, sql, params=()):
    return conn.execute(sql, params).fetchone()[0]


def _session(conn) -> int:
    return _one(conn, f"SELECT {S}.start_session('desk', 'test')")


def _label(conn, session, *, uid="u-judge-0001", candidate=3, value="idiom", kind="triage",
           seconds=1.0, note=None, served_by=None):
    """A label as a desk sends it: the candidate served (leased) to the session first."""
    if isinstance(candidate, int) and 0 < candidate < 10**6 and session < 10**6:
        conn.execute(f"SELECT {S}.claim(%s, %s)", [candidate, session])
    return _one(conn, f"SELECT {S}.add_label(%s, %s, %s, %s, %s, %s, %s, %s)",
                [uid, candidate, session, value, kind, seconds, note, served_by])


def test_an_annotator_cannot_adjudicate(team):
    with team.connect("jana") as ana:
        session = _session(ana)
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="only the lead"):
            _label(ana, session, uid="u-adj-00001", kind="adjudication")


def test_adjudicate_from_the_command_line_is_the_leads(team, capsys):
    key = _one(team.connect(), f"SELECT c.key FROM {S}.candidates c JOIN {S}.labels l ON "
                               f"l.candidate_id = c.id JOIN {S}.annotators a ON "
                               "a.id = l.annotator_id WHERE a.name = 'jben' LIMIT 1")
    assert main(["adjudicate", team.url("judge", user="jana"), "--key", key,
                 "--label", "idiom", "--annotator", "jana"]) == 2
    assert "only the lead" in capsys.readouterr().err
    with team.connect() as conn:
        assert _one(conn, f"SELECT count(*) FROM {S}.labels WHERE kind = 'adjudication'") == 0


@pytest.mark.parametrize("changes, refusal", [
    ({"seconds": -5000.0}, "seconds"),
    ({"seconds": 1e300}, "seconds"),
    ({"seconds": math.nan}, "seconds"),
    ({"seconds": math.inf}, "seconds"),
    ({"kind": "evil"}, "not a kind"),
    ({"kind": None}, "not a kind"),
    ({"candidate": 10**9}, "no candidate"),
    ({"candidate": -1}, "no candidate"),
    ({"value": "nonsense"}, "not a label of this project"),
    ({"note": "x" * 10_001}, "at most"),
    ({"served_by": "no such model"}, "model"),
    ({"uid": "x"}, "uid"),
    ({"kind": "certify"}, "no certification"),
])
def test_a_crafted_label_is_refused(team, changes, refusal):
    with team.connect("jana") as ana:
        session = _session(ana)
        with pytest.raises(psycopg.Error, match=refusal):
            _label(ana, session, **{"uid": "u-crafted-01", **changes})
        assert _one(ana, f"SELECT count(*) FROM {S}.labels WHERE uid = 'u-crafted-01'") == 0


def test_labels_only_into_ones_own_open_session(team):
    with team.connect("jben") as ben:
        ben_session = _session(ben)
    with team.connect("jana") as ana:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            _label(ana, ben_session, uid="u-other-0001")
        mine = _session(ana)
        ana.execute(f"SELECT {S}.end_session(%s)", [mine])
        with pytest.raises(psycopg.Error, match="ended"):
            _label(ana, mine, uid="u-ended-0001")
        with pytest.raises(psycopg.errors.NoDataFound):
            _label(ana, 10**12, uid="u-nosess-001")


def _ranked_heads(pg, count: int) -> list[int]:
    """The first ``count`` unlabelled candidates of the active model's ranking (a desk's next)."""
    with pg.connect() as conn:
        blob = _one(conn, f"SELECT r.candidate_ids FROM {S}.rankings r JOIN {S}.models m ON "
                          f"m.id = r.model_id ORDER BY m.name <> (SELECT value::jsonb #>> '{{}}' "
                          f"FROM {S}.settings WHERE key = 'active_model'), m.id LIMIT 1")
        done = {r[0] for r in conn.execute(f"SELECT candidate_id FROM {S}.labels")}
    return [int(c) for c in np.frombuffer(blob, dtype="<i8") if int(c) not in done][:count]


def test_ids_times_and_undo_order_come_from_the_server(team):
    heads = _ranked_heads(team, 2)   # triage labels count in ranking order
    with team.connect("jana") as ana:
        session = _session(ana)
        label = _label(ana, session, uid="u-server-0001", candidate=heads[0])
        created = _one(ana, f"SELECT created_at FROM {S}.labels WHERE id = %s", [label])
        assert created.startswith(_one(ana, "SELECT to_char(now() AT TIME ZONE 'UTC', "
                                            "'YYYY-MM-DD')"))
        for retired in ("add_label('u-old-00001', 3, 1, 'idiom', 'triage', '2020', 1.0, "
                        "NULL, NULL)", "claim(3, 1, 1e18, 1e18)", "live_leases(1e18)"):
            with pytest.raises(psycopg.errors.UndefinedFunction):
                ana.execute(f"SELECT {S}.{retired}")
        first = _one(ana, f"SELECT {S}.undo(%s, %s)", [label, session])
        second = _one(ana, f"SELECT {S}.undo(%s, %s)",
                      [_label(ana, session, uid="u-server-0002", candidate=heads[1]),
                       session])
        assert second == first + 1


@pytest.mark.parametrize("table", [t.name for t in head_tables()])
@pytest.mark.parametrize("dml", ["INSERT INTO {t} DEFAULT VALUES", "UPDATE {t} SET {c} = {c}",
                                 "DELETE FROM {t}", "TRUNCATE {t}"])
def test_an_annotator_writes_no_table_directly(team, table, dml):
    column = next(t for t in head_tables() if t.name == table).names[0]
    with team.connect("jana") as ana, pytest.raises(psycopg.errors.InsufficientPrivilege):
        ana.execute(dml.format(t=f"{S}.{table}", c=column))


def test_a_lease_lasts_the_servers_length_whatever_the_desk_asks(team):
    with team.connect("jana") as ana:
        session = _session(ana)
        assert _one(ana, f"SELECT {S}.claim(20, %s, 1e18)", [session])
        assert _one(ana, f"SELECT {S}.claim(21, %s, 'NaN'::float8)", [session])
    with team.connect() as conn:
        rows = conn.execute(f"SELECT candidate_id, expires_at - extract(epoch FROM now()) "
                            f"FROM {S}.claims WHERE session_id = %s", [session]).fetchall()
        length = _one(conn, f"SELECT {S}.lease_seconds()")
    assert [r[0] for r in rows] == [21]          # one lease per session
    assert 0 < rows[0][1] <= length + 5


def test_open_sessions_are_bounded(team):
    with team.connect("jben") as ben:
        for _ in range(MAX_OPEN_SESSIONS + 3):
            _session(ben)
        open_ = _one(ben, f"SELECT count(*) FROM {S}.sessions s JOIN {S}.annotators a "
                          "ON a.id = s.annotator_id WHERE a.name = 'jben' AND ended_at IS NULL")
    assert open_ == MAX_OPEN_SESSIONS


@pytest.mark.parametrize("sql", [
    f"SELECT gold FROM {S}.candidates",
    f"SELECT * FROM {S}.candidates",
    f"SELECT * FROM {S}.rankings",
    f"SELECT * FROM {S}.certifications",
    f"SELECT * FROM {S}.claims",
])
def test_an_annotator_reads_no_gold_scores_or_certifications(team, sql):
    with team.connect("jana") as ana, pytest.raises(psycopg.errors.InsufficientPrivilege):
        ana.execute(sql)


def test_the_feeds_hide_scores_and_others_decisions(team):
    with team.connect("jana") as ana:
        assert _one(ana, f"SELECT count(*) FROM {S}.ranking_feed() WHERE scores IS NOT NULL") == 0
        rows = ana.execute(f"SELECT a.name, f.value, f.kind, f.seconds, f.note "
                           f"FROM {S}.label_feed(0) f JOIN {S}.annotators a "
                           "ON a.id = f.annotator_id").fetchall()
        kinds = ana.execute(f"SELECT DISTINCT k.kind FROM (SELECT id FROM {S}.candidates "
                            f"LIMIT 300) c CROSS JOIN LATERAL {S}.active_kinds(c.id) k "
                            "WHERE k.annotator <> 'jana'").fetchall()
    others = [r for r in rows if r[0] != "jana"]
    assert others and all(r[1] is None and r[3] == 0 and r[4] is None for r in others)
    assert {r[2] for r in others} <= {"triage", "audit", "certify"}
    assert kinds and {k for (k,) in kinds} <= {"triage", "audit", "certify"}
    with team.connect("jlena") as lead:
        assert _one(lead, f"SELECT count(*) FROM {S}.ranking_feed() WHERE scores IS NULL") == 0
