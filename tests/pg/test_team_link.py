"""A desk on a server project: writes go to PostgreSQL first, the replica follows."""

from __future__ import annotations

import pytest

from tests.pg.team_setup import publish
from triage.base.errors import TriageError
from triage.ingest.importer import ColumnMapping
from triage.project import open_project
from triage.project.team import TeamProject

pytestmark = pytest.mark.usefixtures("_team_cache")


@pytest.fixture
def _team_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))


def test_label_goes_to_the_server_and_comes_back_with_its_id(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, annotators=("ann_a",))
    project = open_project(pg_url("ann_a"))
    assert isinstance(project, TeamProject)
    session = project.start_session("ann_a")
    item = project.next_candidate(session)
    label_id = project.record_label(session, item.candidate_id, "idiom")
    with pg.connect() as conn:
        row = conn.execute(f"SELECT candidate_id, value FROM {project.url.schema}.labels "
                           "WHERE id = %s", [label_id]).fetchone()
    assert row == (item.candidate_id, "idiom")
    assert project.path.parent == tmp_path / "cache"   # the replica lives in TRIAGE_CACHE_DIR
    assert project.tracker.is_handled(item.candidate_id)
    project.close()


def test_an_annotator_may_not_change_settings_or_label_as_someone_else(pg, pg_url, tmp_path):
    publish(pg, pg_url(), tmp_path, annotators=("ann_c",))
    project = open_project(pg_url("ann_c"))
    with pytest.raises(TriageError, match=r"only the lead \(role triage_t\d+_lead\)"):
        project.update_settings(budget=1.0)
    with pytest.raises(TriageError, match="database role"):
        project.start_session("somebody else")
    with pytest.raises(TriageError, match="triage new URL"):
        project.import_file(tmp_path / "pool.csv", ColumnMapping(text="text"))
    project.close()


def test_commands_take_the_server_address(pg, pg_url, tmp_path, capsys):
    import json

    from triage.cli import main

    publish(pg, pg_url(), tmp_path, annotators=("ann_d",))
    project = open_project(pg_url("ann_d"))
    session = project.start_session("ann_d")
    for value in ("idiom", "literal", "idiom"):
        item = project.next_candidate(session)
        project.record_label(session, item.candidate_id, value)
    project.close()
    capsys.readouterr()
    assert main(["status", pg_url("ann_d"), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert (status["events"], status["annotators"]) == (3, 1)
    out = tmp_path / "labels.csv"
    assert main(["export", pg_url("ann_d"), str(out)]) == 0
    assert out.read_text(encoding="utf-8").count("idiom") >= 2


def test_an_annotators_status_does_not_call_others_labels_skips(pg, pg_url, tmp_path, capsys):
    import json

    from triage.cli import main

    publish(pg, pg_url(), tmp_path, annotators=("st_a", "st_b"))
    for role, value in (("st_a", "idiom"), ("st_b", "literal")):
        project = open_project(pg_url(role))
        session = project.start_session(role)
        for _ in range(3):
            item = project.next_candidate(session)
            project.record_label(session, item.candidate_id, value)
        project.close()
    capsys.readouterr()
    assert main(["status", pg_url("st_a"), "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["skipped"] == 0
    assert status["handled_by_others"] == 3
    assert main(["status", pg_url("st_a")]) == 0
    assert "3 handled by others (decisions hidden)" in capsys.readouterr().out
