"""``triage value`` and ``triage compare`` through the real command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from triage.cli.program import main

ROOT = Path(__file__).resolve().parent.parent

# The six hand-worked items of test_models_value (model "a"), and a second model "b".
ROWS = [
    ("i1", 0.9, 0.7, "yes"),
    ("i2", 0.8, 0.2, "no"),
    ("i3", 0.3, 0.4, "no"),
    ("i4", 0.6, 0.9, "yes"),
    ("i5", 0.55, 0.1, "no"),
    ("i6", 0.1, 0.3, "no"),
]


def _csv(tmp_path: Path, rows=ROWS, name: str = "scores.csv") -> Path:
    path = tmp_path / name
    lines = ["id,model_a,model_b,label"] + [f"{i},{a},{b},{g}" for i, a, b, g in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _triage(*args: str) -> subprocess.CompletedProcess:
    """Run the real command line in a child process."""
    return subprocess.run([sys.executable, "-m", "triage.cli", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def run(capsys):
    """Run the command line in-process (same parser and error handling, no start-up cost)."""

    def call(*args: str) -> subprocess.CompletedProcess:
        code = main(list(args))
        captured = capsys.readouterr()
        return subprocess.CompletedProcess(list(args), code, captured.out, captured.err)

    return call


def test_value_json_by_hand(tmp_path):
    path = _csv(tmp_path)
    out = _triage("value", str(path), "--score", "a=model_a", "--score", "b=model_b", "--gold", "label",
                  "--positive", "yes", "--k", "0,2", "--validation-share", "0", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    a2 = data["models"]["a"]["by_k"]["2"]
    # Worked in test_models_value: V = 1/6 at τ = 2/3, ρ = 1/3, α = 3/4.
    assert a2["value"] == pytest.approx(1 / 6) and a2["threshold"] == pytest.approx(2 / 3)
    assert a2["rejected_share"] == pytest.approx(1 / 3) and a2["accepted_accuracy"] == pytest.approx(0.75)
    assert a2["advice"]["accept_positive_at_or_above"] == pytest.approx(2 / 3)
    assert a2["cost_sensitive"]["tau_p"] == 0.5 and a2["cost_sensitive"]["tau_n"] == pytest.approx(2 / 3)
    # b is right on all six at 0.5 (0.7, 0.9 positive; the rest negative): V = 1 at k = 0.
    assert data["models"]["b"]["by_k"]["0"]["value"] == 1.0
    assert data["best_model_by_k"] == {"0": "b", "2": "b"}
    assert data["warnings"] == []
    assert data["models"]["a"]["ece_before"] is not None


def test_value_text_with_validation_split_and_calibration(tmp_path, run):
    rows = [(f"i{j}", a, b, g) for j in range(10) for (_, a, b, g) in ROWS]
    path = _csv(tmp_path, [(f"r{n}", a, b, g) for n, (_, a, b, g) in enumerate(rows)])
    out = run("value", str(path), "--score", "a=model_a", "--gold", "label", "--positive", "yes",
                  "--calibrate", "platt", "--seed", "3")
    assert out.returncode == 0, out.stderr
    assert "Model a (column model_a): 30 validation / 30 held-out rows; calibration platt" in out.stdout
    assert "Advice (tuned τ, raw scores):" in out.stdout
    assert "Best model by k (value at k/(k+1)): k=0: a" in out.stdout


def test_value_rejects_non_probability_naming_column_and_line(tmp_path):
    path = _csv(tmp_path, [*ROWS[:3], ("i4", 1.7, 0.9, "yes")])
    out = _triage("value", str(path), "--score", "a=model_a", "--gold", "label", "--positive", "yes")
    assert out.returncode == 2
    assert "scores.csv:5: column model_a: score 1.7 is not a probability in [0, 1]" in out.stderr
    assert out.stdout == ""


def test_labels_followed_warning_and_unknown_model(tmp_path, run):
    path = _csv(tmp_path)
    base = ["value", str(path), "--score", "a=model_a", "--score", "b=model_b", "--gold", "label",
            "--positive", "yes", "--validation-share", "0"]
    out = run(*base, "--labels-followed", "a", "--json")
    warnings = json.loads(out.stdout)["warnings"]
    assert len(warnings) == 1 and "followed a's ranking" in warnings[0]
    text = run(*base, "--labels-followed", "a")
    assert "WARNING: gold labels came from annotation that followed a's ranking" in text.stdout
    bad = run(*base, "--labels-followed", "c")
    assert bad.returncode == 2 and "is not one of the models: a, b" in bad.stderr


def test_compare_json_and_text(tmp_path, run):
    path = _csv(tmp_path)
    args = ["compare", str(path), "--score", "a=model_a", "--score", "b=model_b", "--gold", "label",
            "--positive", "yes", "--trials", "1000", "--k-ndcg", "3"]
    out = run(*args, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    a, b = data["models"]["a"], data["models"]["b"]
    # a at 0.5: predicts i1, i2, i4, i5 -> TP 2, FP 2: precision 0.5, recall 1
    assert a["precision"] == 0.5 and a["recall"] == 1.0 and b["precision"] == 1.0
    assert a["roc_auc"] == pytest.approx(0.875) and b["roc_auc"] == 1.0  # a: 7 of 8 pairs ordered
    pair = data["pairs"]["a|b"]["precision"]
    # 6 uncommon items: all 64 swap patterns enumerated, so the p-value is exact.
    assert pair["exact"] and pair["trials"] == 64
    assert pair["difference"] == pytest.approx(-0.5) and 0 < pair["p_value"] <= 1
    assert set(data["pairs"]["a|b"]) == {"precision", "recall", "f1", "mcc", "sba", "roc_auc",
                                         "average_precision", "ndcg@3"}
    text = run(*args)
    assert "a vs b: paired permutation test (1000 trials, seed 0)" in text.stdout
    assert "roc_auc" in text.stdout and "(exact)" in text.stdout


def test_compare_numeric_gold_and_undefined_metrics(tmp_path, run):
    path = tmp_path / "g.csv"
    path.write_text("s,gold\n0.2,0\n0.4,0.0\n0.9,0\n", encoding="utf-8")
    out = run("compare", str(path), "--score", "s", "--gold", "gold", "--positive", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    model = data["models"]["s"]
    assert model["roc_auc"] is None and model["undefined"]["roc_auc"] == "no positive items in the gold labels"
    assert model["undefined_codes"]["roc_auc"] == "no_positive"
    assert data["warnings"] and data["warnings"][0].startswith("no row counts as positive")
    path.write_text("s,gold\n0.2,0\n0.4,1.0\n0.9,1\n", encoding="utf-8")
    ok = json.loads(run("compare", str(path), "--score", "s", "--gold", "gold",
                            "--positive", "1", "--json").stdout)
    assert ok["positives"] == 2 and ok["models"]["s"]["roc_auc"] == 1.0


def test_default_ks_agree():
    from triage.cli.commands.value import DEFAULT_KS
    from triage.stats.models.report import DEFAULT_KS as CORE

    assert DEFAULT_KS == CORE


def test_compare_curves_match_scikit_learn(tmp_path, run):
    from sklearn.metrics import auc, roc_curve

    path = _csv(tmp_path)
    out = run("compare", str(path), "--score", "a=model_a", "--score", "b=model_b", "--gold",
              "label", "--positive", "yes", "--curves", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    curve = data["curves"]["a"]["roc"]
    # The area under the reported ROC points is the reported ROC-AUC (0.875 by hand above).
    assert auc(curve["x"], curve["y"]) == pytest.approx(data["models"]["a"]["roc_auc"])
    import csv

    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    gold = [r["label"] == "yes" for r in rows]
    fpr, tpr, _ = roc_curve(gold, [float(r["model_a"]) for r in rows], drop_intermediate=False)
    assert curve["x"] == pytest.approx(fpr.tolist()) and curve["y"] == pytest.approx(tpr.tolist())
    pr = data["curves"]["b"]["pr"]
    assert pr["x"][-1] == 1.0 and max(pr["y"]) == 1.0
