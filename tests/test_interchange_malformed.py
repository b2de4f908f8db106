"""Malformed Prodigy and Label Studio files are refused cleanly.

Each fixture under tests/data/*/malformed/ is a real or documented-format file with one
value broken (see tests/data/malformed_derive.py). The refusal names the file and the line
(Prodigy) or JSON path (Label Studio), and nothing is written: no new project file, no
label added to an existing project. A slow test runs every fixture of tests/data through
the command line as a subprocess and asserts a clean answer (never a traceback).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from triage import store
from triage.project import open_project

DATA = Path(__file__).parent / "data"

PRODIGY_BAD = {
    "timestamp_huge": ":3: _timestamp 100000000000000000000 is not a unix time",
    "timestamp_negative": ":3: _timestamp -5 is not a unix time",
    "timestamp_float_inf": ":3: _timestamp inf is not a unix time",
    "text_lone_surrogate": ":3: 'text' holds a lone surrogate",
    "triage_seconds_text": ":3: _triage.seconds 'fast' is not a number of seconds",
    "annotator_object_without_name": ":3: _annotator_id {'x': 1} names no one",
    "answer_unknown": ":3: answer 'maybe' is not one of",
    "accept_two_options": ":3: accept ['A', 'B']: Triage takes exactly one",
    "score_text": ":3: meta.score 'high' is not a finite number",
    "not_json": ":3: column 2: not JSON",
    "line_is_a_list": ":3: a line must be a JSON object",
}
LABEL_STUDIO_BAD = {
    "lead_time_text": ": [0].annotations[1]: lead_time 'slow' is not a number of seconds",
    "lead_time_object": ": [0].annotations[1]: lead_time {'s': 3} is not a number",
    "result_value_string": ": [1].annotations[0]: result value 'Negative' of 'sentiment' "
                           "holds no 'choices' list",
    "created_at_1e20": ": [3].annotations[0]: created_at 1e+20 is not a unix time",
    "text_lone_surrogate": ": [2].data.text: the text holds a lone surrogate",
    "prediction_not_an_id": ": [4].predictions[0]: a prediction must be an object or a "
                            "prediction id",
    "two_choices": ": [0].annotations[0]: choices ['Positive', 'Negative']: Triage takes "
                   "exactly one choice",
    "completed_by_list": ": [1].annotations[1]: completed_by [3] is not a name",
    "not_a_list": ": a Label Studio export is a JSON list of tasks",
    "annotations_not_a_list": ": [2].annotations: must be a list",
    "annotation_id_lone_surrogate": ": [1].annotations[0]: annotation id holds a lone surrogate",
}


def run(capsys, *argv: object) -> tuple[int, str]:
    """Run the command line in-process; (exit code, stdout + stderr)."""
    from triage.cli.program import main

    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out + out.err


def _labels(path: Path) -> Counter:
    with open_project(path) as project:
        return Counter((r.candidate_id, r.annotator, r.value) for r in
                       store.active_labels(project.db))


# (tool, malformed file, a good file of the same tool, the suffix of its files)
MALFORMED = [("prodigy", name, "textcat_binary.jsonl", ".jsonl", where)
             for name, where in sorted(PRODIGY_BAD.items())] + \
            [("labelstudio", name, "sentiment.json", ".json", where)
             for name, where in sorted(LABEL_STUDIO_BAD.items())]


@pytest.mark.parametrize(("tool", "name", "good", "suffix", "where"), MALFORMED,
                         ids=[f"{m[0]}-{m[1]}" for m in MALFORMED])
def test_malformed_file_is_refused_with_its_line_or_json_path(tmp_path, capsys, tool, name,
                                                              good, suffix, where):
    """Prodigy errors name the file and line, Label Studio's the JSON path; nothing is written."""
    src = DATA / tool / "malformed" / f"{name}{suffix}"
    out = tmp_path / "new.triage"
    code, said = run(capsys, "new", out, src, "--from", tool)
    assert code == 2 and f"{src}{where}" in said, said
    assert not out.exists() and "Traceback" not in said
    existing = tmp_path / "existing.triage"
    assert run(capsys, "new", existing, DATA / tool / good, "--from", tool)[0] == 0
    before = _labels(existing)
    code, said = run(capsys, "import", existing, src, "--from", tool)
    assert code == 2 and where in said
    assert _labels(existing) == before


def test_every_malformed_fixture_is_listed_here():
    """A new fixture gets its expected message above."""
    assert {p.stem for p in (DATA / "prodigy" / "malformed").glob("*.jsonl")} == \
        set(PRODIGY_BAD)
    assert {p.stem for p in (DATA / "labelstudio" / "malformed").glob("*.json")} == \
        set(LABEL_STUDIO_BAD)


def _fixtures() -> list[tuple[str, Path]]:
    found = [("prodigy", p) for p in sorted((DATA / "prodigy").rglob("*.jsonl"))]
    found += [("labelstudio", p) for p in sorted((DATA / "labelstudio").rglob("*"))
              if p.suffix in (".json", ".csv")]
    return found


@pytest.mark.slow
@pytest.mark.parametrize("fmt, src", _fixtures(), ids=lambda v: getattr(v, "name", v))
def test_every_fixture_gets_a_clean_answer_from_the_command_line(tmp_path, fmt, src):
    """``triage new`` and ``triage import`` as subprocesses: exit 0 or a one-line refusal."""
    triage = Path(sys.executable).with_name("triage")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    out = tmp_path / "p.triage"
    extra = ["--from-name", "sentiment", "--text", "data.review"] if src.stem == "mixed" else []
    done = subprocess.run([str(triage), "new", str(out), str(src), "--from", fmt, *extra],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    assert "Traceback" not in done.stderr + done.stdout
    assert done.returncode == (2 if "malformed" in src.parts else 0), done.stderr
    if done.returncode == 2:
        assert done.stderr.startswith("triage: ") and not out.exists()
        return
    again = subprocess.run([str(triage), "import", str(out), str(src), "--from", fmt, *extra],
                           capture_output=True, text=True, env=env, timeout=120, check=False)
    assert again.returncode == 0 and "0 label events" in again.stdout, again.stderr
