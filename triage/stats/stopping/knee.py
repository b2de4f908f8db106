"""The knee method of Cormack & Grossman (2016) on the gain curve — a heuristic.

At s items reviewed with g(s) positives found, the knee i is the point of the gain curve
farthest above the straight line from (0, 0) to (s, g(s)). The slope ratio is
ρ = (g(i)/i) / ((g(s) − g(i) + 1)/(s − i)) (the +1 keeps it finite after the knee). The
method stops when ρ ≥ 156 − min(g(s), 150) and s ≥ 150: a ratio of 6 once 150 positives
are found, demanded higher when fewer have been found. No statistical guarantee.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

MIN_REVIEWED = 150
BASE_RATIO = 6.0
ADJUSTMENT = 150


@dataclass(frozen=True)
class KneeResult:
    """Knee position, slope ratio and the threshold it is compared with, per checkpoint."""

    knee: np.ndarray
    ratio: np.ndarray
    threshold: np.ndarray
    met: np.ndarray


def knee_threshold(found: ArrayLike) -> np.ndarray:
    """156 − min(found, 150): the slope ratio the method demands."""
    return BASE_RATIO + ADJUSTMENT - np.minimum(np.asarray(found, dtype=float), ADJUSTMENT)


def knee_at(gain: np.ndarray, checkpoints: np.ndarray, chunk_cells: int = 500_000) -> KneeResult:
    """Evaluate the knee rule at each checkpoint s (items reviewed).

    ``gain[t]`` is the number of positives among the first t items (``gain[0] == 0``).
    Vectorised over checkpoints in chunks of about ``chunk_cells`` cells (small enough to
    stay in cache), in exact integer arithmetic.
    """
    s = np.asarray(checkpoints, dtype=np.int64).reshape(-1)
    gain = np.asarray(gain, dtype=np.int64)
    if s.size == 0:
        empty = np.zeros(0)
        return KneeResult(empty.astype(int), empty, empty, empty.astype(bool))
    gs = gain[s]
    knee = np.zeros(s.size, dtype=np.int64)
    step = max(1, chunk_cells // max(int(s.max()), 1))
    low = np.iinfo(np.int64).min
    for lo in range(0, s.size, step):
        sc, gc = s[lo:lo + step], gs[lo:lo + step]
        i = np.arange(1, max(int(sc.max()), 2))
        # Height above the chord, up to the constant factor 1/|chord|; only i < s counts.
        height = gain[i][None, :] * sc[:, None] - i[None, :] * gc[:, None]
        height[i[None, :] >= sc[:, None]] = low
        knee[lo:lo + step] = np.where(sc >= 2, i[np.argmax(height, axis=1)], 0)
    gk, gs = gain[knee].astype(float), gs.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        before = np.where(knee > 0, gk / np.maximum(knee, 1), 0.0)
        after = (gs - gk + 1) / np.maximum(s - knee, 1)
        ratio = before / after
    threshold = knee_threshold(gs)
    met = (s >= MIN_REVIEWED) & (ratio >= threshold)
    return KneeResult(knee=knee, ratio=ratio, threshold=threshold, met=met)
