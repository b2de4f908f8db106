"""The JSON-ready gain report for one pool and several models' scores (seed 000).

Every figure states its cost convention in ``conventions``: whole deciles (the paper's)
or per candidate. Reasons and conventions are codes; :func:`triage.views.gain_words.gain_words`
words them for ``gain`` and the report.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from triage.base.jsonutil import jsonable
from triage.stats.gain.analysis import analyse_model
from triage.stats.gain.compare import compare_models

# The figures whose cost convention ``conventions`` states (worded by triage.views.gain_words).
CONVENTIONS = ("cost_to_all_positives_whole_deciles", "cost_per_decile_whole",
               "cost_to_last_positive", "positives_within_budget",
               "positives_within_budget_whole_deciles", "deciles.cost",
               "deciles.marginal_cost_per_positive", "next_decile.cost", "ties")


def build_report(scores: dict[str, tuple[str, np.ndarray]], positive: np.ndarray, *,
                 cost_per_item: float, budget: float | None = None,
                 after_deciles: int | None = None, currency: str = "USD",
                 orders: dict[str, np.ndarray] | None = None) -> dict[str, Any]:
    """The JSON-ready report for models ``{name: (score column, scores)}`` over one pool.

    One builder for both sources: ``triage gain FILE`` and a project file's report
    (:func:`triage.project.gain.gain_report`) produce exactly the same keys. ``orders``:
    each model's item indices in descending score order, when already known (a project's
    stored rankings), which spares sorting the pool again.
    """
    orders = orders or {}
    results = {name: analyse_model(values, positive, cost_per_item=cost_per_item,
                                   budget=budget, order=orders.get(name))
               for name, (_, values) in scores.items()}
    comparison = compare_models(results, after_deciles=after_deciles)
    models = {}
    for name, (column, _) in scores.items():
        entry = jsonable(results[name])
        for key in ("pool", "positives", "cost_per_item", "budget", "undefined_reason"):
            entry.pop(key)
        models[name] = {"score_column": column, **entry}
    return {
        "pool": int(np.asarray(positive).size),
        "positives": int(np.asarray(positive, dtype=bool).sum()),
        "cost_per_item": cost_per_item,
        "budget": budget,
        "currency": currency,
        "undefined_reason": next(iter(results.values())).undefined_reason,
        "models": models,
        "best_model_within_budget": jsonable(comparison.best_model_within_budget),
        "best_model_within_budget_whole_deciles": jsonable(
            comparison.best_model_within_budget_whole_deciles),
        "earliest_to_all_positives": jsonable(comparison.earliest_to_all_positives),
        "earliest_to_all_positives_whole_deciles": jsonable(
            comparison.earliest_to_all_positives_whole_deciles),
        "next_decile": {n.model: jsonable(n) for n in comparison.next_decile},
        "conventions": list(CONVENTIONS),
    }
