"""The adjudication queue: ties, majorities, rulings, and what counts as a positive."""

from __future__ import annotations

import json

import pytest

from tests.helpers import make_project
from triage import store
from triage.base.errors import TriageError
from triage.cli.program import main
from triage.project.adjudication import adjudicate, candidate_id_of, disagreements
from triage.project.final import final_labels, is_positive


@pytest.fixture
def project(tmp_path):
    p = make_project(tmp_path, n=30)
    yield p
    p.close()


def label(project, annotator: str, key: str, value: str | None, *, change: bool = False) -> int:
    session = project.start_session(annotator)
    return project.record_label(session, candidate_id_of(project, key), value, change=change)


def finals(project):
    return final_labels(store.active_labels(project.db))


def test_a_two_annotator_tie_is_queued_unresolved_and_not_a_positive(project):
    label(project, "ada", "c0004", "idiom")
    label(project, "bob", "c0004", "literal")
    label(project, "bob", "c0001", "literal")       # the other order of the same tie
    label(project, "ada", "c0001", "idiom")
    label(project, "ada", "c0002", "literal")       # agreement: not in the queue
    label(project, "bob", "c0002", "literal")
    label(project, "ada", "c0003", "idiom")         # a single label: not in the queue
    queue = disagreements(project)
    assert [(d.key, d.rank, d.status, d.majority) for d in queue] == [
        ("c0001", 2, "unresolved", None), ("c0004", 5, "unresolved", None)]
    assert queue[0].votes == {"ada": "idiom", "bob": "literal"}
    assert queue[0].counts == {"idiom": 1, "literal": 1}
    assert queue[0].text == "phrase number 1"
    cid = candidate_id_of(project, "c0004")
    assert (finals(project)[cid].status, finals(project)[cid].value) == ("unresolved", None)
    # Only c0003 is a resolved positive: the ties are no final positive until someone
    # rules on them...
    settings = project.settings
    assert sum(is_positive(f, settings) for f in finals(project).values()) == 1
    # ...and the live numbers count them the same way (one rule for ties, project/final.py).
    assert project.snapshot().positives_found == 1


def test_a_ruling_makes_the_label_final_and_leaves_the_queue(project):
    label(project, "ada", "c0004", "idiom")
    label(project, "bob", "c0004", "literal")
    cid = candidate_id_of(project, "c0004")
    judge = project.start_session("judith")
    final = adjudicate(project, judge, cid, "idiom", note="idiomatic in context")
    assert (final.value, final.status, final.adjudicated) == ("idiom", "final", True)
    assert final.votes == {"ada": "idiom", "bob": "literal"}  # the ruling is not a vote
    assert disagreements(project) == []
    assert project.snapshot().positives_found == 1
    rows = [r for r in store.active_labels(project.db) if r.kind == "adjudication"]
    assert [(r.annotator, r.value, r.note) for r in rows] == [
        ("judith", "idiom", "idiomatic in context")]
    # A later ruling replaces the earlier one.
    assert adjudicate(project, judge, cid, "literal").value == "literal"
    assert project.snapshot().positives_found == 0


def test_a_majority_of_three_is_final_without_a_ruling(project):
    label(project, "ada", "c0006", "idiom")
    label(project, "bob", "c0006", "literal")
    label(project, "carol", "c0006", "idiom")
    cid = candidate_id_of(project, "c0006")
    final = finals(project)[cid]
    assert (final.value, final.status, final.adjudicated) == ("idiom", "final", False)
    [d] = disagreements(project)
    assert (d.key, d.status, d.majority, d.counts) == ("c0006", "majority", "idiom",
                                                       {"idiom": 2, "literal": 1})
    assert project.snapshot().positives_found == 1


def test_undo_and_skips_change_the_votes(project):
    label(project, "ada", "c0004", "idiom")
    bob = project.start_session("bob")
    project.record_label(bob, candidate_id_of(project, "c0004"), "literal")
    assert len(disagreements(project)) == 1
    project.undo(bob)
    assert disagreements(project) == []
    project.skip(bob, candidate_id_of(project, "c0004"))  # a skip is no vote
    assert disagreements(project) == []
    # bob and ada change their minds (explicitly, as the history does): the latest is the vote.
    label(project, "bob", "c0004", "literal", change=True)
    label(project, "ada", "c0004", "literal", change=True)
    assert disagreements(project) == []


def test_rulings_are_refused_for_unlabeled_candidates_and_unknown_labels(project):
    judge = project.start_session("judith")
    with pytest.raises(TriageError, match="has no labels yet"):
        adjudicate(project, judge, candidate_id_of(project, "c0009"), "idiom")
    label(project, "ada", "c0009", "idiom")
    with pytest.raises(TriageError, match="not a label of this project"):
        adjudicate(project, judge, candidate_id_of(project, "c0009"), "maybe")
    with pytest.raises(TriageError, match="no candidate with key 'nope'"):
        candidate_id_of(project, "nope")


def test_adjudicate_command_lists_and_rules(project, capsys):
    label(project, "ada", "c0004", "idiom")
    label(project, "bob", "c0004", "literal")
    path = str(project.path)
    assert main(["adjudicate", path, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(d["key"], d["status"], d["votes"]) for d in data["disagreements"]] == [
        ("c0004", "unresolved", {"ada": "idiom", "bob": "literal"})]
    assert main(["adjudicate", path, "--list"]) == 0
    assert "1 disagreement awaits a ruling (1 unresolved tie)" in capsys.readouterr().out
    assert main(["adjudicate", path, "--key", "c0004", "--label", "idiom",
                 "--annotator", "judith"]) == 0
    assert capsys.readouterr().out.strip() == (
        "c0004: final label 'idiom' (ruled by judith; votes were ada: idiom, bob: literal)")
    assert main(["adjudicate", path]) == 0
    assert capsys.readouterr().out.strip() == "no disagreements await a ruling"
    assert main(["adjudicate", path, "--key", "c0004", "--label", "idiom"]) == 2
    assert "--key, --label and --annotator together" in capsys.readouterr().err
