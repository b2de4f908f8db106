"""Early in a budget every surface says what is known, one-sided, in the same words.

At 50, 150 and 300 labels on the demo the two-sided recall interval spans more than 50
points: no surface (``advise`` and ``status``, text and JSON; the report's HTML; the
banner's and the lead view's view models) states a recall point, a "≈" or a count of
positives in the pool, and every one of them states the same lower bound.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from triage.cli.program import main as cli
from triage.project.advice import advice_state
from triage.project.demo import create_demo, simulate
from triage.views.advice import advice_lines, recall_band, recall_floor_text, summary_lines
from triage.views.analysis import banner_data

LABELS = (50, 150, 300)
POINT = re.compile(r"≈|positives in the pool|estimated to hold|recall is about|"
                   r"about [\d,.]+ positives left")
GOLD = re.compile(r"gold(?: has|:) [\d,]+ positives in the pool")  # the truth, not an estimate


@pytest.fixture(scope="module")
def demos(tmp_path_factory) -> dict[int, Path]:
    """The demo labelled to 50, 150 and 300 labels (one file each)."""
    out = {}
    for n in LABELS:
        path = tmp_path_factory.mktemp(f"demo{n}") / "demo.triage"
        project = create_demo(path)
        try:
            simulate(project, n)
        finally:
            project.close()
        out[n] = path
    return out


def _cli(capsys, *argv: str) -> str:
    assert cli(list(argv)) == 0
    return capsys.readouterr().out


def _surfaces(path: Path, capsys, tmp_path: Path) -> tuple[dict, dict[str, str]]:
    from triage.project import open_project

    with open_project(path) as project:
        state = advice_state(project)
    lines = advice_lines(state)
    banner = banner_data(state)
    band = recall_band(state)
    html = tmp_path / f"{path.parent.name}.html"
    assert cli(["report", str(path), "-o", str(html), "--bootstrap", "0"]) == 0
    capsys.readouterr()
    texts = {
        "advise": _cli(capsys, "advise", str(path)),
        "advise --json": _cli(capsys, "advise", str(path), "--json"),
        "status": _cli(capsys, "status", str(path)),
        "status --json": _cli(capsys, "status", str(path), "--json"),
        "report html": re.sub(r"\s+", " ", html.read_text(encoding="utf-8")),
        "banner": " ".join((banner.text, *banner.details)),
        "lead view advice tab": " ".join((lines.headline, *summary_lines(lines),
                                          *(d for _r, _v, d in lines.rules))),
        "lead view legend": band.label if band is not None else "",
    }
    return state.to_json(), texts


@pytest.mark.slow
@pytest.mark.parametrize("n", LABELS)
def test_early_surfaces_state_one_lower_bound_and_no_point(demos, n, capsys, tmp_path):
    data, texts = _surfaces(demos[n], capsys, tmp_path)
    rec = data["estimated_recall"]
    assert rec["lower"] is None or rec["upper"] - rec["lower"] > 0.5, "not early at all"
    assert data["known"]["reason"] == "early"
    floor = recall_floor_text(data)
    assert re.match(r"recall is at least [\d.]+% \(95% confidence\) if the ranking beats "
                    r"random below rank [\d,]+$", floor)
    for name, text in texts.items():
        if name.endswith("--json"):
            known = json.loads(text)["known"]
            assert known == json.loads(json.dumps(data["known"])), name
            continue
        assert floor in text, name
        hit = POINT.search(GOLD.sub("", text))
        assert hit is None, f"{name} states a point: …{text[max(hit.start() - 80, 0):hit.end() + 40]}…"
