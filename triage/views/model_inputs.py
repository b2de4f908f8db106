"""What the model comparison reads from a project: scores, positives, rankings, settings.

:func:`models_inputs` reads each model's stored ranking once, the gold labels once (a
narrow query for the positive ones), and the final labels; :mod:`triage.views.models`
computes from the arrays it returns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.base.errors import TriageError
from triage.project.reads import model_ranking

if TYPE_CHECKING:
    from triage.project.core import Project
    from triage.serving.bandit import BanditBelief

@dataclass(frozen=True)
class ModelsInputs:
    """Everything the comparison needs, read from a project (arrays on the evaluation set)."""

    models: tuple[str, ...]
    scores: dict[str, np.ndarray]           # evaluation items only
    positive: np.ndarray                     # evaluation items only
    labels_from: str                         # "gold" or "labels"
    unlabeled_scores: dict[str, np.ndarray]  # candidates nobody has labeled yet
    offline_curves: dict[str, np.ndarray]
    pool: int
    price: float
    budget: float | None
    currency: str
    active_model: str | None
    queue_mode: str
    bandit: dict[str, Any] | None
    warnings: tuple[str, ...] = ()
    # model -> positions in ``scores[model]`` in the stored rank order (best first), a
    # sort the comparison can reuse once it has checked it
    orders: dict[str, np.ndarray] = field(default_factory=dict)


def _bandit_dict(belief: BanditBelief | None) -> dict[str, Any] | None:
    if belief is None:
        return None
    return {"mode": belief.mode, "p_best": dict(belief.p_best), "pulls": dict(belief.pulls),
            "posterior_mean": dict(belief.posterior_mean), "decided": belief.decided,
            "delta": belief.delta}


def _flags(ids: np.ndarray, chosen: list[int]) -> np.ndarray:
    """A flag per id of the sorted ``ids``, set for the ``chosen`` ones among them."""
    out = np.zeros(ids.size, dtype=bool)
    if chosen:
        wanted = np.asarray(chosen, dtype=np.int64)
        at = np.searchsorted(ids, wanted)
        inside = at < ids.size
        at, wanted = at[inside], wanted[inside]
        out[at[ids[at] == wanted]] = True
    return out


def _rankings(project: Project) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Each model's stored ranking, read once: the candidate ids (ascending), each model's
    scores in that order, and each model's candidate ids best first."""
    rankings = {m.name: model_ranking(project, m) for m in project.models}
    size = int(max((r[0].max() for r in rankings.values() if r[0].size), default=0)) + 1
    # The ids in ascending order, by marking rather than sorting (a ranking holds each
    # candidate once): a pass over the pool instead of a sort of it.
    present = np.zeros(size, dtype=bool)
    present[next(iter(rankings.values()))[0]] = True
    ids = np.flatnonzero(present)
    scores = {}
    for name, (rank_ids, values) in rankings.items():
        by_id = np.full(max(size, 1), np.nan)
        by_id[rank_ids] = values
        scores[name] = by_id[ids]
    return ids, scores, {name: r[0] for name, r in rankings.items()}


def _positions(ids: np.ndarray, rank_ids: np.ndarray, keep: np.ndarray) -> np.ndarray | None:
    """Where a model's candidates, best first, sit among the kept ``ids`` (None: no match)."""
    if rank_ids.size != ids.size:
        return None
    if ids.size and ids[-1] - ids[0] == ids.size - 1:  # ids 1..N, the usual case: no search
        at = rank_ids - ids[0]
    else:
        at = np.minimum(np.searchsorted(ids, rank_ids), ids.size - 1)
    if keep.all():  # gold labels: every candidate is judged
        return at
    return (np.cumsum(keep) - 1)[at[keep[at]]]


# The last inputs read in this process, with the state of the file they were read from:
# the lead window asks for the metrics, then the value tables, then the tests, and the
# later steps reuse the first one's reading while the file has not changed.
_last: dict[str, Any] = {}


