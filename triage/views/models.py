"""What the model-comparison view draws: gain per model, metrics with paired tests, value
with a reject option per cost factor k, calibration, the bandit's belief, and what to
accept without review.

Two steps so the slow one can run in a worker thread: :func:`models_inputs` reads the
project (fast, on the caller's thread) and :func:`build_models_view_data` computes from
those arrays only (permutation tests, calibration fits, value tables).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.base.errors import TriageError
from triage.base.progress import Progress as Progress
from triage.views.formatting import format_money
from triage.views.model_inputs import ModelsInputs, models_inputs
from triage.views.model_words import metric_reason_text, undefined_words

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.stats.models.calibration import Reliability
    from triage.stats.models.report import Advice


VALUE_KS = tuple(float(k) for k in np.arange(0.0, 10.5, 0.5))  # the value-versus-k curves
ACCEPT_KS = (1.0, 2.0, 4.0, 8.0, 10.0)   # the k a lead can pick for the acceptance advice
DEFAULT_ACCEPT_K = 2.0
# The paired tests of the tab take at most this many (item, swap pattern) evaluations per
# pair of models: 1000 patterns up to 500,000 labeled items, fewer beyond (500 at a million,
# never under 200), so that they finish in seconds; each p-value states its Monte-Carlo
# standard error. `triage compare` runs the trials it is asked for.
PVALUE_WORK = 500_000_000
MIN_TRIALS = 200


THRESHOLD_METRIC_KEYS = frozenset({"precision", "recall", "f1", "mcc", "sba"})


def _one_sided(c: Any, threshold: float) -> str | None:
    """Why a confusion table at ``threshold`` says nothing, or None when it does."""
    predicted = c.tp + c.fp
    if predicted == c.n:
        return f"every labeled candidate scores ≥ {threshold:g}: it predicts all positive"
    if predicted == 0:
        return f"no labeled candidate scores ≥ {threshold:g}: it predicts none positive"
    return None


def view_trials(n: int, trials: int = 1000) -> int:
    """Random swap patterns per pair the tab's tests use for ``n`` labeled items."""
    return min(trials, max(MIN_TRIALS, PVALUE_WORK // max(n, 1)))


@dataclass(frozen=True)
class Acceptance:
    """What one model lets people skip at one k (raw-score cut-offs)."""

    model: str
    k: float
    accept_positive_at_or_above: float | None
    accept_negative_at_or_below: float | None
    reviewed_share: float      # of the unlabeled candidates
    unlabeled: int
    saving: float              # review cost of the candidates accepted without review
    text: str


@dataclass(frozen=True)
class ModelsViewData:
    """Everything the model view draws; ``unavailable`` says why it is empty, if it is."""

    models: tuple[str, ...]
    labels_from: str
    n: int
    positives: int
    warnings: tuple[str, ...]
    unavailable: str | None                     # why there is nothing to compare, if so
    # gain (offline, needs gold)
    gain: dict[str, np.ndarray]                 # positives found after the top r (index r-1)
    budget_items: float | None
    # metrics and tests
    threshold: float
    metric_names: tuple[str, ...]
    metrics: dict[str, dict[str, float | None]]
    undefined: dict[str, dict[str, str]]
    pvalues: dict[str, dict[str, dict[str, Any]]]  # "A|B" -> metric -> difference, p, exact
    trials: int
    # value with a reject option, calibration
    value_ks: tuple[float, ...]
    value_tuned: dict[str, np.ndarray]          # held-out V at the τ tuned on validation
    value_rule: dict[str, np.ndarray]           # held-out V at τ = k/(k+1), calibrated scores
    value_reasons: dict[str, str]               # model -> why it has no value curve
    reliability: dict[str, dict[str, Any]]      # model -> before/after bins and ECE
    acceptance: dict[float, dict[str, Acceptance]]
    bandit: dict[str, Any] | None
    currency: str = "USD"
    notes: tuple[str, ...] = field(default=())
    # model -> {"roc": (fpr, tpr), "pr": (recall, precision)}, thinned for drawing
    curves: dict[str, dict[str, tuple[np.ndarray, np.ndarray]]] = field(default_factory=dict)
    # The permutation tests come after the rest (minutes at a million gold labels):
    # True while they are still being computed (see models_pvalues).
    pvalues_pending: bool = False
    # The value tables and calibration come after the metrics in the lead window: True
    # while they are still being computed (see models_value and with_value).
    value_pending: bool = False
    # model -> why its metrics at the threshold say nothing: it puts every labeled
    # candidate on one side of the threshold (e.g. a count, every score ≥ 0.5)
    one_sided: dict[str, str] = field(default_factory=dict)

    def best(self, metric: str) -> str | None:
        """The model whose ``metric`` alone is highest (bold in the table), or None.

        None when two tie or there is one model; a metric at the threshold of a model that
        puts every candidate on one side of it carries no information and never leads."""
        at_threshold = metric in THRESHOLD_METRIC_KEYS
        values = {m: v for m in self.models if (v := self.metrics[m].get(metric)) is not None
                  and not (at_threshold and m in self.one_sided)}
        if len(self.models) < 2 or not values:
            return None
        top = max(values.values())
        leaders = [m for m, v in values.items() if v == top]
        return leaders[0] if len(leaders) == 1 else None

    def metric_cell(self, model: str, metric: str) -> str:
        """One cell of the metrics table: the value to three places, or "undef."."""
        v = self.metrics[model][metric]
        return "undef." if v is None else f"{v:.3f}"

    def as_dict(self) -> dict[str, Any]:
        """Plain data for JSON and tests (arrays as lists, NaN as None)."""
        def arr(a: np.ndarray) -> list[float | None]:
            return [None if math.isnan(x) else float(x) for x in np.asarray(a, dtype=float)]
        return {
            "models": list(self.models), "labels_from": self.labels_from, "n": self.n,
            "positives": self.positives, "warnings": list(self.warnings),
            "unavailable": self.unavailable,
            "gain": {m: v.tolist() for m, v in self.gain.items()},
            "budget_items": self.budget_items, "metrics": self.metrics,
            "pvalues": self.pvalues, "value_ks": list(self.value_ks),
            "value_tuned": {m: arr(v) for m, v in self.value_tuned.items()},
            "reliability": self.reliability, "bandit": self.bandit,
            "curves": {m: {k: [x.tolist(), y.tolist()] for k, (x, y) in c.items()}
                       for m, c in self.curves.items()},
            "acceptance": {k: {m: a.text for m, a in row.items()}
                           for k, row in self.acceptance.items()},
        }


def _acceptance(model: str, k: float, advice: Advice, inputs: ModelsInputs) -> Acceptance:
    raw = inputs.unlabeled_scores[model]
    hi, lo = advice.accept_positive_at_or_above, advice.accept_negative_at_or_below
    n = int(raw.size)
    if hi is None or lo is None:
        text = (f"{model}: accept nothing without review at k = {k:g}; people review all "
                f"{n:,} unlabeled candidates")
        return Acceptance(model, k, None, None, 1.0, n, 0.0, text)
    auto = int(np.count_nonzero((raw >= hi) | (raw <= lo)))
    reviewed = 1.0 - auto / n if n else 0.0
    saving = auto * inputs.price
    text = (f"{model}: accept positives with score ≥ {hi:.3f} and negatives with score ≤ "
            f"{lo:.3f}; people review {100 * reviewed:.0f}% of the {n:,} unlabeled candidates, "
            f"saving {format_money(saving, inputs.currency)}")
    return Acceptance(model, k, hi, lo, reviewed, n, saving, text)


def _reliability(r: Reliability) -> dict[str, Any]:
    return {"ece": r.ece, "confidence": list(r.confidence), "accuracy": list(r.accuracy),
            "counts": [int(c) for c in r.counts], "edges": [float(e) for e in r.edges]}


def _tick(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None and progress(done, total) is False:
        raise TriageError("the model comparison was cancelled")


@dataclass
class ValueTables:
    """Per model: value curves, reliability and acceptance advice, or why there are none."""

    tuned: dict[str, np.ndarray] = field(default_factory=dict)
    rule: dict[str, np.ndarray] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    reliability: dict[str, dict[str, Any]] = field(default_factory=dict)
    acceptance: dict[float, dict[str, Acceptance]] = field(
        default_factory=lambda: {k: {} for k in ACCEPT_KS})


def _value_tables(inputs: ModelsInputs, g: np.ndarray, *, calibrate: str,
                  validation_share: float, seed: int, progress: Progress | None,
                  total: int) -> ValueTables:
    """Value with a reject option, calibration and what to accept, model by model."""
    from triage.stats.models.report import k_key, model_value
    from triage.stats.models.value import split

    out = ValueTables()
    try:   # one split for every model (a bad share: each model says so below)
        halves: tuple[np.ndarray, np.ndarray] | None = split(g.size, validation_share, seed)
    except ValueError:
        halves = None
    for done, name in enumerate(inputs.models, start=3):
        s = inputs.scores[name]
        if np.any(s < -1e-4) or np.any(s > 1 + 1e-4):
            out.reasons[name] = ("its scores are not probabilities in [0, 1], so value with a "
                                 "reject option and calibration do not apply")
        else:
            try:
                mv = model_value(name, s, g, ks=VALUE_KS, calibrate=calibrate,
                                 validation_share=validation_share, seed=seed,
                                 halves=halves, by_score=inputs.orders.get(name))
            except ValueError as error:  # e.g. a one-class validation split
                out.reasons[name] = str(error)
            else:
                by = [mv.by_k[k_key(k)] for k in VALUE_KS]
                out.tuned[name] = np.array([_num(r.heldout_value) for r in by])
                out.rule[name] = np.array([r.value for r in by])
                out.reliability[name] = {"before": _reliability(mv.reliability_before),
                                         "after": _reliability(mv.reliability_after),
                                         "calibration": mv.calibration}
                for k in ACCEPT_KS:
                    out.acceptance[k][name] = _acceptance(name, k, mv.by_k[k_key(k)].advice,
                                                          inputs)
        _tick(progress, done, total)
    return out


def build_models_view_data(
    source: ModelsInputs | Project, *, threshold: float = 0.5, k_ndcg: int = 10,
    trials: int = 1000, seed: int = 0, calibrate: str = "platt", validation_share: float = 0.5,
    progress: Progress | None = None, pvalues: bool = True, value: bool = True,
    curves: bool = True,
) -> ModelsViewData:  # long: the one place that assembles every figure of the view
    """Every number of the model view.

    ``source`` is a :class:`ModelsInputs` (safe in a worker thread) or an open project (read
    first with :func:`models_inputs`). With ``pvalues=False`` the permutation tests are
    left out (``pvalues_pending``); :func:`models_pvalues` computes them afterwards. With
    ``value=False`` so are the value tables and calibration (``value_pending``), which
    :func:`models_value` computes and :func:`with_value` fills in. With ``curves=False``
    the ROC and precision-recall points and every item's gain curve are left out (empty),
    for a caller that shows neither (the report).
    """
    from triage.stats.models import metrics as mt
    from triage.stats.models.report import pair_tests

    inputs = source if isinstance(source, ModelsInputs) else models_inputs(source)
    names, g = inputs.models, inputs.positive.astype(bool)
    trials = view_trials(g.size, trials)
    total = 2 + len(names)
    _tick(progress, 0, total)
    budget_items = (inputs.budget / inputs.price
                    if inputs.budget is not None and inputs.price > 0 else None)
    empty = ModelsViewData(
        models=names, labels_from=inputs.labels_from, n=int(g.size), positives=int(g.sum()),
        warnings=inputs.warnings,
        unavailable="fewer than two labeled candidates: nothing to compare yet",
        gain=dict(inputs.offline_curves) if curves else {}, budget_items=budget_items, threshold=threshold,
        metric_names=(), metrics={}, undefined={}, pvalues={}, trials=trials,
        value_ks=VALUE_KS, value_tuned={}, value_rule={}, value_reasons={}, reliability={},
        acceptance={}, bandit=inputs.bandit, currency=inputs.currency)
    if g.size < 2:
        return empty
    # Each model's scores are sorted once, for its metrics and its curves alike.
    ranked = {m: mt.rank_scores(inputs.scores[m], g, order=inputs.orders.get(m)) for m in names}
    models = {m: mt.binary_report(inputs.scores[m], g, threshold=threshold, k_ndcg=k_ndcg,
                                  ranked=ranked[m]) for m in names}
    pairs = {}
    if pvalues and len(names) > 1:
        pairs = _pvalue_dict(pair_tests(inputs.scores, g, threshold=threshold,
                                        k_ndcg=k_ndcg, trials=trials, seed=seed))
    _tick(progress, 2, total)
    metrics = {m: {k: v.value for k, v in r.metrics.items()} for m, r in models.items()}
    undefined = {m: undefined_words({k: v.reason for k, v in r.metrics.items() if v.reason})
                 for m, r in models.items()}
    data = replace(
        empty, unavailable=None, metric_names=tuple(next(iter(models.values())).metrics),
        metrics=metrics, undefined=undefined, pvalues=pairs,
        pvalues_pending=not pvalues and len(names) > 1, value_pending=not value,
        one_sided={m: why for m, r in models.items()
                   if (why := _one_sided(r.confusion, threshold)) is not None},
        curves={m: mt.model_curves(inputs.scores[m], g, ranked=ranked[m])
                for m in names} if curves else {})
    if not value:
        return data
    return with_value(data, _value_tables(
        inputs, g, calibrate=calibrate, validation_share=validation_share, seed=seed,
        progress=progress, total=total))


def with_value(data: ModelsViewData, tables: ValueTables) -> ModelsViewData:
    """The model comparison ``data`` with its value tables and calibration filled in."""
    if data.unavailable:   # nothing to compare: nothing to fill in either
        return replace(data, value_pending=False)
    return replace(data, value_tuned=tables.tuned, value_rule=tables.rule,
                   value_reasons=tables.reasons, reliability=tables.reliability,
                   acceptance=tables.acceptance, value_pending=False)


def models_value(inputs: ModelsInputs, *, calibrate: str = "platt",
                 validation_share: float = 0.5, seed: int = 0) -> ValueTables:
    """The value tables, calibration and acceptance advice alone, for :func:`with_value`.

    The same as :func:`build_models_view_data` computes.
    """
    g = inputs.positive.astype(bool)
    if g.size < 2:
        return ValueTables()
    return _value_tables(inputs, g, calibrate=calibrate, validation_share=validation_share,
                         seed=seed, progress=None, total=2 + len(inputs.models))


def _pvalue_dict(pairs: dict[str, dict[str, Any]]) -> dict[str, dict[str, dict[str, Any]]]:
    return {pair: {metric: {"difference": r.difference, "p": r.p_value, "exact": r.exact,
                            "reason": metric_reason_text(r.reason), "trials": r.trials, "se": r.standard_error}
                   for metric, r in row.items()}
            for pair, row in pairs.items()}


def models_pvalues(inputs: ModelsInputs, *, threshold: float = 0.5, k_ndcg: int = 10,
                   trials: int = 1000, seed: int = 0) -> dict[str, dict[str, dict[str, Any]]]:
    """The paired permutation tests of :func:`build_models_view_data` alone.

    ``trials`` as asked; :func:`view_trials` bounds them for large projects."""
    from triage.stats.models.report import pair_tests

    g = inputs.positive.astype(bool)
    if g.size < 2 or len(inputs.models) < 2:
        return {}
    # The tests alone: the metrics of each model are the quick step's.
    return _pvalue_dict(pair_tests(inputs.scores, g, threshold=threshold, k_ndcg=k_ndcg,
                                   trials=view_trials(g.size, trials), seed=seed))


def models_view_at(path: str | Path, offline_curves: dict[str, np.ndarray] | None = None,
                   *, stage: str = "all") -> Any:
    """Open the project at ``path`` on this thread (a helper process) and compute the view.

    ``stage``: "all" (a :class:`ModelsViewData`), "quick" (the same without the permutation
    tests), "metrics" (without those tests and without the value tables: the lead window's
    first figures), "value" (only the value tables, a :class:`ValueTables`) or "pvalues"
    (only the tests, as :attr:`ModelsViewData.pvalues`). The later steps reuse what the
    first read while the project file is unchanged (see :mod:`triage.views.model_inputs`).
    """
    from triage.views.model_inputs import cached_models_inputs

    # The later steps need no gain curves: if they must read, they skip the pool scan.
    later = stage in ("value", "pvalues")
    inputs = cached_models_inputs(path, {} if later else offline_curves, reuse=later)
    if stage == "pvalues":
        return models_pvalues(inputs)
    if stage == "value":
        return models_value(inputs)
    return build_models_view_data(inputs, pvalues=stage == "all", value=stage != "metrics")


def _num(x: float | None) -> float:
    return math.nan if x is None else float(x)


def bandit_lines(bandit: dict[str, Any] | None) -> list[str]:
    """Plain lines describing the bandit's belief (empty in follow mode)."""
    if not bandit:
        return []
    lines = [f"{m}: P(best) {100 * p:.1f}%, {bandit['pulls'].get(m, 0)} labels served, "
             f"yield {100 * bandit['posterior_mean'].get(m, 0.0):.1f}%"
             for m, p in sorted(bandit["p_best"].items(), key=lambda t: -t[1])]
    if bandit.get("decided"):
        lines.insert(0, f"decided: {bandit['decided']} (P(best) ≥ {1 - bandit['delta']:.2f})")
    else:
        lines.insert(0, f"not decided yet (needs P(best) ≥ {1 - bandit['delta']:.2f})")
    return lines
