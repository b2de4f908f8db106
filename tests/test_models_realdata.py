"""End-to-end value tables and comparisons on real model output (cleanlab, hollance).

Numbers were computed once, checked for plausibility by hand (comments), then pinned.
IMDB: column 1 of the cross-validated probabilities is P(positive review); labels 1 = positive.
CIFAR-10: binary task "airplane (class 0) vs rest"; three scorers share the pool (hollance's
rows are in cleanlab's order). hollance gives only the top-class confidence, so its
P(class 0) is that confidence when the model predicts class 0, else (1 - confidence)/9
(remaining mass spread evenly, an approximation). Exact 0.0/1.0 confidences leave thousands
of tied scores (DenseNet-40: 7,398 tied items), which the metrics must handle as ties.
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.helpers import DATA_DIR
from triage.stats.models import metrics as mt
from triage.stats.models.report import compare_report, value_report

DATA = DATA_DIR
pytestmark = pytest.mark.skipif(not (DATA / "cleanlab").is_dir(), reason="shared data not present")


@pytest.fixture(scope="module")
def imdb() -> tuple[np.ndarray, np.ndarray]:
    probs = np.load(DATA / "cleanlab/cross_validated_predicted_probabilities__imdb_test_set_pyx.npy")
    labels = np.load(DATA / "cleanlab/original_test_labels__imdb_test_set_original_labels.npy")
    # float32 softmax overshoots 1 by up to 1e-5; the value command clips the same way.
    return np.clip(probs[:, 1], 0.0, 1.0), labels == 1


@pytest.fixture(scope="module")
def cifar() -> tuple[dict[str, np.ndarray], np.ndarray]:
    probs = np.load(DATA / "cleanlab/cross_validated_predicted_probabilities__cifar10_test_set_pyx.npy")
    labels = np.load(DATA / "cleanlab/original_test_labels__cifar10_test_set_original_labels.npy")
    scores = {"cleanlab": probs[:, 0]}
    for name in ("densenet40", "resnet110"):
        t = np.genfromtxt(DATA / f"hollance/probs_{name}_c10_logits.csv", delimiter=",", names=True)
        assert np.array_equal(t["true_label"], labels)  # same pool, same order
        scores[name] = np.where(t["pred_label"] == 0, t["confidence"], (1 - t["confidence"]) / 9)
    return scores, labels == 0


def test_imdb_metrics(imdb):
    p, g = imdb
    r = mt.binary_report(p, g)
    assert (r.n, r.positives) == (25_000, 12_500)
    assert r.confusion == mt.Confusion(tp=11_238, fp=1_344, fn=1_262, tn=11_156)
    # accuracy (11238 + 11156) / 25000 = 0.89576; SBA close to it on balanced classes
    assert r.metrics["sba"].value == pytest.approx(0.895769, abs=1e-6)
    assert r.metrics["roc_auc"].value == pytest.approx(0.958054, abs=1e-6)
    assert r.metrics["average_precision"].value == pytest.approx(0.955125, abs=1e-6)
    assert r.tied_scores == 2775  # float32 probabilities repeat


def test_imdb_value_table(imdb):
    p, g = imdb
    whole = value_report({"cv": p}, g, validation_share=0.0).models["cv"].by_k
    # k = 0 is accuracy; k = 1 is 2·accuracy - 1 (τ = 0.5 accepts everything).
    assert whole["0"].value == pytest.approx(0.89576)
    assert whole["1"].value == pytest.approx(2 * 0.89576 - 1)
    assert whole["4"].value == pytest.approx(0.59932)
    assert whole["4"].rejected_share == pytest.approx(0.12348)
    # Raising k rejects more and what is accepted is more accurate.
    rho = [whole[k].rejected_share for k in ("2", "4", "8", "10")]
    acc = [whole[k].accepted_accuracy for k in ("2", "4", "8", "10")]
    assert rho == sorted(rho) and acc == sorted(acc)
    cal = value_report({"cv": p}, g, calibrate="temperature", seed=0).models["cv"]
    # The IMDB model is overconfident: T > 1, and calibration cuts the held-out ECE.
    assert cal.temperature == pytest.approx(1.7512, abs=1e-3)
    assert cal.ece_before == pytest.approx(0.0391, abs=1e-4)
    assert cal.ece_after == pytest.approx(0.0137, abs=1e-4)
    # After calibration, k/(k+1) does better at k=8 than on the raw scores (seed 001 §4.2.3).
    assert cal.by_k["8"].value == pytest.approx(0.48168, abs=1e-5)
    assert cal.by_k["8"].value > whole["8"].value


def test_imdb_comparison_probabilities_vs_hard_labels(imdb):
    p, g = imdb
    hard = (p >= 0.5).astype(float)
    c = compare_report({"cv": p, "hard": hard}, g, trials=50, seed=0)
    pair = c.pairs["cv|hard"]
    # Same predictions at 0.5: every threshold metric is identical whatever is swapped.
    assert pair["f1"].difference == 0 and pair["f1"].p_value == 1.0
    # Probabilities rank far better than two tied blocks: minimum p with 50 trials is 1/51.
    assert pair["roc_auc"].difference == pytest.approx(0.062294, abs=1e-6)
    assert pair["roc_auc"].p_value == pytest.approx(1 / 51)


def test_cifar10_ties_metrics_and_best_model_by_k(cifar):
    scores, g = cifar
    assert int(g.sum()) == 1000
    reports = {n: mt.binary_report(s, g) for n, s in scores.items()}
    assert reports["densenet40"].tied_scores == 7398
    assert reports["cleanlab"].metrics["roc_auc"].value == pytest.approx(0.99758, abs=1e-5)
    assert reports["densenet40"].metrics["roc_auc"].value == pytest.approx(0.99385, abs=1e-5)
    assert reports["resnet110"].metrics["mcc"].value == pytest.approx(0.93412, abs=1e-5)
    v = value_report(scores, g, calibrate="temperature", seed=0)
    # As in seed 001, the best model depends on k: ResNet-110 is the most accurate, the
    # cross-validated cleanlab scores the best calibrated (lowest ECE), which wins at high k.
    assert v.best_model_by_k == {"0": "resnet110", "1": "resnet110", "2": "resnet110",
                                 "4": "cleanlab", "8": "cleanlab", "10": "cleanlab"}
    assert v.models["cleanlab"].by_k["10"].value == pytest.approx(0.9292, abs=1e-4)
    assert v.models["densenet40"].by_k["10"].value == pytest.approx(0.8558, abs=1e-4)
    assert min(m.ece_before for m in v.models.values()) == v.models["cleanlab"].ece_before


def test_cifar10_pairwise_significance(cifar):
    scores, g = cifar
    c = compare_report(scores, g, trials=100, seed=0)
    pair = c.pairs["densenet40|resnet110"]
    # The two hollance networks are indistinguishable on ROC-AUC (difference 0.0001)...
    assert pair["roc_auc"].difference == pytest.approx(-0.00012, abs=1e-4)
    assert pair["roc_auc"].p_value > 0.5
    # ...while cleanlab's cross-validated scores rank better than DenseNet-40's.
    assert c.pairs["cleanlab|densenet40"]["roc_auc"].p_value < 0.02
