"""What a connection to the team's server carries: the user's libpq options, and ours."""

from __future__ import annotations

import pytest

from triage.base.errors import ServerUnavailable, TriageError
from triage.store.pg.connect import connect


def test_sslmode_and_other_libpq_options_pass_through(pg):
    conn = connect(pg.url("opts", sslmode="require", connect_timeout="3"))
    try:
        params = conn.info.get_parameters()
        assert params["sslmode"] == "require"       # over a socket libpq uses no TLS
        assert params["connect_timeout"] == "3"     # the user's value, not our default
        assert conn.execute("SHOW application_name").fetchone()[0] == "triage"
        assert conn.execute("SHOW synchronous_commit").fetchone()[0] == "on"
        assert not conn.autocommit
    finally:
        conn.close()


def test_a_role_the_server_does_not_know_is_an_error_not_a_retry(pg):
    with pytest.raises(TriageError, match='role "nobody_here" does not exist') as caught:
        connect(pg.url("opts", user="nobody_here"))
    assert not isinstance(caught.value, ServerUnavailable)


def test_a_closed_port_is_a_server_not_answering(pg):
    url = "postgresql://postgres@127.0.0.1:9/postgres?project=p&connect_timeout=2"
    with pytest.raises(ServerUnavailable, match="the server at 127.0.0.1 is not answering"):
        connect(url)


def _error(text: str):
    import psycopg

    return psycopg.OperationalError(text)


@pytest.mark.parametrize("text", [
    'connection failed: FATAL:  password authentication failed for user "ana"',
    "connection to server on socket failed: fe_sendauth: no password supplied",
    'FATAL:  no pg_hba.conf entry for host "10.0.0.1", user "ana", database "annot"',
])
def test_authentication_failures_say_so_and_are_not_retried(text):
    from triage.store.pg.connect import translate
    from triage.store.pg.url import parse_url

    error = translate(_error(text), parse_url("postgresql://ana@db/annot?project=p"))
    assert not isinstance(error, ServerUnavailable)
    assert "authentication failed" in str(error)


@pytest.mark.parametrize("text", [
    "connection failed: FATAL:  the database system is not yet accepting connections\n"
    "DETAIL:  Consistent recovery state has not been yet reached.",
    "connection failed: FATAL:  the database system is starting up",
    "connection failed: FATAL:  the database system is in recovery mode",
    "connection failed: FATAL:  the database system is shutting down",
])
def test_startup_and_recovery_are_retried(text):
    from triage.store.pg.connect import translate
    from triage.store.pg.url import parse_url

    error = translate(_error(text), parse_url("postgresql://ana@db/annot?project=p"))
    assert isinstance(error, ServerUnavailable)


def test_the_missing_role_hint_quotes_the_name(pg):
    from triage.store.pg.schema import init_server

    pg.role("hint_lead")
    with pytest.raises(TriageError) as caught:
        init_server(pg.url("hint"), leads=["hint_lead"], annotators=['Zoé"; DROP TABLE x; --'])
    assert 'CREATE ROLE "Zoé""; DROP TABLE x; --" LOGIN;' in str(caught.value)


@pytest.mark.parametrize("command", [["status"], ["pull", "snapshot.triage"]])
def test_without_the_driver_a_server_address_says_how_to_install_it(command, monkeypatch,
                                                                   capsys, tmp_path):
    """psycopg is the optional ``team`` extra: missing, every way in says so in a sentence."""
    import sys

    from triage.cli.program import main
    from triage.project import open_project

    monkeypatch.setitem(sys.modules, "psycopg", None)   # as if it were not installed
    monkeypatch.chdir(tmp_path)
    url = "postgresql://ana@/postgres?host=/nowhere&project=idioms"
    with pytest.raises(TriageError, match=r"pip install 'triage\[team\]'"):
        open_project(url)
    assert main([command[0], url, *command[1:]]) == 2
    assert "pip install 'triage[team]'" in capsys.readouterr().err
