"""Bringing candidates into a project: the pool from a file, and later models' scores.

Both run as one transaction in :mod:`triage.ingest.importer` (all or nothing); a pool
import stores the overlap plan in that transaction too, when overlap is on, and the open
project then reloads its models. The importer is imported on first use, so opening a
project for the desk stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from triage.project.state import HasState
from triage.project.types import Progress

if TYPE_CHECKING:
    from triage.ingest.importer import ColumnMapping, ImportResult


def import_file(project: HasState, path: str | Path, mapping: ColumnMapping, *,
                skip_invalid: bool = False, progress: Progress | None = None) -> ImportResult:
    """Import the candidate pool (one transaction: all or nothing)."""
    from triage.ingest.importer import import_candidates

    state = project.state
    db = state.writer.import_target("import a pool into")
    result = import_candidates(db, path, mapping, skip_invalid=skip_invalid,
                               progress=progress, seed=state.settings.seed,
                               plan=_overlap(project, [m for m, _ in mapping.scores]))
    state.reload()
    return result


def _overlap(project: HasState, models: list[str]) -> Callable[[Any], Any] | None:
    """The overlap plan for the import to store with the active model's ranking.

    It is the plan the dispatcher would draw when first built (it then finds it stored),
    drawn from the ranking in hand and stored in the import's own transaction: no
    second commit, no ranking read back, no dispatcher built for a command that exits.
    """
    settings = project.state.settings
    if settings.overlap_rate <= 0 or not models:
        return None
    from triage.serving.dispatcher import overlap_plan

    active = settings.active_model if settings.active_model in models else models[0]
    return lambda model: (overlap_plan(model.candidate_ids, settings.overlap_rate,
                                       settings.seed) if model.name == active else None)


def add_scores(project: HasState, path: str | Path, *, key: str, scores: list[tuple[str, str]],
               progress: Progress | None = None) -> ImportResult:
    """Add later models' scores, matched by key; labels are untouched."""
    from triage.ingest.importer import add_scores as import_scores

    state = project.state
    db = state.writer.import_target("add scores to")
    result = import_scores(db, path, key=key, scores=scores, progress=progress,
                           seed=state.settings.seed)
    state.reload()
    return result
