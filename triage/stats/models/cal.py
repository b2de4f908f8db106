"""Continuous active learning (CAL): a ranking learned from the project's own labels.

Cormack & Grossman's CAL/AutoTAR, as Triage runs it: features from each candidate's text
(hashed word 1- and 2-grams) plus every imported model's score, a logistic regression fit
by stochastic gradient descent with balanced class weights, refit every ``every`` labels
(or in AutoTAR's growing batches) and used to re-rank the candidates nobody has labeled.
The imported scores make it a *warm start*: before the first positive and negative are
known, and whenever the labels cannot yet beat them, the imported ranking shows through.

Everything here is deterministic given the seed, so a backtest replays a run exactly.
scikit-learn is an optional dependency (``pip install 'triage[learn]'``): it is imported
only when features are built or a model is fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from triage.base.errors import TriageError

N_FEATURES = 2 ** 18
SCORE_WEIGHT = 3.0      # imported scores count as much as a few strong words at the start


@dataclass(frozen=True)
class CalConfig:
    """How the cal ranking is learned (stored with each snapshot)."""

    seed: int = 0
    every: int = 50            # labels between two refits (growing: max(every, 10 % of labels))
    growing: bool = True
    alpha: float = 1e-5
    epochs: int = 10           # passes over the labels at least ...
    updates: int = 200_000     # ... and more while few: about this many example updates
    keep: int = 5000           # ranked unlabeled candidates a snapshot keeps (the served head)


DEFAULT = CalConfig()


def require_sklearn() -> Any:
    """The ``sklearn`` package, or a clear error saying how to install it."""
    try:
        import sklearn
    except ImportError as error:
        raise TriageError("the cal ranking needs scikit-learn; install it with "
                          "pip install 'triage[learn]' (or pip install scikit-learn)") from error
    return sklearn


def text_features(texts: list[str], n_features: int = N_FEATURES) -> Any:
    """Hashed word 1–2-gram counts of each text, sublinear and L2-normalised (sparse)."""
    require_sklearn()
    from sklearn.feature_extraction.text import HashingVectorizer, TfidfTransformer

    vec = HashingVectorizer(n_features=n_features, ngram_range=(1, 2), alternate_sign=False,
                            norm=None, dtype=np.float32)
    counts = vec.transform(texts)
    return TfidfTransformer(sublinear_tf=True).fit_transform(counts).astype(np.float32)


def score_columns(scores: list[np.ndarray]) -> np.ndarray:
    """Each imported model's score as a standardised column (missing scores: the mean)."""
    n = scores[0].size if scores else 0
    out = np.zeros((n, len(scores)), dtype=np.float32)
    for j, s in enumerate(scores):
        s = np.asarray(s, dtype=np.float64)
        ok = np.isfinite(s)
        if not ok.any():
            continue
        mean, sd = float(s[ok].mean()), float(s[ok].std())
        col = np.where(ok, (s - mean) / (sd if sd > 0 else 1.0), 0.0)
        out[:, j] = np.clip(col, -5, 5) * SCORE_WEIGHT / 3.0
    return out


def build_features(texts: list[str] | None, scores: list[np.ndarray]) -> Any:
    """The feature matrix: text n-grams (when there is text) beside the imported scores."""
    require_sklearn()
    import scipy.sparse as sp

    cols = sp.csr_matrix(score_columns(scores)) if scores else None
    if texts is None or not any(t.strip() for t in texts):
        if cols is None:
            raise TriageError("the cal ranking needs candidate text or an imported model")
        return cols
    words = text_features(texts)
    return words if cols is None else sp.hstack([words, cols], format="csr")


def warm_scores(scores: list[np.ndarray]) -> np.ndarray:
    """The ranking before anything is learned: the mean standardised imported score."""
    cols = score_columns(scores)
    return cols.mean(axis=1).astype(np.float64) if cols.shape[1] else np.zeros(cols.shape[0])


def epochs_for(labels: int, config: CalConfig = DEFAULT) -> int:
    """Passes over ``labels`` labels: ``epochs``, or more to make ``updates`` updates.

    Ten passes over a few hundred labels leave stochastic gradient descent far from its
    optimum (the ranking then jumps from fit to fit); a fixed budget of updates converges
    it while labels are few and costs no more than ten passes once they are many.
    """
    return max(config.epochs, -(-config.updates // max(labels, 1)))


def fit_scores(features: Any, labeled: np.ndarray, positive: np.ndarray, seed: int,
               config: CalConfig = DEFAULT) -> np.ndarray | None:
    """Fit on the labeled rows; decision scores for every row (None: one class only)."""
    y = np.asarray(positive, dtype=bool)
    if y.all() or not y.any():
        return None
    require_sklearn()
    from sklearn.linear_model import SGDClassifier

    epochs = epochs_for(y.size, config)
    clf = SGDClassifier(loss="log_loss", class_weight="balanced", alpha=config.alpha,
                        max_iter=epochs, tol=None, random_state=seed)
    x = features[np.asarray(labeled, dtype=np.int64)]
    # While passes are many, only the columns the labels use: each pass costs the width of
    # the matrix (2^18 hashed columns) besides its rows, and a weight no label touches
    # stays zero anyway. Over ten passes of many labels the slicing would cost more.
    used = (np.flatnonzero(np.bincount(x.indices, minlength=x.shape[1]))
            if epochs > config.epochs else np.arange(x.shape[1]))
    clf.fit(x[:, used] if epochs > config.epochs else x, y)
    weights = np.zeros(x.shape[1])
    weights[used] = clf.coef_[0]
    return np.asarray(features @ weights + clf.intercept_[0], dtype=np.float64)


def head(scores: np.ndarray, exclude: np.ndarray, keep: int, seed: int) -> np.ndarray:
    """Row indices of the ``keep`` best-scored rows not excluded; ties in seeded order.

    Only the rows at or above the ``keep``-th best score are sorted (a partition finds
    them), so the top thousand of a million rows costs milliseconds, not a full sort.
    """
    tie = np.random.default_rng([seed, 0xCA1]).random(scores.size)
    s = np.where(exclude, -np.inf, np.asarray(scores, dtype=np.float64))
    avail = int((~np.asarray(exclude, dtype=bool)).sum())
    keep = min(keep, avail)
    if keep <= 0:
        return np.empty(0, dtype=np.int64)
    kth = s[np.argpartition(-s, keep - 1)[keep - 1]]
    rows = np.flatnonzero(s >= kth)
    rows = rows[~exclude[rows]]
    order = rows[np.lexsort((tie[rows], -s[rows]))]
    return order[:keep].astype(np.int64)


def next_refit(labels: int, config: CalConfig) -> int:
    """The label count at which the next refit is due after one at ``labels``."""
    step = max(config.every, labels // 10) if config.growing else config.every
    return labels + step


def trainable(kinds: list[str]) -> np.ndarray:
    """Which label kinds a cal model may learn from: never the audit or certification sample.

    A model trained on the random samples would rank them high and inflate what the
    stopping rules count as found among them.
    """
    return np.array([k not in ("audit", "certify") for k in kinds], dtype=bool)


__all__ = ["DEFAULT", "CalConfig", "build_features", "epochs_for", "fit_scores", "head", "next_refit",
           "require_sklearn", "score_columns", "text_features", "trainable", "warm_scores"]
