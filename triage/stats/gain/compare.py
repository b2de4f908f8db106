"""Choosing among models: the three budget situations of seed 000 (section 4).

1. **Fixed budget**: which model finds the most positives within the budget?
2. **Flexible budget**: which model reaches all positives earliest (cheapest)?
3. **One more decile?**: after k deciles, what does the next decile add, and at what cost?

Ties between models are reported as ties (every tied model listed), never broken silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar

from triage.stats.gain.analysis import ModelGain

# Expected positives are sums of fractions: models within this are tied, not ranked.
_TIE_TOL = 1e-9

# The cost convention of each answer, as a code (worded by triage.views.gain_words).
WITHIN_CANDIDATES = "within_candidates"
WITHIN_DECILES = "within_deciles"
TO_LAST_POSITIVE = "to_last_positive"
TO_ALL_DECILES = "to_all_deciles"


@dataclass(frozen=True)
class Choice:
    """The model(s) that win one question; several models when they tie."""

    models: tuple[str, ...]
    tied: bool
    positives: float | None  # expected positives the winners find
    candidates: float | None  # candidates annotated (expected when ties in scores)
    deciles: float | None  # expected with tied scores
    cost: float | None
    convention: str  # a code: WITHIN_CANDIDATES, WITHIN_DECILES, TO_LAST_POSITIVE, TO_ALL_DECILES
    reason: str | None = None  # why there is no answer (a code), when models is empty


@dataclass(frozen=True)
class NextDecile:
    """Situation 3 for one model: after ``after_deciles`` deciles, the next one."""

    model: str
    after_deciles: int
    decile: int | None  # None when every decile is already annotated
    positives_so_far: float
    new_positives: float | None
    gain: float | None
    cost: float | None  # paper convention: price × N / 10
    cost_per_new_positive: float | None  # None when the decile adds nothing


@dataclass(frozen=True)
class Comparison:
    """Answers to the three situations over several models' rankings of one pool."""

    best_model_within_budget: Choice | None  # None when no budget was given
    best_model_within_budget_whole_deciles: Choice | None
    earliest_to_all_positives: Choice
    earliest_to_all_positives_whole_deciles: Choice
    next_decile: tuple[NextDecile, ...]


_T = TypeVar("_T")


def _known(value: _T | None) -> _T:
    """A figure the caller knows is set: budget figures with a budget, reach with positives."""
    if value is None:
        raise ValueError("a figure the comparison needs is missing")
    return value


def _winners(values: Mapping[str, float], *, highest: bool) -> tuple[str, ...]:
    best = max(values.values()) if highest else min(values.values())
    return tuple(m for m, v in values.items() if abs(v - best) <= _TIE_TOL * max(1.0, abs(best)))


def _best_within(results: Mapping[str, ModelGain], whole_deciles: bool) -> Choice | None:
    first = next(iter(results.values()))
    if first.budget is None:
        return None
    if whole_deciles:
        found = {m: _known(r.positives_within_budget_whole_deciles) for m, r in results.items()}
        bought = _known(first.deciles_within_budget)
        deciles: int | None = bought
        candidates = float(sum(row.items for row in first.deciles[:bought]))
        cost = bought * first.cost_per_decile_whole
        convention = WITHIN_DECILES
    else:
        found = {m: _known(r.positives_within_budget) for m, r in results.items()}
        candidates = float(_known(first.candidates_within_budget))
        deciles = None
        cost = candidates * first.cost_per_item
        convention = WITHIN_CANDIDATES
    winners = _winners(found, highest=True)
    return Choice(
        models=winners,
        tied=len(winners) > 1,
        positives=found[winners[0]],
        candidates=candidates,
        deciles=deciles,
        cost=cost,
        convention=convention,
    )


def _earliest(results: Mapping[str, ModelGain], whole_deciles: bool) -> Choice:
    convention = TO_ALL_DECILES if whole_deciles else TO_LAST_POSITIVE
    defined = {m: r for m, r in results.items() if r.undefined_reason is None}
    if not defined:
        reason = next(iter(results.values())).undefined_reason
        return Choice((), False, None, None, None, None, convention, reason)
    if whole_deciles:
        reach = {m: float(_known(r.deciles_to_all_positives)) for m, r in defined.items()}
    else:
        reach = {m: float(_known(r.rank_of_last_positive)) for m, r in defined.items()}
    winners = _winners(reach, highest=False)
    best = defined[winners[0]]
    if whole_deciles:
        deciles = best.deciles_to_all_positives
        candidates = best.candidates_to_all_positives_whole_deciles
        cost = best.cost_to_all_positives_whole_deciles
    else:
        deciles, candidates, cost = None, best.rank_of_last_positive, best.cost_to_last_positive
    return Choice(
        models=winners,
        tied=len(winners) > 1,
        positives=float(best.positives),
        candidates=candidates,
        deciles=deciles,
        cost=cost,
        convention=convention,
    )


def next_decile(model: str, result: ModelGain, after_deciles: int) -> NextDecile:
    """What annotating one more decile after ``after_deciles`` deciles would bring."""
    bins = len(result.deciles)
    if not 0 <= after_deciles <= bins:
        raise ValueError(f"after_deciles must be between 0 and {bins}")
    so_far = result.cumulative_positives(after_deciles)
    if after_deciles == bins:
        return NextDecile(model, after_deciles, None, so_far, None, None, None, None)
    row = result.deciles[after_deciles]
    cost = result.cost_per_decile_whole
    per_positive = cost / row.positives if row.positives > 0 else None
    return NextDecile(
        model, after_deciles, row.decile, so_far, row.positives, row.gain, cost, per_positive
    )


def compare_models(
    results: Mapping[str, ModelGain], *, after_deciles: int | None = None
) -> Comparison:
    """Answer the three situations; ``after_deciles`` defaults to the deciles the budget buys.

    Without a budget and without ``after_deciles``, situation 3 is answered after 1 decile.
    """
    if not results:
        raise ValueError("at least one model is needed")
    pools = {r.pool for r in results.values()}
    if len(pools) != 1:
        raise ValueError("all models must rank the same pool")
    first = next(iter(results.values()))
    if after_deciles is None:
        after_deciles = _known(first.deciles_within_budget) if first.budget is not None else 1
    return Comparison(
        best_model_within_budget=_best_within(results, whole_deciles=False),
        best_model_within_budget_whole_deciles=_best_within(results, whole_deciles=True),
        earliest_to_all_positives=_earliest(results, whole_deciles=False),
        earliest_to_all_positives_whole_deciles=_earliest(results, whole_deciles=True),
        next_decile=tuple(next_decile(m, r, after_deciles) for m, r in results.items()),
    )
