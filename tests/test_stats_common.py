"""The arithmetic statistics share lives once: deciles, thinning, logistic fits, Progress."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from triage.stats import common

ROOT = Path(__file__).resolve().parents[1]


def test_decile_sizes_count_the_ranks_of_each_decile():
    for pool in [*range(0, 260), 999_983, 1_000_000]:
        if pool == 0:
            assert common.decile_sizes(0).tolist() == [0] * 10
            continue
        ranks = np.arange(1, pool + 1)
        expected = np.bincount(common.decile_of_rank(ranks, pool) - 1, minlength=10)
        assert common.decile_sizes(pool).tolist() == expected.tolist(), pool


def test_the_ui_thins_curves_with_the_shared_downsampler():
    from ui.analysis._models_charts import MAX_POINTS, thin

    x = np.arange(100_000)
    y = np.cumsum(np.random.default_rng(0).random(x.size) < 0.1)
    tx, ty = thin(x, y)
    cx, cy = common.downsample(x, y, MAX_POINTS)
    assert tx.tolist() == cx.tolist() and ty.tolist() == cy.tolist()
    assert tx[0] == 0 and tx[-1] == x[-1] and tx.size <= MAX_POINTS


def test_the_ridge_keeps_a_separable_fit_finite():
    from triage.stats.stopping.calibration import fit_platt

    score = np.linspace(-2, 2, 40)
    theta, cov = fit_platt(score, score > 0)
    assert np.isfinite(theta).all() and np.isfinite(cov).all() and theta[0] > 5


def test_one_definition_of_each_shared_concept():
    pattern = re.compile(r"^(Progress = |def (expit|logit|fit_platt|downsample|thin)\(|"
                         r".*np\.unique\(np\.linspace\(0, )", re.M)
    found: dict[str, list[str]] = {}
    for path in [*ROOT.joinpath("triage").rglob("*.py"), *ROOT.joinpath("ui").rglob("*.py")]:
        for m in pattern.finditer(path.read_text(encoding="utf-8")):
            key = "linspace" if "linspace" in m.group(0) else m.group(0).split("(")[0].strip()
            found.setdefault(key, []).append(str(path.relative_to(ROOT)))
    assert found["Progress ="] == ["triage/base/progress.py"]
    assert found["def expit"] == ["triage/stats/common.py"]
    assert found["def logit"] == ["triage/stats/common.py"]
    assert found["linspace"] == ["triage/stats/common.py"]
    # fit_platt names two fits (calibration of a model, expectations of stopping); both
    # run the one Newton fit in triage.stats.common.
    for name in found["def fit_platt"]:
        assert "fit_logistic(" in ROOT.joinpath(name).read_text(encoding="utf-8")