def file_state(path: str | Path) -> tuple[Any, ...]:
    """What changes whenever anything is written to the project file.

    The size, time and inode of the file and of its write-ahead log (every commit appends
    to the log, every checkpoint writes the file).
    """
    out: list[Any] = []
    for part in (Path(path), Path(f"{path}-wal")):
        try:
            st = part.stat()
        except OSError:
            out.append(None)
        else:
            out.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(out)


def cached_models_inputs(path: str | Path, offline_curves: dict[str, np.ndarray] | None = None,
                         *, reuse: bool = False) -> ModelsInputs:
    """:func:`models_inputs` of the project at ``path``, opened here.

    With ``reuse``, the last ones this process read of the same file if it has not changed
    since.
    """
    from triage.project.files import open_for_reading

    key = str(Path(path).resolve())
    state = file_state(path)   # before reading: a write during the read is a change
    last = _last.get(key)
    if reuse and last is not None and last[0] == state:
        return last[1]
    with open_for_reading(path) as project:
        inputs = models_inputs(project, offline_curves)
    _last.clear()
    _last[key] = (state, inputs)
    return inputs


def models_inputs(project: Project,
                  offline_curves: dict[str, np.ndarray] | None = None) -> ModelsInputs:
    """Read scores, positives (gold, else the final labels so far) and settings.

    ``offline_curves``: the project's, when the caller has them already (a pool scan)."""
    from triage.project.summary import gold_positive_flags

    s = project.settings
    if not project.models:
        raise TriageError("the project has no model scores to compare")
    ids, scores, rank_ids = _rankings(project)
    finals = project.final_labels()
    # "Labeled" for the evaluation set means a final label; "unlabeled" for the acceptance
    # advice means nobody has labeled it at all (a tie has been looked at already). Flags
    # are set from the (few) final labels, never by a Python loop over the pool.
    labeled = _flags(ids, [c for c, f in finals.items() if f.value is not None])
    seen = _flags(ids, [c for c, f in finals.items() if f.votes])
    warnings: list[str] = []
    # Read once, for the positives here and for the offline curves.
    flags = gold_positive_flags(project) if project.has_gold() else None
    if flags is not None:
        positive = flags[ids]
        keep, labels_from = np.ones(ids.size, dtype=bool), "gold"
    else:
        wanted = set(s.positive_labels)
        positive = _flags(ids, [c for c, f in finals.items() if f.value in wanted])
        keep, labels_from = labeled, "labels"
        if s.queue_mode == "follow" and s.active_model:
            from triage.ingest.scored import followed_warning

            # The core's wording speaks of gold labels; here they are the project's own.
            warnings.append(followed_warning(s.active_model).replace(
                "gold labels came", "the labels so far came", 1))
        elif s.queue_mode != "follow":
            warnings.append("labels came from a bandit choosing among the models' rankings: the "
                            "labeled items are each model's top picks, not a random sample, so "
                            "the figures favour the models that were followed most.")
    if s.price_model == "per_item":
        price = s.price_per_item
    else:  # the live state is read only for this (a replay of every label event)
        snap = project.snapshot()
        price = snap.spend / snap.events if snap.events else 0.0
    belief = project.bandit_belief() if s.queue_mode != "follow" else None
    return ModelsInputs(
        models=tuple(scores), scores={m: v[keep] for m, v in scores.items()},
        positive=positive[keep], labels_from=labels_from,
        unlabeled_scores={m: v[~seen] for m, v in scores.items()},
        orders={m: o for m, r in rank_ids.items()
                if (o := _positions(ids, r, keep)) is not None},
        # The project's offline curves, from the rankings and gold labels read above.
        offline_curves=({m: np.cumsum(flags[r], dtype=np.int32).astype(np.int64)
                         for m, r in rank_ids.items()}
                        if offline_curves is None and flags is not None else
                        offline_curves or {}), pool=project.pool, price=price,
        budget=s.budget, currency=s.currency, active_model=s.active_model,
        queue_mode=s.queue_mode, bandit=_bandit_dict(belief), warnings=tuple(warnings),
    )
