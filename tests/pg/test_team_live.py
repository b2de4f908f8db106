"""Live across desks (LISTEN/NOTIFY) and a server that goes away mid-session."""

from __future__ import annotations

import time

import pytest

from tests.pg.conftest import PgServer
from tests.pg.team_setup import publish
from triage.base.errors import ServerUnavailable
from triage.project import open_project


@pytest.fixture
def _team_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))


def _wait_for(predicate, seconds: float) -> float | None:
    """Seconds until ``predicate()`` held, or None if it did not within ``seconds``."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if predicate():
            return time.monotonic() - start
        time.sleep(0.01)
    return None


@pytest.mark.usefixtures("_team_cache")
def test_a_label_reaches_another_desks_replica_within_a_second(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, annotators=("live_a", "live_b"), lease_seconds=5)
    watcher = open_project(pg_url("live_a"))
    writer = open_project(pg_url("live_b"))
    arrived: list[set[str]] = []
    listener = watcher.listener(arrived.append)
    listener.start()
    try:
        assert listener.connected.wait(5)
        session = writer.start_session("live_b")
        item = writer.next_candidate(session)
        before = len(arrived)
        label_id = writer.record_label(session, item.candidate_id, "idiom")

        def seen() -> bool:
            watcher.refresh()
            return label_id in watcher.tracker.rows
        # Within a second on an idle machine; the bound is generous so that load cannot
        # fail it. That it came by notification is what the next line checks.
        took = _wait_for(seen, 15.0)
        assert took is not None, "the label did not reach the other replica within 15 s"
        assert any("labels" in tables for tables in arrived[before:])
        # Blind overlap: the watcher's replica knows the candidate is handled, not the value.
        assert watcher.tracker.is_handled(item.candidate_id)
        assert watcher.tracker.rows[label_id].value is None
    finally:
        listener.stop()
        watcher.close()
        writer.close()


@pytest.fixture
def own_server(tmp_path_factory):
    """A server of this test's own, to stop and start without disturbing the others."""
    import pgserver

    server = pgserver.get_server(tmp_path_factory.mktemp("pgdown"), cleanup_mode="stop")
    try:
        yield PgServer(server)
    finally:
        server.cleanup()


def _stop(pg: PgServer) -> None:
    from pgserver._commands import pg_ctl

    pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pg.server.pgdata, user=pg.server.system_user)


def _start(pg: PgServer) -> None:
    pg.server.ensure_postgres_running()


@pytest.mark.usefixtures("_team_cache")
def test_server_down_mid_session_loses_nothing(own_server, tmp_path):
    pg = own_server
    url = pg.url("down")
    publish(pg, url, tmp_path, annotators=("down_a",), lease_seconds=5)
    project = open_project(pg.url("down", "down_a"))
    session = project.start_session("down_a")
    first = project.next_candidate(session)
    project.record_label(session, first.candidate_id, "idiom")
    item = project.next_candidate(session)

    _stop(pg)
    with pytest.raises(ServerUnavailable) as raised:
        project.record_label(session, item.candidate_id, "literal")
    message = str(raised.value)
    assert "not answering" in message and "nothing was lost" in message
    assert pg.host in message                       # names the server
    with pytest.raises(ServerUnavailable):          # a retry while it is still down
        project.record_label(session, item.candidate_id, "literal")

    _start(pg)
    label_id = project.record_label(session, item.candidate_id, "literal")
    with pg.connect() as conn:
        rows = conn.execute("SELECT id, candidate_id, value FROM triage_down.labels "
                            "ORDER BY id").fetchall()
    assert rows[-1] == (label_id, item.candidate_id, "literal")
    assert [r[1] for r in rows] == [first.candidate_id, item.candidate_id]   # sent once
    nxt = project.next_candidate(session)
    assert nxt is not None and nxt.candidate_id not in (first.candidate_id, item.candidate_id)
    project.close()


@pytest.mark.slow
@pytest.mark.usefixtures("_team_cache")
def test_a_notification_from_anyone_costs_only_a_refresh(pg, pg_url, tmp_path):
    """Any role may NOTIFY any channel: a flood makes a few idle pulls and changes nothing."""
    publish(pg, pg_url(), tmp_path, leads=("hint_lead",), lease_seconds=5)
    pg.role("stranger")
    project = open_project(pg_url("hint_lead"))
    calls: list[set[str]] = []
    listener = project.listener(calls.append)
    listener.start()
    try:
        assert listener.connected.wait(10)
        assert _wait_for(lambda: calls, 5) is not None   # the "*" after connecting
        before = project.link.pull_db.execute("SELECT total_changes()").fetchone()[0]
        version = project.db.execute("PRAGMA data_version").fetchone()[0]
        channel = project.url.schema
        with pg.connect("stranger") as stranger:
            for _ in range(200):
                stranger.execute(f"NOTIFY {channel}, 'settings'")
        assert _wait_for(lambda: len(calls) > 1, 20) is not None
        time.sleep(1.0)                       # what is left of the flood arrives
        assert len(calls) <= 10               # coalesced: a few refreshes, not 200
        after = project.link.pull_db.execute("SELECT total_changes()").fetchone()[0]
        assert after == before                # each pull found nothing and wrote nothing
        assert project.db.execute("PRAGMA data_version").fetchone()[0] == version
    finally:
        listener.stop()
        project.close()
