"""Project.final_labels(): the final labels followed with the label events, across desks,
computed once and then only for the candidates an event changed."""

from __future__ import annotations

import triage.project.state as state_module
from tests.helpers import label_top, make_project
from triage import store
from triage.project import open_project
from triage.project.adjudication import adjudicate, undo_ruling
from triage.project.final import final_labels


def _from_scratch(project) -> dict:
    return final_labels(store.active_labels(project.db))


def test_final_labels_follow_another_desk_and_are_not_read_again(tmp_path, monkeypatch):
    lead = make_project(tmp_path, n=30, overlap_rate=0.0)
    label_top(lead, "ada", 5, "idiom")
    other = open_project(lead.path)   # a second desk on the same file
    try:
        assert lead.final_labels() == _from_scratch(lead)
        assert len(lead.final_labels()) == 5
        # From here on, only what changed is recomputed: count the events it looks at.
        looked_at: list[int] = []

        def counting(rows):
            rows = list(rows)
            looked_at.append(len(rows))
            return final_labels(rows)

        monkeypatch.setattr(state_module, "final_labels", counting)
        session = other.start_session("bo")
        first = lead.final_labels()
        cid = next(iter(first))
        other.record_label(session, cid, "literal")          # a disagreement: a tie
        finals = lead.final_labels()
        assert looked_at == [2]   # the two events of that one candidate, nothing else
        assert finals[cid].status.value == "unresolved"
        assert finals == _from_scratch(lead)
        assert lead.final_labels() == finals and looked_at == [2]   # unchanged: no work
        adjudicate(other, session, cid, "idiom")
        assert lead.final_labels()[cid].value == "idiom"
        undo_ruling(other, session)                           # the ruling taken back
        assert lead.final_labels()[cid].status.value == "unresolved"
        assert lead.final_labels() == _from_scratch(lead)
    finally:
        other.close()
        lead.close()


def test_final_labels_of_a_project_without_candidates_are_empty(tmp_path):
    from triage.project import create_project
    from triage.store.settings import Settings

    project = create_project(tmp_path / "empty.triage", Settings())
    try:
        assert project.final_labels() == {}
    finally:
        project.close()
