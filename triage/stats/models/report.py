"""Whole-file analyses behind ``triage value`` and ``triage compare``.

The value report splits the labeled items once (seeded) into a validation part, used to
fit the calibration map and to tune τ, and a held-out part on which every reported value
is measured, so no figure is scored on the data that chose it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from triage.stats.models import calibration as cal
from triage.stats.models import metrics as mt
from triage.stats.models import value as val
from triage.stats.models.swaps import score_permutation_tests

DEFAULT_KS = (0.0, 1.0, 2.0, 4.0, 8.0, 10.0)


def k_key(k: float) -> str:
    """Stable JSON key for a cost factor: "2" rather than "2.0"."""
    return str(int(k)) if float(k).is_integer() else repr(float(k))


@dataclass(frozen=True)
class Advice:
    """The actionable answer for one k, on raw model scores."""

    accept_positive_at_or_above: float | None  # raw score; None: never auto-accept positives
    accept_negative_at_or_below: float | None  # raw score; None: never auto-accept negatives
    reviewed_share: float  # share of items people still review
    saved_share: float  # review effort saved vs reviewing everything (1 - reviewed_share)
    value: float  # held-out value when following this advice


@dataclass(frozen=True)
class KResult:
    """Value of one model at one cost factor k."""

    k: float
    threshold: float  # calibrated rule k/(k+1), applied to (calibrated) scores
    value: float  # held-out V at that threshold
    rejected_share: float
    accepted_accuracy: float | None
    tuned_threshold: float | None  # τ maximising V on the validation split
    validation_value: float | None
    heldout_value: float | None  # held-out V at the tuned τ
    heldout_rejected_share: float | None
    heldout_accepted_accuracy: float | None
    advice: Advice
    cost_sensitive: val.CostSensitivePoint  # kfn = k, with the report's ktp and kfp


@dataclass(frozen=True)
class ModelValue:
    """The value table of one model."""

    name: str
    n: int
    n_validation: int
    n_heldout: int
    calibration: str
    temperature: float | None
    platt_a: float | None
    platt_b: float | None
    ece_before: float | None  # held-out, raw scores
    ece_after: float | None  # held-out, calibrated scores
    reliability_before: cal.Reliability
    reliability_after: cal.Reliability
    by_k: dict[str, KResult]


@dataclass(frozen=True)
class ValueReport:
    models: dict[str, ModelValue]
    best_model_by_k: dict[str, str | None]
    best_model_by_k_tuned: dict[str, str | None]
    ktp: float
    kfp: float
    validation_share: float
    seed: int
    warnings: list[str] = field(default_factory=list)


PROBABILITY_SLACK = 1e-4  # float32 softmax outputs overshoot 1 by ~1e-5 in real files


def as_probabilities(s: np.ndarray, name: str) -> np.ndarray:
    """Scores as probabilities: clip float rounding just outside [0, 1], reject the rest."""
    bad = (s < -PROBABILITY_SLACK) | (s > 1 + PROBABILITY_SLACK)
    if np.any(bad):
        first = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{name}: scores must be probabilities in [0, 1]; item {first + 1} has {s[first]!r}")
    return np.clip(s, 0.0, 1.0)


def _advice(point: val.ValuePoint, calibrator: cal.Calibrator) -> Advice:
    """Turn an accepted-confidence threshold into raw-score cut-offs."""
    tau = point.threshold
    reviewed = point.rejected_share
    if math.isinf(tau) or calibrator.a <= 0:
        # A decreasing calibration map (a <= 0) means the model ranks backwards: no cut-off.
        return Advice(None, None, 1.0 if math.isinf(tau) else reviewed, 0.0 if math.isinf(tau) else 1 - reviewed, point.value)
    t = max(tau, 0.5)
    return Advice(calibrator.inverse(t), calibrator.inverse(1.0 - t), reviewed, 1.0 - reviewed, point.value)


def _best(models: dict[str, ModelValue], key: str, attr: str) -> str | None:
    scored = [(getattr(m.by_k[key], attr), name) for name, m in models.items()]
    scored = [(v, name) for v, name in scored if v is not None]
    return max(scored, key=lambda t: t[0])[1] if scored else None


def model_value(
    name: str, p: np.ndarray, gold: np.ndarray, *, ks: Sequence[float] = DEFAULT_KS,
    calibrate: str = "none", validation_share: float = 0.5, seed: int = 0, ktp: float = 1.0,
    kfp: float = 1.0, bins: int = 10, halves: tuple[np.ndarray, np.ndarray] | None = None,
    by_score: np.ndarray | None = None,
) -> ModelValue:  # long: one table, k by k
    """Value table of one model over the cost factors ``ks``.

    ``halves``: ``val.split(len(p), validation_share, seed)`` when the caller has it already
    (the same split serves every model of a comparison). ``by_score``: positions believed to
    sort ``p`` highest first (a stored ranking), which spares the sorts by confidence; the
    table is the same without it."""
    s, g = mt.as_arrays(p, gold)
    s = as_probabilities(s, name)
    val_idx, held_idx = halves if halves is not None else val.split(s.size, validation_share, seed)
    if calibrate != "none" and val_idx.size == 0:
        raise ValueError("calibration needs a validation split (--validation-share > 0)")
    calibrator = cal.fit(calibrate, s[val_idx], g[val_idx]) if calibrate != "none" else cal.Calibrator("none")
    cs = calibrator.apply(s)
    hs, hg = cs[held_idx], g[held_idx]
    before, after = cal.reliability(s[held_idx], hg, bins), cal.reliability(hs, hg, bins)
    by_k: dict[str, KResult] = {}
    # Sorted by confidence once per split; each k is then a few binary searches.
    held_table = val.confidence_table(hs, hg, _within(by_score, held_idx, s.size))
    val_table = (val.confidence_table(cs[val_idx], g[val_idx], _within(by_score, val_idx, s.size))
                 if val_idx.size else None)
    for k in ks:
        rule = val.value_at(held_table, None, k, val.calibrated_threshold(k))
        tuned = best_threshold = held = None
        if val_table is not None:
            best_threshold = val.best_threshold(val_table, None, k)
            held = val.value_at(held_table, None, k, best_threshold.threshold)
            tuned = best_threshold.threshold
        # Threshold tuning beat calibration in the paper's experiments (§4.3), so the advice
        # follows the tuned τ when there is a validation split, else the calibrated rule.
        advice = _advice(held if held is not None else rule, calibrator)
        by_k[k_key(k)] = KResult(
            k=float(k), threshold=rule.threshold, value=rule.value,
            rejected_share=rule.rejected_share, accepted_accuracy=rule.accepted_accuracy,
            tuned_threshold=tuned,
            validation_value=best_threshold.value if best_threshold else None,
            heldout_value=held.value if held else None,
            heldout_rejected_share=held.rejected_share if held else None,
            heldout_accepted_accuracy=held.accepted_accuracy if held else None,
            advice=advice,
            cost_sensitive=val.cost_sensitive_value(held_table, None, ktp, kfp, float(k)),
        )
    return ModelValue(
        name=name, n=int(s.size), n_validation=int(val_idx.size), n_heldout=int(held_idx.size),
        calibration=calibrate, temperature=calibrator.temperature,
        platt_a=calibrator.a if calibrate == "platt" else None,
        platt_b=calibrator.b if calibrate == "platt" else None,
        ece_before=before.ece, ece_after=after.ece,
        reliability_before=before, reliability_after=after, by_k=by_k,
    )


def _within(by_score: np.ndarray | None, part: np.ndarray, n: int) -> np.ndarray | None:
    """``by_score`` restricted to the items ``part`` (ascending), as positions within it.

    A calibration map is monotone, so the order still sorts the calibrated scores (where
    rounding breaks that, the sort by confidence is only slower, never different)."""
    if by_score is None or by_score.size != n:
        return None
    at = np.full(n, -1, dtype=np.int64)
    at[part] = np.arange(part.size)
    inside = at[by_score]
    return inside[inside >= 0]


def value_report(
    scores: dict[str, np.ndarray], gold: np.ndarray, *, ks: Sequence[float] = DEFAULT_KS,
    calibrate: str = "none", validation_share: float = 0.5, seed: int = 0, ktp: float = 1.0,
    kfp: float = 1.0, warnings: list[str] | None = None,
) -> ValueReport:
    """Value tables of several models on the same labeled items, and the best model per k."""
    models = {
        name: model_value(name, p, gold, ks=ks, calibrate=calibrate, validation_share=validation_share,
                          seed=seed, ktp=ktp, kfp=kfp)
        for name, p in scores.items()
    }
    keys = [k_key(k) for k in ks]
    return ValueReport(
        models=models,
        best_model_by_k={key: _best(models, key, "value") for key in keys},
        best_model_by_k_tuned={key: _best(models, key, "heldout_value") for key in keys},
        ktp=ktp, kfp=kfp, validation_share=validation_share, seed=seed,
        warnings=list(warnings or []),
    )


@dataclass(frozen=True)
class PairResult:
    difference: float | None  # metric(A) - metric(B)
    p_value: float | None
    exact: bool
    trials: int
    reason: str | None

    @property
    def standard_error(self) -> float | None:
        """Monte-Carlo standard error of a sampled p, √(p(1 − p)/N); 0 when exact."""
        if self.p_value is None or self.trials < 1:
            return None
        if self.exact:
            return 0.0
        return math.sqrt(self.p_value * (1.0 - self.p_value) / self.trials)


@dataclass(frozen=True)
class CompareReport:
    models: dict[str, mt.MetricReport]
    pairs: dict[str, dict[str, PairResult]]
    trials: int
    seed: int
    warnings: list[str] = field(default_factory=list)


def compare_report(
    scores: dict[str, np.ndarray], gold: np.ndarray, *, threshold: float = 0.5, k_ndcg: int = 10,
    trials: int = 1000, seed: int = 0, warnings: list[str] | None = None,
) -> CompareReport:
    """Metrics per model and a paired permutation test per pair of models and metric."""
    g = np.asarray(gold).astype(bool)
    reports = {name: mt.binary_report(s, g, threshold=threshold, k_ndcg=k_ndcg) for name, s in scores.items()}
    pairs = pair_tests(scores, g, threshold=threshold, k_ndcg=k_ndcg, trials=trials, seed=seed)
    return CompareReport(reports, pairs, trials, seed, list(warnings or []))


def pair_tests(
    scores: dict[str, np.ndarray], gold: np.ndarray, *, threshold: float = 0.5, k_ndcg: int = 10,
    trials: int = 1000, seed: int = 0,
) -> dict[str, dict[str, PairResult]]:
    """The paired permutation tests of :func:`compare_report` alone ("A|B" -> metric -> result)."""
    g = np.asarray(gold).astype(bool)
    names = list(scores)
    pairs: dict[str, dict[str, PairResult]] = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            # The test of significance.permutation_tests over metrics.all_metrics_rows, with
            # the same p-values, computed without sorting each permuted row (swaps.py).
            tests = score_permutation_tests(scores[a], scores[b], g, threshold=threshold,
                                            k_ndcg=k_ndcg, trials=trials, seed=seed)
            pairs[f"{a}|{b}"] = {
                metric: PairResult(r.difference, r.p_value, r.exact, r.trials, r.reason)
                for metric, r in tests.items()
            }
    return pairs
