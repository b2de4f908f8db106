"""Prodigy and Label Studio: documented-format examples in, round trips, refusals."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.helpers import make_project
from triage import store
from triage.base.errors import InputError, TriageError
from triage.cli.program import main as cli
from triage.project import open_project
from triage.project.gain import project_scores
from triage.store import exchange

# Written from Prodigy's documented db-out shape: binary textcat tasks with label/answer,
# hashes, annotator and session ids ("dataset-name"), a meta score from the sorter.
PRODIGY = [
    {"text": "kick the bucket", "label": "IDIOM", "answer": "accept", "meta": {"score": 0.91},
     "_input_hash": 101, "_task_hash": 201, "_annotator_id": "idioms-ada",
     "_session_id": "idioms-ada", "_timestamp": 1700000000},
    {"text": "kick the ball", "label": "IDIOM", "answer": "reject", "meta": {"score": 0.12},
     "_input_hash": 102, "_task_hash": 202, "_annotator_id": "idioms-ada",
     "_session_id": "idioms-ada", "_timestamp": 1700000005},
    {"text": "kick the bucket", "label": "IDIOM", "answer": "accept", "meta": {"score": 0.91},
     "_input_hash": 101, "_task_hash": 201, "_annotator_id": "idioms-bo",
     "_session_id": "idioms-bo", "_timestamp": 1700000010},
    {"text": "spill the beans", "label": "IDIOM", "answer": "ignore", "meta": {"score": 0.5},
     "_input_hash": 103, "_task_hash": 203, "_annotator_id": "idioms-bo",
     "_session_id": "idioms-bo", "_timestamp": 1700000020},
]

# Written from Label Studio's documented JSON export: tasks with data, annotations
# (result choices, completed_by, lead_time, was_cancelled) and predictions (model_version,
# score, result).
def _choices(value: str) -> list[dict]:
    return [{"from_name": "sentiment", "to_name": "text", "type": "choices",
             "value": {"choices": [value]}}]


LABEL_STUDIO = [
    {"id": 1, "data": {"text": "kick the bucket"},
     "annotations": [{"id": 11, "result": _choices("idiom"), "completed_by": 10,
                      "lead_time": 4.2, "was_cancelled": False,
                      "created_at": "2024-03-09T22:16:08.728353Z"},
                     {"id": 12, "result": _choices("idiom"),
                      "completed_by": {"id": 11, "email": "bo@example.com"}, "lead_time": 3.0,
                      "was_cancelled": False, "created_at": "2024-03-09T22:17:00Z"}],
     "predictions": [{"model_version": "model 1", "score": 0.9, "result": _choices("idiom")},
                     {"model_version": "model 2", "score": 0.8, "result": _choices("literal")}]},
    {"id": 2, "data": {"text": "kick the ball"},
     "annotations": [{"id": 21, "result": _choices("literal"), "completed_by": 10,
                      "lead_time": 2.0, "was_cancelled": False}],
     "predictions": [{"model_version": "model 1", "score": 0.2, "result": _choices("idiom")},
                     {"model_version": "model 2", "score": 0.1, "result": _choices("literal")}]},
    {"id": 3, "data": {"text": "spill the beans"}, "annotations": [],
     "predictions": [{"model_version": "model 1", "score": 0.6, "result": _choices("idiom")},
                     {"model_version": "model 2", "score": 0.3, "result": _choices("literal")}]},
]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _labels(path: Path) -> Counter:
    with open_project(path) as project:
        rows = store.active_labels(project.db)
        keys = store.candidate_rows(project.db, sorted({r.candidate_id for r in rows}))
        return Counter((keys[r.candidate_id][0], r.annotator, r.value, r.kind, r.seconds)
                       for r in rows)


def _scores(path: Path) -> dict:
    with open_project(path) as project:
        ids = {cid: key for cid, key, _text in exchange.candidates_in_id_order(project.db)}
        return {m: {ids[i + 1]: float(v) for i, v in enumerate(s)}
                for m, (_c, s) in project_scores(project).items()}


def test_prodigy_export_example_becomes_a_project(tmp_path):
    src = _write_jsonl(tmp_path / "idioms.jsonl", PRODIGY)
    out = tmp_path / "p.triage"
    assert cli(["new", str(out), str(src), "--from", "prodigy", "--reject-label",
                "LITERAL"]) == 0
    with open_project(out) as project:
        assert [o.value for o in project.settings.labels] == ["IDIOM", "LITERAL"]
        assert project.pool == 3 and [m.name for m in project.models] == ["prodigy:IDIOM"]
        rows = store.active_labels(project.db)
        assert sorted(store.annotator_names(project.db).values()) == ["idioms-ada", "idioms-bo"]
    got = {(k, who, v) for k, who, v, _kind, _s in _labels(out)}
    assert got == {("101", "idioms-ada", "IDIOM"), ("102", "idioms-ada", "LITERAL"),
                   ("101", "idioms-bo", "IDIOM"), ("103", "idioms-bo", None)}
    assert len(rows) == 4


def test_label_studio_export_example_becomes_a_project(tmp_path):
    src = tmp_path / "export.json"
    src.write_text(json.dumps(LABEL_STUDIO), encoding="utf-8")
    out = tmp_path / "l.triage"
    assert cli(["new", str(out), str(src), "--from", "labelstudio", "--labels",
                "idiom:i,literal:l", "--positive", "idiom"]) == 0
    got = {(k, who, v, s) for k, who, v, _kind, s in _labels(out)}
    assert got == {("1", "user 10", "idiom", 4.2), ("1", "bo@example.com", "idiom", 3.0),
                   ("2", "user 10", "literal", 2.0)}
    scores = _scores(out)
    assert scores["model 1"] == {"1": 0.9, "2": 0.2, "3": 0.6}
    # model 2 chose "literal": its score is turned into the positive class's score.
    assert scores["model 2"] == pytest.approx({"1": 0.2, "2": 0.9, "3": 0.7})


def _busy_project(tmp_path: Path) -> Path:
    project = make_project(tmp_path, n=40, overlap_rate=0.3)
    for who in ("ada", "bo", "<cy>"):
        session = project.start_session(who)
        for n in range(9):
            item = project.next_candidate(session)
            value = None if n == 4 else ("idiom" if n % 3 else "literal")
            project.record_label(session, item.candidate_id, value, seconds=1.5 + n,
                                 note="checked" if n == 2 else None)
        project.end_session(session)
    path = project.path
    project.close()
    return path


@pytest.mark.parametrize("fmt, suffix", [("prodigy", "jsonl"), ("labelstudio", "json")])
def test_round_trip_keeps_every_label_annotator_and_score(tmp_path, fmt, suffix):
    original = _busy_project(tmp_path)
    exported = tmp_path / f"out.{suffix}"
    assert cli(["export", str(original), str(exported), "--to", fmt]) == 0
    back = tmp_path / "back.triage"
    assert cli(["new", str(back), str(exported), "--from", fmt, "--labels", "idiom:i,literal:l",
                "--positive", "idiom"]) == 0
    assert _labels(back) == _labels(original)
    before, after = _scores(original), _scores(back)
    for model, by_key in after.items():
        assert by_key == pytest.approx({k: before[model][k] for k in by_key})
    if fmt == "labelstudio":   # every candidate travels, not only the labeled ones
        assert after.keys() == before.keys()
        assert all(after[m] == pytest.approx(before[m]) for m in before)
        assert (tmp_path / "out.config.xml").read_text().count("<Choice ") == 2


def test_labels_import_into_an_existing_pool(tmp_path):
    original = _busy_project(tmp_path)
    exported = tmp_path / "out.jsonl"
    assert cli(["export", str(original), str(exported), "--to", "prodigy"]) == 0
    (tmp_path / "fresh").mkdir()
    fresh = make_project(tmp_path / "fresh", n=40)
    fresh_path = fresh.path
    fresh.close()
    assert cli(["import", str(fresh_path), str(exported), "--from", "prodigy"]) == 0
    assert Counter(k[:3] for k in _labels(fresh_path)) == Counter(
        k[:3] for k in _labels(original))


@pytest.mark.parametrize("line, reason", [
    ("{not json", "not JSON"),
    ('["a list"]', "must be a JSON object"),
    ('{"label": "IDIOM", "answer": "accept"}', "'text' is missing"),
    ('{"text": "x", "label": "IDIOM", "answer": "maybe"}', "answer 'maybe'"),
    ('{"text": "x", "accept": ["A", "B"], "answer": "accept"}', "exactly one accepted"),
    ('{"text": "x", "label": "IDIOM", "answer": "accept", "meta": {"score": "high"}}',
     "not a finite number"),
])
def test_malformed_prodigy_lines_are_refused_with_their_line(tmp_path, line, reason):
    rows = [json.dumps(r) for r in PRODIGY[:2]] + [line]
    src = tmp_path / "bad.jsonl"
    src.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "p.triage"
    with pytest.raises(InputError) as error:
        cli_main_raising(["new", str(out), str(src), "--from", "prodigy",
                          "--reject-label", "LITERAL"])
    assert f"{src}:3" in str(error.value) and reason in str(error.value)
    assert not out.exists()


def cli_main_raising(argv: list[str]) -> None:
    """Run a command's function directly so the error object can be inspected."""
    from triage.cli.program import build_parser

    args = build_parser().parse_args(argv)
    args.func(args)


