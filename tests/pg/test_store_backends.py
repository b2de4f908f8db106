"""The project's writer behaves the same on a project file and on a server replica.

Each test runs twice: ``file`` opens the same project file once per desk (its writer is
:class:`triage.store.writer.FileWriter`); ``server`` pushes that file to the test server
and opens it once per login role (a replica each), so every write below goes through
:class:`triage.store.teamwriter.TeamWriter` and :class:`triage.store.pg.link.TeamLink`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest

from tests.helpers import make_project
from tests.pg.team_setup import publish
from triage import store
from triage.project import Project, open_project
from triage.store import certification, claims, curation

ROLES = {"boss": "lead", "ann1": "annotator", "ann2": "annotator"}


@pytest.fixture(params=["file", "server"])
def desk(request, tmp_path, monkeypatch) -> Callable[[str], Project]:
    """``desk(name)``: the project as opened by ``name`` on the backend under test."""
    opened: list[Project] = []
    if request.param == "file":
        path = make_project(tmp_path, 40, overlap_rate=0.0).path

        def open_as(_name: str) -> Project:
            opened.append(open_project(path))
            return opened[-1]
    else:
        pg = request.getfixturevalue("pg")
        name = request.getfixturevalue("project_name")
        monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
        publish(pg, pg.url(name), tmp_path, n=40, overlap_rate=0.0,
                annotators=("ann1", "ann2"), leads=("boss",))

        def open_as(role: str) -> Project:
            opened.append(open_project(pg.url(name, role)))
            return opened[-1]
    yield open_as
    for project in opened:
        project.close()


def _leased(project: Project) -> set[int]:
    """Candidates under a desk's lease (not those a refused claim marks busy for a moment)."""
    return {c for c, s in project.writer.live_claims(time.time()) if s > 0}


def _session(project: Project, name: str) -> tuple[int, int]:
    annotator = project.writer.ensure_annotator(name)
    return annotator, project.writer.start_session(annotator)


def test_label_undo_and_note_round_trip(desk):
    project = desk("ann1")
    annotator, session = _session(project, "ann1")
    assert project.writer.claim(session, 3, time.time(), time.time() + 60, lambda: True)
    label_id = project.writer.insert_label(candidate_id=3, annotator_id=annotator,
                                  session_id=session, value="idiom", kind="triage",
                                  seconds=2.5, note=None)
    [row] = store.labels_after(project.db, label_id - 1)
    assert (row.id, row.candidate_id, row.annotator, row.value) == (label_id, 3, "ann1", "idiom")
    # A file keeps the desk's time; a server pays its own clock's (serving to label), capped
    # by what the desk reports.
    assert 0 <= row.seconds <= 2.5
    project.writer.set_note(label_id, "a fixed phrase")
    assert store.labels_after(project.db, label_id - 1)[0].note == "a fixed phrase"
    project.writer.mark_undone(label_id, session)
    assert store.undone_after(project.db, 0)[-1][1] == label_id
    assert store.last_active_label(project.db, annotator) is None


def test_leases_keep_two_desks_apart(desk):
    one, two = desk("ann1"), desk("ann2")
    a1, s1 = _session(one, "ann1")
    a2, s2 = _session(two, "ann2")
    now = time.time()
    assert one.writer.claim(s1, 5, now, now + 60, lambda: True)
    # Taken by another desk (on a server, an annotator is not told whose: session 0).
    assert [c for c, s in two.writer.live_claims(time.time()) if s != s2] == [5]
    assert not two.writer.claim(s2, 5, time.time(), time.time() + 60, lambda: True)
    assert two.writer.claim(s2, 6, time.time(), time.time() + 60, lambda: True)
    # still_needed saying no rolls the lease back.
    assert not two.writer.claim(s2, 7, time.time(), time.time() + 60, lambda: False)
    assert 7 not in _leased(one)
    one.writer.insert_label(candidate_id=5, annotator_id=a1, session_id=s1, value="idiom",
                       kind="triage", seconds=1.0, note=None)
    assert 5 not in _leased(two)
    assert two.writer.active_label_kinds(5) == [("ann1", "triage")]
    two.writer.end_session(s2)
    assert 6 not in _leased(one)


def test_lead_writes_settings_plan_guidelines_and_certification(desk):
    lead = desk("boss")
    lead.update_settings(budget=123.0)
    assert store.load_settings(desk("ann1").db).budget == 123.0
    lead.writer.replace_overlap_plan([2, 4, 8])
    assert claims.overlap_items(lead.db) == {2, 4, 8}
    assert lead.writer.add_guidelines("Idioms are figurative.", "boss") == 1
    assert lead.writer.add_guidelines("Second take.", "boss") == 2
    annotator, session = _session(lead, "boss")
    label_id = lead.writer.insert_label(candidate_id=9, annotator_id=annotator,
                                  session_id=session, value="literal", kind="triage",
                                  seconds=1.0, note=None)
    assert curation.label_guideline_versions(lead.db)[label_id] == 2
    cert = lead.writer.start_certification(
        target=0.9, confidence=0.95, found=3, order=np.array([7, 1, 5]),
        planned=3, labels_at=1)
    assert certification.latest_certification(lead.db).sample_order.tolist() == [7, 1, 5]
    lead.writer.end_certification(cert, outcome="cancelled", p_value=None,
                                    sample_n=0, sample_k=0)
    assert certification.latest_certification(lead.db).outcome == "cancelled"
    lead.writer.set_hourly_rate("ann2", 30.0)
    assert store.hourly_rates(lead.db, 10.0)["ann2"] == 30.0


def test_desk_api_serves_labels_and_undoes(desk):
    project = desk("ann1")
    session = project.start_session("ann1")
    first = project.next_candidate(session)
    project.record_label(session, first.candidate_id, "idiom")
    second = project.next_candidate(session)
    assert second.candidate_id != first.candidate_id
    assert project.undo(session) == first.candidate_id
    again = project.next_candidate(session)
    assert again.candidate_id == first.candidate_id     # the undone candidate comes back
    assert project.snapshot().events == 0



def test_prodigy_import_into_a_server_project_is_refused_in_words(pg, project_name, tmp_path,
                                                                  monkeypatch, capsys):
    # It used to write into the replica behind the server's back (or die with "database is
    # locked" when the link's pull held the file); the writer now refuses before any write.
    import json

    from triage.cli.program import main as cli

    monkeypatch.setenv("TRIAGE_CACHE_DIR", str(tmp_path / "cache"))
    url = pg.url(project_name)
    publish(pg, url, tmp_path, n=40, overlap_rate=0.0)
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"text": "phrase number 1", "label": "idiom", "answer": "accept",
                                  "meta": {"key": "c0001"}, "_annotator_id": "ada"}) + "\n")
    assert cli(["import", url, str(labels), "--from", "prodigy"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("triage: cannot import Prodigy or Label Studio labels into a project "
                          "on a server from a desk; import into a project file")
    with open_project(url) as lead:
        assert store.active_labels(lead.db) == []
