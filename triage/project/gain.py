"""Reports over a whole project file, for commands that also accept plain files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.project import kept_rankings
from triage.project.summary import gold_positive_flags
from triage.store import candidates

if TYPE_CHECKING:
    from triage.project.core import Project


def project_scores(project: Project) -> dict[str, tuple[str, np.ndarray]]:
    """{model: (source column, scores in candidate-id order 1..N)}."""
    return {name: (column, scores) for name, (column, scores, _) in project_rankings(project).items()}


def project_rankings(project: Project) -> dict[str, tuple[str, np.ndarray, np.ndarray]]:
    """{model: (source column, scores in candidate-id order 1..N, its stored ranking)}.

    The ranking lists 0-based indices into those scores, rank 1 first (ties in the seeded
    order frozen at import)."""
    out = {}
    for m in project.models:
        ids, values = kept_rankings.ranking(project.db, m.id)
        by_id = np.full(int(ids.max()) + 1 if ids.size else 1, np.nan)
        by_id[ids] = values
        out[m.name] = (m.source_column or m.name, by_id[1:], ids - 1)
    return out


def project_positives(project: Project, positive_values: list[str] | None = None) -> tuple[np.ndarray, str]:
    """Positive flags in candidate-id order, and where they come from (gold or labels)."""
    wanted = set(positive_values or project.settings.positive_labels)
    # Candidate ids are 1..N: flags are set by id, never by a Python loop over the pool.
    flags = np.zeros(project.pool + 1, dtype=bool)
    if project.has_gold():
        if wanted == set(project.settings.positive_labels):
            return gold_positive_flags(project)[1:project.pool + 1].copy(), "gold"
        flags[candidates.ids_with_gold(project.db, sorted(wanted))] = True
        return flags[1:], "gold"
    finals = project.final_labels()
    positive = [cid for cid, final in finals.items() if final.value in wanted]
    flags[np.asarray(positive, dtype=np.int64)] = True
    return flags[1:], "labels so far (unlabeled candidates count as negative)"


def gain_report(path: str | Path, args: argparse.Namespace) -> dict[str, Any]:
    """``triage gain PROJECT``: the offline gain report from the project's own data."""
    from triage.project.files import open_project

    with open_project(path) as project:
        return project_gain_report(
            project, models=[name for name, _ in args.score] or None,
            positive=args.positive or None, cost=args.cost, budget=args.budget,
            after_deciles=args.after_deciles, file=str(path))


def project_gain_report(project: Project, *, models: list[str] | None = None,
                        positive: list[str] | None = None, cost: float | None = None,
                        budget: float | None = None, after_deciles: int | None = None,
                        file: str | None = None) -> dict[str, Any]:
    """The ``gain --json`` report of an open project (defaults: the project's settings)."""
    from triage.stats.gain.report import build_report

    s = project.settings
    ranked = project_rankings(project)
    if models:
        ranked = {k: v for k, v in ranked.items() if k in set(models)}
    flags, source = project_positives(project, positive)
    data = build_report({name: (column, scores) for name, (column, scores, _) in ranked.items()},
                        flags, cost_per_item=s.price_per_item if cost is None else cost,
                        budget=s.budget if budget is None else budget,
                        after_deciles=after_deciles, currency=s.currency,
                        orders={name: order for name, (_, _, order) in ranked.items()})
    return {"file": file or project.location, "labels_from": source, **data}
