"""Each model's stored ranking read from the file once, for a short-lived reader that asks.

A report's second process (:mod:`triage.views.report.side`) reads every model's ranking
for the gold curves, the gain report and the model comparison: seven reads of two
pool-sized blobs at two models. After :func:`keep_rankings` those reads come from memory:
the arrays are read once per open database and shared, read-only. Nothing else keeps them
(a desk open for hours would hold every model's ranking), and rankings are only ever
inserted, never changed, so a kept one stays true while the database is open.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from triage import store

_KEPT: weakref.WeakKeyDictionary[Any, dict[int, tuple[np.ndarray, np.ndarray]]] = \
    weakref.WeakKeyDictionary()


def keep_rankings(db: Any) -> None:
    """From now on, read each model's ranking in ``db`` once and share it (read-only)."""
    _KEPT.setdefault(db, {})


def ranking(db: Any, model_id: int) -> tuple[np.ndarray, np.ndarray]:
    """``store.ranking``: (candidate ids best first, their scores), once where kept."""
    kept = _KEPT.get(db)
    if kept is None:
        return store.ranking(db, model_id)
    if model_id not in kept:
        ids, scores = store.ranking(db, model_id)
        ids.setflags(write=False)
        scores.setflags(write=False)
        kept[model_id] = (ids, scores)
    return kept[model_id]


def rank_order(db: Any, model_id: int) -> np.ndarray:
    """``store.rank_order``: candidate ids best first, from the kept ranking where kept."""
    if db in _KEPT:
        return ranking(db, model_id)[0]
    return store.rank_order(db, model_id)


__all__ = ["keep_rankings", "rank_order", "ranking"]
