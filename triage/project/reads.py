"""What the view models read of an open project besides its facade, so that no view reaches
past the project into the store: candidates' rows, a model's stored ranking, and the label
events the project follows."""

from __future__ import annotations

import numpy as np

from triage import store
from triage.base.labels import LabelEvent
from triage.project import kept_rankings
from triage.project.state import HasState


def candidate_rows(project: HasState, ids: list[int]) -> dict[int, tuple]:
    """(key, text, meta, gold) of the given candidates."""
    return store.candidate_rows(project.state.db, ids)


def model_ranking(project: HasState, model: store.ModelInfo) -> tuple[np.ndarray, np.ndarray]:
    """A model's stored ranking: (candidate ids best first, their scores)."""
    return kept_rankings.ranking(project.state.db, model.id)


def label_events(project: HasState) -> list[LabelEvent]:
    """Every label event not undone, oldest first, as the project follows them."""
    return project.state.events()
