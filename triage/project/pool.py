"""Bringing candidates into a project: the pool from a file, and later models' scores.

Both run as one transaction in :mod:`triage.ingest.importer` (all or nothing); the open
project then reloads its models and, when overlap is on, re-plans the overlap sample.
The importer (and pandas with it) is imported on first use, so opening a project for the
desk stays cheap.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from triage.project.types import Progress

if TYPE_CHECKING:
    from triage.ingest.importer import ColumnMapping, ImportResult
    from triage.project.core import Project


def import_file(project: Project, path: str | Path, mapping: ColumnMapping, *,
                skip_invalid: bool = False, progress: Progress | None = None) -> ImportResult:
    """Import the candidate pool (one transaction: all or nothing)."""
    from triage.ingest.importer import import_candidates

    result = import_candidates(project.db, path, mapping, skip_invalid=skip_invalid,
                               progress=progress, seed=project.settings.seed)
    project.reload_models()
    if project.settings.overlap_rate > 0:
        _draw_overlap(project)
    return result


def _draw_overlap(project: Project) -> None:
    """Draw the overlap plan now, as the dispatcher would when first built (it then finds
    it stored); building the dispatcher itself (and the bandit over every ranking) is
    left to the first desk, so an import does not pay for it."""
    from triage import store
    from triage.serving.dispatcher import overlap_plan
    from triage.store import claims

    model = project.active_model()
    if model is None:
        return
    order = store.rank_order(project.db, model.id)
    claims.replace_overlap_plan(project.db, overlap_plan(order, project.settings.overlap_rate,
                                                         project.settings.seed))


def add_scores(project: Project, path: str | Path, *, key: str, scores: list[tuple[str, str]],
               progress: Progress | None = None) -> ImportResult:
    """Add later models' scores, matched by key; labels are untouched."""
    from triage.ingest.importer import add_scores as import_scores

    result = import_scores(project.db, path, key=key, scores=scores, progress=progress,
                           seed=project.settings.seed)
    project.reload_models()
    return result
