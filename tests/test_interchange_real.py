"""Genuine Label Studio 1.23.2 exports and documented-format Prodigy files in.

The Label Studio files under tests/data/labelstudio/ were written by Label Studio itself
(see its README): 8 tasks, 3 users (ids 2, 3, 4), two models, task 6 skipped by user 2.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from triage import store
from triage.project import open_project
from triage.project.gain import project_scores
from triage.store import exchange

DATA = Path(__file__).parent / "data"
LS = DATA / "labelstudio"
PRODIGY = DATA / "prodigy"

# (task id, annotator, label or None for the skip, lead_time): what the fixture script posted.
LS_LABELS = {
    ("1", "user 2", "Positive", 4.2), ("1", "user 3", "Positive", 3.1),
    ("1", "user 4", "Positive", 6.0), ("2", "user 2", "Negative", 2.5),
    ("2", "user 3", "Negative", 3.3), ("3", "user 2", "Neutral", 7.9),
    ("3", "user 4", "Positive", 5.0), ("4", "user 3", "Positive", 2.0),
    ("5", "user 4", "Negative", 3.7), ("6", "user 2", None, 1.2),
    ("7", "user 3", "Positive", 1.9),
}


def run(capsys, *argv: str) -> tuple[int, str]:
    """Run the command line in-process; (exit code, stdout + stderr)."""
    from triage.cli.program import main

    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out + out.err


def labels(path: Path) -> Counter:
    """(key, annotator, value, seconds) of every active label."""
    with open_project(path) as project:
        rows = store.active_labels(project.db)
        keys = {cid: key for cid, key, _t in exchange.candidates_in_id_order(project.db)}
        return Counter((keys[r.candidate_id], r.annotator, r.value, round(r.seconds, 3))
                       for r in rows)


def scores(path: Path) -> dict[str, dict[str, float]]:
    """Every model's score by candidate key."""
    with open_project(path) as project:
        keys = {cid: key for cid, key, _t in exchange.candidates_in_id_order(project.db)}
        return {m: {keys[i + 1]: float(v) for i, v in enumerate(s)}
                for m, (_c, s) in project_scores(project).items()}


def test_current_json_export_with_prediction_ids_imports_labels_skips_and_scores(
        tmp_path, capsys):
    """Finding 1 and 4: id-list predictions, int completed_by, was_cancelled; case kept."""
    out = tmp_path / "ls.triage"
    code, said = run(capsys, "new", out, LS / "sentiment.json", "--from", "labelstudio")
    assert code == 0, said
    assert set(labels(out)) == LS_LABELS and sum(labels(out).values()) == 11
    with open_project(out) as project:
        assert [o.value for o in project.settings.labels] == ["Positive", "Negative", "Neutral"]
        assert project.settings.positive_labels == ("Positive",)
    v1 = scores(out)["sentiment-v1"]
    # the prediction's score is its confidence in its choice: P(Positive) for the ranking
    assert v1 == pytest.approx({"1": 0.93, "2": 0.12, "3": 0.48, "4": 0.81, "5": 0.33,
                                "6": 0.45, "7": 0.97, "8": 0.0})
    assert max(v1, key=v1.__getitem__) == "7"   # the best candidate ranks first, not last
    assert "ids only" in said and "1 of 8 candidates had no score" in said
    assert "positive label: Positive" in said


def test_snapshot_with_full_predictions_and_user_objects(tmp_path, capsys):
    out = tmp_path / "snap.triage"
    assert run(capsys, "new", out, LS / "sentiment.snapshot.json", "--from", "labelstudio")[0] == 0
    emails = {"user 2": "ada@example.org", "user 3": "bo@example.org", "user 4": "cy@example.org"}
    assert set(labels(out)) == {(k, emails[w], v, s) for k, w, v, s in LS_LABELS}
    got = scores(out)
    assert got["sentiment-v1"]["1"] == pytest.approx(0.93)  # "Positive" at 0.93
    assert got["sentiment-v1"]["8"] == pytest.approx(0.26)  # "Negative" at 0.74
    # sentiment-v2 predicted "Negative" at 0.535 on task 1: P(Positive) = 0.465
    assert got["sentiment-v2"]["1"] == pytest.approx(0.465)


@pytest.mark.parametrize("name, kind", [("sentiment.min.json", "JSON_MIN"),
                                        ("sentiment.csv", "CSV")])
def test_json_min_and_csv_exports_are_recognised(tmp_path, capsys, name, kind):
    """Finding 2: flat exports are read, and the summary says what they lack."""
    out = tmp_path / "flat.triage"
    code, said = run(capsys, "new", out, LS / name, "--from", "labelstudio")
    assert code == 0, said
    assert set(labels(out)) == {x for x in LS_LABELS if x[2] is not None}
    assert f"Label Studio {kind} export" in said and "skipped" in said


