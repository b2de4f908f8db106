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
