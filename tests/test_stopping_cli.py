"""``triage simulate`` end to end through the real command line."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "triage.cli", "simulate", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.fixture
def labeled_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 2000
    good = rng.random(n)
    gold = rng.random(n) < good**3
    path = tmp_path / "pool.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "good", "noise", "gold"])
        for i in range(n):
            w.writerow([f"c{i}", f"{good[i]:.6f}", f"{rng.random():.6f}",
                        "idiom" if gold[i] else "literal"])
    return path


BASE = ["--score", "good=good", "--score", "noise=noise", "--gold", "gold", "--positive",
        "idiom", "--cost", "0.04", "--value-per-positive", "0.5", "--audit-rate", "0.05",
        "--repeats", "20", "--seed", "3", "--json"]


@pytest.mark.slow
def test_simulate_json(labeled_csv: Path):
    proc = run(str(labeled_csv), *BASE)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    positives = sum(1 for row in csv.DictReader(labeled_csv.open()) if row["gold"] == "idiom")
    assert data["pool"] == 2000 and data["positives"] == positives
    assert data["cost"] == 0.04 and data["repeats"] == 20 and data["strategy"] == "follow:good"
    assert data["batch"] == 20
    # The scores are probabilities, so the score-based Quant rules are backtested too.
    assert set(data["rules"]) == {"budget", "marginal_value", "recall",
                                  "recall_hypergeometric", "knee", "combined", "quant",
                                  "quant_ci"}
    c = data["certify_on_demand"]
    assert c["trigger"] == "marginal_value" and 0 <= c["certified_share"] <= 1
    assert c["spend_mean"] >= 0.04 * c["stopped_at_mean"]
    assert c["cost_to_certify_mean"] == pytest.approx(0.04 * c["sample_mean"])
    cov = data["recall_interval_coverage"]
    assert cov["runs"] > 0 and cov["covered"] >= 0.9
    for name, r in data["rules"].items():
        assert 20 <= r["stopped_at_mean"] <= 2000, name
        assert 0 < r["recall_min"] <= r["recall_mean"] <= 1
        assert r["spend_mean"] >= 0.04 * r["stopped_at_mean"] - 1e-9  # audit items cost too
        # Net value is what the positives are worth minus what was spent.
        assert r["net_value_mean"] == pytest.approx(
            0.5 * r["recall_mean"] * positives - r["spend_mean"])
    assert data["rules"]["recall"]["target_met_share"] >= 0.9
    assert data["rules"]["knee"]["target_met_share"] is None
    best = data["best_net_value"]
    assert best["net_value_mean"] >= max(r["net_value_mean"] for r in data["rules"].values())
    # Without a budget, the budget rule reads the whole pool.
    assert data["rules"]["budget"]["stopped_at_mean"] == 2000


@pytest.mark.slow  # seconds: the fast tier keeps make test within 5 minutes
def test_simulate_budget_and_text(labeled_csv: Path):
    proc = run(str(labeled_csv), *BASE[:-1], "--budget", "20")
    assert proc.returncode == 0, proc.stderr
    assert "best in hindsight" in proc.stdout and "marginal_value" in proc.stdout
    data = json.loads(run(str(labeled_csv), *BASE, "--budget", "20").stdout)
    assert all(r["spend_mean"] <= 20 + 1e-9 for r in data["rules"].values())


def test_simulate_bandit_strategy(labeled_csv: Path):
    proc = run(str(labeled_csv), *BASE, "--strategy", "bandit", "--repeats", "3")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["strategy"] == "bandit" and data["repeats"] == 3
    assert data["rules"]["recall"]["recall_mean"] > 0


@pytest.mark.parametrize(("extra", "message"), [
    (["--positive", "nothing-like-this"], "backtest needs positives"),
    (["--strategy", "follow:nope"], "unknown model 'nope'"),
    (["--strategy", "greedy"], "unknown --strategy"),
])
def test_simulate_errors(labeled_csv: Path, extra, message):
    args = [a for a in BASE if a != "idiom"]
    args = [a for a in args if a != "--positive"] + (["--positive", "idiom"]
                                                       if "--positive" not in extra else [])
    proc = run(str(labeled_csv), *args, *extra)
    assert proc.returncode == 2
    assert message in proc.stderr and proc.stdout == ""


def test_simulate_bad_file_names_line(tmp_path: Path):
    path = tmp_path / "bad.csv"
    path.write_text("score,gold\n0.5,yes\nabc,no\n")
    proc = run(str(path), "--score", "m=score", "--gold", "gold", "--positive", "yes",
               "--cost", "1")
    assert proc.returncode == 2
    assert "bad.csv:3" in proc.stderr and "score" in proc.stderr