def test_labelling_config_gives_the_scheme_order(tmp_path, capsys):
    out = tmp_path / "cfg.triage"
    assert run(capsys, "new", out, LS / "sentiment.csv", "--from", "labelstudio",
               "--ls-config", LS / "sentiment.config.xml")[0] == 0
    with open_project(out) as project:
        assert [o.value for o in project.settings.labels] == ["Positive", "Negative", "Neutral"]


def test_non_choice_results_are_refused_with_the_option_that_imports_choices(
        tmp_path, capsys):
    """Finding 5: span labels are not turned into skips; the message names --from-name."""
    out = tmp_path / "mixed.triage"
    code, said = run(capsys, "new", out, LS / "mixed.json", "--from", "labelstudio")
    assert code == 2 and not out.exists()
    assert "'entities' (span labels (named entities), 3 results)" in said
    assert "--from-name sentiment or --from-name topic" in said
    code, said = run(capsys, "new", out, LS / "mixed.json", "--from", "labelstudio",
                     "--from-name", "topic", "--text", "data.review")
    assert code == 0, said
    assert {v for _k, _w, v, _s in labels(out)} == {"Room", "Dining"}


def test_from_name_with_config_reads_the_text_field_it_names(tmp_path, capsys):
    out = tmp_path / "mixed.triage"
    code, said = run(capsys, "new", out, LS / "mixed.json", "--from", "labelstudio",
                     "--ls-config", LS / "mixed.config.xml", "--from-name", "sentiment")
    assert code == 0, said
    assert sorted(v for _k, _w, v, _s in labels(out)) == ["Negative", "Positive", "Positive"]


def test_score_mapping_picks_a_prediction_by_model_version(tmp_path, capsys):
    """Finding 10: --score NAME=predictions[MODEL].score and --key with --from."""
    out = tmp_path / "map.triage"
    code, said = run(capsys, "new", out, LS / "sentiment.snapshot.json", "--from",
                     "labelstudio", "--score", "v2=predictions[sentiment-v2].score",
                     "--key", "data.text")
    assert code == 0, said
    got = scores(out)
    assert list(got) == ["v2"]
    assert got["v2"]["The staff were friendly and the room was spotless."] == \
        pytest.approx(0.465)


def test_same_file_twice_adds_nothing(tmp_path, capsys):
    """Finding 7: the second import finds every label already present."""
    out = tmp_path / "twice.triage"
    assert run(capsys, "new", out, LS / "sentiment.json", "--from", "labelstudio")[0] == 0
    before = labels(out)
    code, said = run(capsys, "import", out, LS / "sentiment.json", "--from", "labelstudio")
    assert code == 0 and "0 label events; 11 already present" in said
    code, said = run(capsys, "import", out, LS / "sentiment.csv", "--from", "labelstudio")
    assert code == 0 and "10 already present" in said
    assert labels(out) == before


def test_prodigy_twice_adds_nothing(tmp_path, capsys):
    out = tmp_path / "p.triage"
    assert run(capsys, "new", out, PRODIGY / "textcat_teach.jsonl", "--from", "prodigy")[0] == 0
    before = labels(out)
    code, said = run(capsys, "import", out, PRODIGY / "textcat_teach.jsonl", "--from", "prodigy")
    assert code == 0 and "10 already present" in said and labels(out) == before


def test_textcat_teach_keeps_each_labels_score(tmp_path, capsys):
    """Finding 6: meta.score is P(the task's label): one model per label, both survive."""
    out = tmp_path / "teach.triage"
    code, said = run(capsys, "new", out, PRODIGY / "textcat_teach.jsonl", "--from", "prodigy")
    assert code == 0, said
    got = scores(out)
    assert got["prodigy:POSITIVE"]["1602981447"] == pytest.approx(0.555)
    assert got["prodigy:NEGATIVE"]["1602981447"] == pytest.approx(0.445)
    with open_project(out) as project:
        assert project.settings.positive_labels == ("POSITIVE",)
        assert project.active_model().name == "prodigy:POSITIVE"
    # bo answered both questions about this text: both events survive
    assert labels(out)[("1602981447", "movies-bo", "NEGATIVE", 0.0)] == 2


def test_prodigy_choice_tasks_ms_timestamps_and_object_annotators(tmp_path, capsys):
    """Finding 10: accept [] is a skip (said), a dict _annotator_id gives its name."""
    out = tmp_path / "choice.triage"
    code, said = run(capsys, "new", out, PRODIGY / "textcat_choice.jsonl", "--from", "prodigy")
    assert code == 0, said
    assert "1 choice tasks were accepted with no option" in said
    got = labels(out)
    assert {w for _k, w, _v, _s in got} == {"news-ada", "news-bo", "news-cy"}
    with open_project(out) as project:
        assert [o.value for o in project.settings.labels] == ["SPORT", "POLITICS", "SCIENCE"]
        times = sorted(r.created_at for r in store.active_labels(project.db))
    assert times[0].startswith("2024-11-25T13:06:40")   # milliseconds read as such


