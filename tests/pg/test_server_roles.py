"""``triage server init`` and row-level security, against a real PostgreSQL (pgserver).

The project is pushed with labels by two annotators whose names are their login roles;
each test then connects as one of those roles and tries what a person at a SQL prompt
could try.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from triage.base.errors import BusyError, ServerUnavailable, TriageError
from triage.cli.program import main
from triage.project.demo import create_demo, simulate
from triage.store.pg import schema
from triage.store.pg.connect import connect
from triage.store.pg.copy import push


@pytest.fixture(scope="module")
def team(pg, tmp_path_factory):
    """Project ``roles`` on the server: lead ``lena``, annotators ``ana`` and ``ben``."""
    for role in ("lena", "ana", "ben", "cat"):
        pg.role(role)
    path = Path(tmp_path_factory.mktemp("roles")) / "demo.triage"
    project = create_demo(path)
    simulate(project, 60, "ana")
    simulate(project, 40, "ben")
    project.close()
    url = pg.url("roles")
    assert main(["server", "init", url, "--lead", "lena", "--annotator", "ana",
                 "--annotator", "ben"]) == 0
    push(path, url)
    return pg


def _scalar(conn, sql, params=()):
    return conn.execute(sql, params).fetchone()[0]


def test_init_is_idempotent_and_creates_groups_policies_functions(team, capsys):
    url = team.url("roles")
    assert main(["server", "init", url, "--lead", "lena", "--annotator", "ana"]) == 0
    assert "triage_roles_lead" in capsys.readouterr().out
    with team.connect() as conn:
        groups = {r[0] for r in conn.execute(
            "SELECT rolname FROM pg_roles WHERE rolname LIKE 'triage_roles_%' AND NOT rolcanlogin")}
        assert groups == {"triage_roles_lead", "triage_roles_annotator"}
        policies = {(r[0], r[1]) for r in conn.execute(
            "SELECT tablename, policyname FROM pg_policies WHERE schemaname = 'triage_roles'")}
        assert policies == {(t, p) for t in ("labels", "sessions") for p in ("lead_all", "own_rows")}
        functions = {r[0] for r in conn.execute(
            "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = 'triage_roles' AND p.prosecdef")}
        assert {"claim", "label_feed", "live_leases", "add_label", "undo", "set_note",
                "start_session", "end_session", "session_feed", "release", "active_kinds",
                "ranking_feed", "certification_feed"} <= functions
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.annotators") == 2
        assert _scalar(conn, "SELECT value FROM triage_roles.project WHERE key = "
                             "'server_schema'") == schema.SERVER_SCHEMA_VERSION


def test_an_annotator_reads_candidates_and_only_their_own_labels(team):
    with team.connect("ana") as conn:
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.candidates") == 1500
        names = {r[0] for r in conn.execute(
            "SELECT a.name FROM triage_roles.labels l "
            "JOIN triage_roles.annotators a ON a.id = l.annotator_id")}
        assert names == {"ana"}
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.labels") == 60
        ben = _scalar(conn, "SELECT id FROM triage_roles.annotators WHERE name = 'ben'")
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.labels "
                             "WHERE annotator_id = %s", [ben]) == 0
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.sessions "
                             "WHERE annotator_id = %s", [ben]) == 0


def test_the_lead_reads_every_label(team):
    with team.connect("lena") as conn:
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.labels") == 100
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.label_feed(0) "
                             "WHERE value IS NOT NULL") == _scalar(
            conn, "SELECT count(*) FROM triage_roles.labels WHERE value IS NOT NULL")


def test_the_feed_hides_other_annotators_values_but_not_that_they_labelled(team):
    with team.connect("ana") as conn:
        rows = conn.execute("SELECT a.name, f.value, f.seconds FROM triage_roles.label_feed(0) f "
                            "JOIN triage_roles.annotators a ON a.id = f.annotator_id").fetchall()
    assert len(rows) == 100
    assert {name for name, _value, _seconds in rows} == {"ana", "ben"}
    assert all(seconds == 0 for name, _value, seconds in rows if name == "ben")
    assert all(value is None for name, value, _ in rows if name == "ben")
    assert any(value is not None for name, value, _ in rows if name == "ana")


@pytest.mark.parametrize("sql", [
    "UPDATE triage_roles.settings SET value = '0.5' WHERE key = 'price_per_item'",
    "INSERT INTO triage_roles.settings(key, value) VALUES ('budget', '1')",
    "DELETE FROM triage_roles.plan",
    "SELECT * FROM triage_roles.claims",
])
def test_an_annotator_cannot_change_settings_or_touch_leases(team, sql):
    import psycopg

    with team.connect("ana") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(sql)


def test_an_annotator_cannot_write_labels_in_another_name(team):
    import psycopg

    with team.connect("ana") as conn:
        ben_session = _scalar(conn, "SELECT s.id FROM triage_roles.session_feed(0) s "
                                    "JOIN triage_roles.annotators a ON a.id = s.annotator_id "
                                    "WHERE a.name = 'ben' LIMIT 1")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT triage_roles.add_label('x1x1x1x1', 1, %s, 'idiom', 'triage', "
                         "1.0, NULL, NULL)", [ben_session])
        ben = _scalar(conn, "SELECT id FROM triage_roles.annotators WHERE name = 'ben'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # row-level security
            conn.execute("INSERT INTO triage_roles.labels(uid, candidate_id, annotator_id, "
                         "session_id, value, created_at) VALUES ('x2', 1, %s, %s, 'idiom', "
                         "'2026-01-01')", [ben, ben_session])


def test_a_role_outside_the_project_reads_nothing(team):
    import psycopg

    with team.connect("cat") as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT count(*) FROM triage_roles.candidates")


def test_a_lead_may_change_settings_through_the_groups_grants(team):
    update = "UPDATE triage_roles.settings SET value = %s WHERE key = 'budget'"
    with team.connect("lena") as conn:
        old = _scalar(conn, "SELECT value FROM triage_roles.settings WHERE key = 'budget'")
        assert conn.execute(update, ["1234.5"]).rowcount == 1   # not silently 0 rows
    with team.connect() as conn:   # another connection sees the lead's change
        assert _scalar(conn, "SELECT value FROM triage_roles.settings "
                             "WHERE key = 'budget'") == "1234.5"
    with team.connect("lena") as conn:
        assert conn.execute(update, [old]).rowcount == 1


def test_grant_adds_an_annotator_who_then_sees_only_their_own(team):
    assert main(["server", "grant", team.url("roles"), "--annotator", "cat"]) == 0
    with team.connect("cat") as conn:
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.candidates") == 1500
        assert _scalar(conn, "SELECT count(*) FROM triage_roles.labels") == 0
        assert _scalar(conn, "SELECT triage_roles.ensure_annotator()") == _scalar(
            conn, "SELECT id FROM triage_roles.annotators WHERE name = 'cat'")


def test_init_names_a_missing_login_role(team):
    with pytest.raises(TriageError, match='CREATE ROLE "nobody" LOGIN'):
        schema.init_server(team.url("roles"), leads=["nobody"], annotators=[])


def test_a_server_that_is_not_there_is_busy_not_broken(tmp_path):
    url = f"postgresql://postgres@/postgres?host={tmp_path}&project=p"
    with pytest.raises(ServerUnavailable, match="not answering") as caught:
        connect(url)
    assert isinstance(caught.value, BusyError)


def test_the_settings_refusal_names_the_lead_role(team):
    import psycopg

    from triage.store.pg.connect import translate
    from triage.store.pg.url import parse_url

    url = parse_url(team.url("roles", user="ana"))
    with team.connect("ana") as conn:
        try:
            conn.execute("UPDATE triage_roles.settings SET value = '1' WHERE key = 'budget'")
        except psycopg.errors.InsufficientPrivilege as error:
            message = str(translate(error, url))
        else:
            pytest.fail("an annotator changed a setting")
    assert message == "only the lead (role triage_roles_lead) may change settings"
