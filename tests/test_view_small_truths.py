"""Small truths of the words on screen and in the report: counts agree with their nouns and
verbs, and nothing says "the first 0"."""

from __future__ import annotations

from triage.views.analysis import adjudication_data
from triage.views.formatting import awaiting
from triage.views.report import readings


def test_one_candidate_awaits_and_many_await():
    assert awaiting(1, "candidate") == "1 candidate awaits a ruling"
    assert awaiting(1_204, "disagreement") == "1,204 disagreements await a ruling"


def _row(cid: int, votes: dict) -> dict:
    return {"candidate_id": cid, "rank": cid, "key": f"c{cid}", "text": "t",
            "votes": votes, "status": "unresolved"}


def test_the_adjudication_summary_of_one_disagreement():
    from triage.store.settings import LabelOption

    scheme = [LabelOption("idiom", "i"), LabelOption("literal", "l")]
    one = adjudication_data([_row(1, {"ada": "idiom", "bob": "literal"})], scheme)
    assert one.summary.startswith("1 candidate awaits a ruling (1 tie, ")


def test_the_report_names_one_annotator_and_one_model_in_the_singular():
    data = {"settings": {"positive_labels": ["idiom"]}, "pool": 1, "models": ["m"],
            "active_model": "m", "annotated": 1, "annotators": 1, "positives_found": 0}
    text = readings.project(data)
    assert text.startswith("1 candidate ranked by 1 model; the queue follows m.")
    assert "annotated by 1 annotator, and" in text and "(s)" not in text


def test_the_pictures_section_never_says_the_first_0():
    data = {"disagreements": {"total": 0, "shown": 0, "not_shown": 0},
            "positives": {"total": 1, "shown": 1, "not_shown": 0}, "images": True}
    text = readings.pictures_section(data)
    assert text.startswith("0 disagreements await a ruling and 1 positive has been found")
    assert "the first 0" not in text and "(s)" not in text
    assert "Shown: a random sample of 1 positive, so label" in text
    nothing = readings.pictures_section({**data, "positives": {"total": 0, "shown": 0,
                                                                "not_shown": 0}})
    assert "Shown:" not in nothing


def test_the_demo_ships_guidelines_that_define_idiom_and_literal(tmp_path):
    from triage.project import open_project
    from triage.project.demo import ensure_demo
    from triage.project.guidelines import current_guidelines

    with open_project(ensure_demo(tmp_path)) as project:
        text = current_guidelines(project).text
    assert text.startswith("# Idiom or literal?")
    assert "**idiom** [i]" in text and "**literal** [l]" in text


def test_numbers_among_the_unmapped_fields_are_hidden_unless_the_lead_shows_them():
    from triage.views.desk import looks_like_a_number, public_meta

    meta = {"verb": "post", "m1_frequency": 7, "m2_association": "3.811", "note": "",
            "flag": True}
    assert public_meta(meta, None) == {"verb": "post", "note": "", "flag": True}
    assert public_meta(meta, ("m1_frequency",)) == {"m1_frequency": 7}
    assert public_meta(meta, ()) == {}
    assert looks_like_a_number(" -0.2e3") and not looks_like_a_number("v1")


def test_triage_config_stores_the_public_fields(tmp_path, capsys):
    import json

    from tests.helpers import make_project
    from triage.cli.program import main
    from triage.project import open_project

    make_project(tmp_path).close()
    path = str(tmp_path / "p.triage")
    assert main(["config", path, "--public-fields", "verb, example", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["public_fields"] == ["verb", "example"]
    with open_project(path) as project:
        assert project.settings.public_fields == ("verb", "example")
    assert main(["config", path, "--public-fields", "default"]) == 0
    with open_project(path) as project:
        assert project.settings.public_fields is None
