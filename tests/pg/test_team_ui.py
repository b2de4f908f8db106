"""The desk window on a team server: live panels, and a server that stops answering."""

from __future__ import annotations

import pytest

from tests.pg.team_setup import publish
from tests.pg.test_replica_safety import _bad_rows, _label_once
from tests.pg.test_team_live import _start, _stop, own_server  # noqa: F401 - a fixture
from tests.qt_helpers import open_main_window
from triage.project import open_project


@pytest.fixture(autouse=True)
def _team_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))


def _server_values(pg, schema: str) -> list[tuple[int, str]]:
    with pg.connect() as conn:
        return conn.execute(f"SELECT candidate_id, value FROM {schema}.labels ORDER BY id"
                            ).fetchall()


@pytest.mark.slow
def test_another_desks_label_refreshes_the_panels_within_a_second(pg, pg_url, project_name,
                                                                   tmp_path, qtbot):
    publish(pg, pg_url(), tmp_path, annotators=("ui_a", "ui_b"), overlap_rate=0.0,
            lease_seconds=5)
    window = open_main_window(qtbot, pg_url("ui_a"), "whoever")
    assert window.desk.session.annotator == "ui_a"          # the login role, not the typed name
    assert window.windowTitle().endswith(f"project={project_name}")
    qtbot.waitUntil(lambda: window._team_live is not None
                    and window._team_live._listener.connected.is_set(), timeout=5000)
    other = open_project(pg_url("ui_b"))
    session = other.start_session("ui_b")
    item = other.next_candidate(session)
    assert item.candidate_id != window.desk.current.candidate_id   # leases keep them apart
    qtbot.wait(800)                  # the panels' own first refreshes after opening are done
    before = window.refreshes
    other.record_label(session, item.candidate_id, "idiom")
    # The notification brings the label and a refresh of the panels; "within a second" on a
    # quiet machine, but the bound is generous so a loaded one cannot fail it.
    qtbot.waitUntil(lambda: window.refreshes > before
                    and window.project.snapshot().events == 1, timeout=10000)
    other.close()
    window.close_project()


def test_desk_says_the_server_is_not_answering_and_keeps_the_label(own_server, tmp_path,  # noqa: F811
                                                                   qtbot):
    pg = own_server
    publish(pg, pg.url("deskdown"), tmp_path, annotators=("ui_c",), overlap_rate=0.0,
            lease_seconds=5)
    window = open_main_window(qtbot, pg.url("deskdown", "ui_c"), "ui_c")
    desk = window.desk
    desk.retry_ms = 100
    first = desk.current
    qtbot.keyClick(desk, "i")
    qtbot.waitUntil(lambda: desk.current.candidate_id != first.candidate_id, timeout=3000)
    shown = desk.current
    _stop(pg)
    qtbot.keyClick(desk, "l")
    qtbot.waitUntil(lambda: "not answering" in desk.message.text(), timeout=3000)
    assert pg.host in desk.message.text()
    assert desk.status_text().startswith("Team server not answering — retrying…")
    assert desk.current.candidate_id == shown.candidate_id     # the label stays on screen
    assert desk.text.text() == shown.text
    qtbot.wait(300)                                            # a few retries meanwhile
    _start(pg)
    qtbot.waitUntil(lambda: desk.current is not None
                    and desk.current.candidate_id != shown.candidate_id, timeout=10000)
    assert not desk.status_text().startswith("Team server")
    assert _server_values(pg, "triage_deskdown") == [(first.candidate_id, "idiom"),
                                                     (shown.candidate_id, "literal")]
    window.close_project()


def test_the_desk_shows_rows_from_the_server_it_set_aside(pg, pg_url, project_name, tmp_path,
                                                         qtbot):
    publish(pg, pg_url(), tmp_path, leads=("ui_lead",), overlap_rate=0.0)
    lead = open_project(pg_url("ui_lead"))
    _label_once(lead, "ui_lead")
    lead.close()
    _bad_rows(pg, f"triage_{project_name}")
    window = open_main_window(qtbot, pg_url("ui_lead"), "ui_lead")
    qtbot.waitUntil(lambda: window.server_note.isVisible(), timeout=5000)
    assert window.server_note.text().startswith("4 rows from the server could not be used")
    window.close_project()
    assert not window.server_note.isVisible()