def test_prodigy_round_trip_keeps_hashes_meta_priority_and_binary_tasks(tmp_path, capsys):
    """Finding 8 and 10: our export gives the original hashes back; binary stays binary."""
    original = tmp_path / "teach.triage"
    assert run(capsys, "new", original, PRODIGY / "textcat_teach.jsonl", "--from",
               "prodigy")[0] == 0
    exported = tmp_path / "out.jsonl"
    assert run(capsys, "export", original, exported, "--to", "prodigy")[0] == 0
    src = [json.loads(x) for x in (PRODIGY / "textcat_teach.jsonl").read_text().splitlines()]
    got = [json.loads(x) for x in exported.read_text().splitlines()]
    fields = ("_input_hash", "_task_hash", "label", "answer", "priority")
    assert sorted(tuple(t[f] for f in fields) + (t["meta"]["score"],) for t in got) == \
        sorted(tuple(t[f] for f in fields) + (t["meta"]["score"],) for t in src)
    assert all("options" not in t for t in got)
    back = tmp_path / "back.triage"
    assert run(capsys, "new", back, exported, "--from", "prodigy")[0] == 0
    assert labels(back) == labels(original)
    with open_project(back) as project:
        assert project.settings.positive_labels == ("POSITIVE",)


def test_prodigy_round_trip_does_not_flip_the_positive_label(tmp_path, capsys):
    """Finding 8: a project whose first label event is a negative keeps its positive."""
    from tests.helpers import make_project

    project = make_project(tmp_path, n=20)
    session = project.start_session("ada")
    for n in range(8):
        item = project.next_candidate(session)
        project.record_label(session, item.candidate_id, "literal" if n < 5 else "idiom")
    project.end_session(session)
    path = project.path
    project.close()
    exported = tmp_path / "out.jsonl"
    assert run(capsys, "export", path, exported, "--to", "prodigy")[0] == 0
    back = tmp_path / "back.triage"
    assert run(capsys, "new", back, exported, "--from", "prodigy")[0] == 0
    with open_project(back) as again:
        assert again.settings.positive_labels == ("idiom",)
        assert [o.value for o in again.settings.labels] == ["idiom", "literal"]
    assert Counter(v for _k, _w, v, _s in labels(back)) == Counter(
        v for _k, _w, v, _s in labels(path))


def test_label_studio_export_is_what_label_studio_imports(tmp_path, capsys):
    """Finding 3 and 10: completed_by only when mapped, as {email}; choice follows score."""
    source = tmp_path / "snap.triage"
    assert run(capsys, "new", source, LS / "sentiment.snapshot.json", "--from",
               "labelstudio")[0] == 0
    out = tmp_path / "ls.json"
    assert run(capsys, "export", source, out, "--to", "labelstudio",
               "--annotator-email", "ada@example.org=ada@example.org")[0] == 0
    tasks = {t["data"]["key"]: t for t in json.loads(out.read_text())}
    by = [a.get("completed_by") for a in tasks["1"]["annotations"]]
    assert {"email": "ada@example.org"} in by and by.count(None) == 2
    assert tasks["1"]["meta"]["triage"]["annotations"][0]["annotator"]
    low = next(p for p in tasks["2"]["predictions"] if p["model_version"] == "sentiment-v1")
    # P(Positive) 0.12 is under the threshold: the prediction is the other label at 0.88
    assert low["result"][0]["value"]["choices"] == ["Negative"]
    assert low["score"] == pytest.approx(0.88)
    code, said = run(capsys, "export", source, out, "--to", "labelstudio",
                     "--annotator-email", "zed=zed@example.org")
    assert code == 2 and "no annotator named zed" in said


def test_options_that_do_not_apply_to_from_are_refused(tmp_path, capsys):
    code, said = run(capsys, "new", tmp_path / "g.triage", LS / "sentiment.json", "--from",
                     "labelstudio", "--gold", "x")
    assert code == 2 and "--gold is not used with --from" in said


def test_prodigy_column_mapping_text_key_and_score(tmp_path, capsys):
    """Finding 10: --text/--key/--score are used with --from prodigy, not ignored."""
    rows = [{"body": "first text", "meta": {"id": "a1", "prob": 0.7}, "label": "SPAM",
             "answer": "accept", "_annotator_id": "ada"},
            {"body": "second text", "meta": {"id": "a2", "prob": 0.2}, "label": "SPAM",
             "answer": "reject", "_annotator_id": "ada"}]
    src = tmp_path / "mapped.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    out = tmp_path / "mapped.triage"
    code, said = run(capsys, "new", out, src, "--from", "prodigy", "--text", "body",
                     "--key", "meta.id", "--score", "spam=meta.prob", "--reject-label", "HAM")
    assert code == 0, said
    assert scores(out) == {"spam": {"a1": 0.7, "a2": 0.2}}
    assert set(labels(out)) == {("a1", "ada", "SPAM", 0.0), ("a2", "ada", "HAM", 0.0)}
    code, said = run(capsys, "new", tmp_path / "x.triage", src, "--from", "prodigy",
                     "--text", "body", "--score", "spam=meta.missing")
    assert code == 2 and f"{src}:1: --score spam: no value at meta.missing" in said