@pytest.mark.parametrize("mutate, where", [
    (lambda t: t[1]["data"].pop("text"), "[1].data.text"),
    (lambda t: t[0]["predictions"][0].update(score="x"), "[0].predictions[0]"),
    (lambda t: t[2]["annotations"].append({"result": _choices("idiom") * 2}),
     "[2].annotations[0]"),
    (lambda t: t[1]["annotations"][0].update(result=_choices("maybe")), "[1].annotations[0]"),
])
def test_malformed_label_studio_is_refused_and_changes_nothing(tmp_path, mutate, where):
    project = make_project(tmp_path, n=30)
    path = project.path
    project.close()
    tasks = json.loads(json.dumps(LABEL_STUDIO))
    for n, task in enumerate(tasks):
        task["data"]["key"] = f"c{n:04d}"
    mutate(tasks)
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(tasks), encoding="utf-8")
    before = _labels(path)
    with pytest.raises(TriageError) as error:
        cli_main_raising(["import", str(path), str(src), "--from", "labelstudio"])
    assert f"{src}: {where}" in str(error.value)
    assert _labels(path) == before


def test_unknown_keys_refuse_the_whole_file(tmp_path):
    project = make_project(tmp_path, n=30)
    path = project.path
    project.close()
    rows = [{"text": "phrase number 1", "label": "idiom", "answer": "accept",
             "meta": {"key": "c0001"}, "_annotator_id": "ada"},
            {"text": "not in the pool", "label": "idiom", "answer": "accept",
             "meta": {"key": "zzz"}, "_annotator_id": "ada"}]
    src = _write_jsonl(tmp_path / "x.jsonl", rows)
    with pytest.raises(InputError, match=r"x.jsonl:2: key 'zzz' is not a candidate"):
        cli_main_raising(["import", str(path), str(src), "--from", "prodigy"])
    assert _labels(path) == Counter()
