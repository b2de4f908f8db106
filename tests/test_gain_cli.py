"""``triage gain FILE``: JSON keys and values, text output, and user errors."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from triage.stats.gain import analyse_model

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "triage.cli", "gain", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture()
def pool(tmp_path: Path) -> Path:
    # 23 candidates (not divisible by 10). Model "good" ranks the 4 positives at 1, 2, 5,
    # 9; model "flat" ties ranks 2..4 (one positive among them).
    rows = ["key,good,flat,gold"]
    positives = {1, 2, 5, 9}
    for rank in range(1, 24):
        flat = {1: 0.9, 2: 0.5, 3: 0.5, 4: 0.5}.get(rank, 0.4 - rank / 100)
        gold = "idiom" if rank in positives else ("literal" if rank % 2 else "other")
        rows.append(f"c{rank},{1 - rank / 100:.2f},{flat},{gold}")
    path = tmp_path / "pool.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def test_json_keys_and_values(pool: Path):
    done = _run(str(pool), "--score", "good=good", "--score", "flat=flat", "--gold", "gold",
                "--positive", "idiom", "--cost", "0.04", "--budget", "0.12", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["pool"] == 23 and data["positives"] == 4
    assert data["cost_per_item"] == 0.04 and data["budget"] == 0.12
    good = data["models"]["good"]
    assert [d["items"] for d in good["deciles"]] == [2, 2, 2, 3, 2, 2, 3, 2, 2, 3]
    assert [d["positives"] for d in good["deciles"][:4]] == [2, 0, 1, 1]
    assert good["deciles"][0]["gain"] == 0.5 and good["deciles"][3]["cumulative_gain"] == 1.0
    assert good["deciles"][0]["lift"] == pytest.approx(0.5 / (2 / 23))
    assert good["deciles_to_all_positives"] == 4
    assert good["cost_to_all_positives_whole_deciles"] == pytest.approx(4 * 0.04 * 23 / 10)
    assert good["rank_of_last_positive"] == 9
    assert good["cost_to_last_positive"] == pytest.approx(0.36)
    assert good["candidates_within_budget"] == 3 and good["positives_within_budget"] == 2
    assert good["tied_items"] == 0
    flat = data["models"]["flat"]
    assert flat["tied_items"] == 3
    # Same figures as the pure function on the same arrays.
    scores = np.array([0.9, 0.5, 0.5, 0.5] + [0.4 - r / 100 for r in range(5, 24)])
    gold = np.isin(np.arange(1, 24), [1, 2, 5, 9])
    direct = analyse_model(scores, gold, cost_per_item=0.04, budget=0.12)
    assert flat["positives_within_budget"] == pytest.approx(direct.positives_within_budget)
    assert flat["positives_within_budget"] == pytest.approx(1 + 2 / 3)
    assert flat["deciles"][0]["positives"] == pytest.approx(1 + 1 / 3)
    best = data["best_model_within_budget"]
    assert best["models"] == ["good"] and best["positives"] == 2 and not best["tied"]
    assert data["earliest_to_all_positives"]["models"] == ["good", "flat"]  # both at rank 9
    assert data["earliest_to_all_positives"]["tied"] is True
    assert set(data["next_decile"]) == {"good", "flat"}
    assert "whole deciles" in data["conventions"]["cost_to_all_positives_whole_deciles"]
    assert "whole candidates" in data["conventions"]["positives_within_budget"]


def test_text_output_names_the_three_situations(pool: Path):
    done = _run(str(pool), "--score", "good", "--gold", "gold", "--positive", "idiom",
                "--cost", "0.04", "--budget", "0.12")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Model good (column good): 23 candidates, 4 positives, 0 tied items" in out
    assert "Situation 1 (fixed budget $0.12): good finds the most positives, 2 of 4" in out
    assert "Situation 2 (flexible budget)" in out and "Situation 3" in out


def test_missing_column_is_named(pool: Path):
    done = _run(str(pool), "--score", "m=nope", "--gold", "gold", "--positive", "idiom",
                "--cost", "0.04")
    assert done.returncode == 2
    assert "nope" in done.stderr and "pool.csv" in done.stderr
    assert done.stdout == ""


def test_missing_price_and_unknown_positive(pool: Path):
    done = _run(str(pool), "--score", "good", "--gold", "gold", "--positive", "idiom")
    assert done.returncode == 2 and "--cost" in done.stderr
    done = _run(str(pool), "--score", "good", "--gold", "gold", "--positive", "IDIOM",
                "--cost", "0.04", "--json")
    assert done.returncode == 0
    data = json.loads(done.stdout)
    assert data["positives"] == 0
    assert "undefined" in data["undefined_reason"] and "'idiom'" in data["undefined_reason"]
    assert data["undefined_reason_code"] == "no_positives"
    early = data["earliest_to_all_positives"]
    assert early["reason_code"] == "no_positives" and "gold label" in early["reason"]
    assert early["convention_code"] == "to_last_positive"
    assert early["convention"].startswith("per candidate: expected rank of the last positive")
    assert data["models"]["good"]["deciles"][0]["gain"] is None


def test_project_file_goes_to_the_project_layer(tmp_path: Path):
    path = tmp_path / "p.triage"
    with sqlite3.connect(path) as conn:
        conn.execute("create table t(x)")
    done = _run(str(path), "--json")
    assert done.returncode == 2
    assert "not a Triage project" in done.stderr


def test_gain_on_a_project_equals_gain_on_its_source_file(tmp_path: Path):
    import json

    from tests.helpers import make_project

    make_project(tmp_path, n=23).close()
    from_project = json.loads(_run(str(tmp_path / "p.triage"), "--json").stdout)
    from_file = json.loads(_run(str(tmp_path / "pool.csv"), "--score", "m1=m1",
                                "--score", "m2=m2", "--gold", "gold", "--positive", "idiom",
                                "--cost", "0.04", "--json").stdout)
    assert from_project["labels_from"] == "gold"
    for model in ("m1", "m2"):
        assert from_project["models"][model]["deciles"] == from_file["models"][model]["deciles"]
    assert from_project["best_model_within_budget"] == from_file["best_model_within_budget"]
