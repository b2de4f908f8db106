"""Work the desk runs on other threads: the live state (built here, then handed to the
project), the offline curves and checkpoints.

Rebuilding the live gain and spend state replays every label event (a few hundred
milliseconds at 10,000 labels), which the desk must not wait for. :func:`live_inputs`
copies what the rebuild needs from the open project (quick, on the project's thread);
:func:`build_live` replays it anywhere, touching neither the project nor its connection;
:func:`adopt_live`, back on the project's thread, checks that nothing the build relied on
has changed, folds in the labels recorded meanwhile and installs the state. When anything
did change (an undo, new settings or prices) it declines, and the project rebuilds lazily
as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from triage import store
from triage.project.live_replay import ranked_labels, replay
from triage.stats.live import LiveState, RankedLabel
from triage.store.settings import Settings

if TYPE_CHECKING:
    from triage.project.core import Project


@dataclass(frozen=True)
class LiveInputs:
    """What a rebuild of the live state reads, copied from the open project."""

    pool: int
    rows: tuple[store.LabelEvent, ...]  # the active label events, oldest first
    ranks: np.ndarray                 # candidate id -> rank under the active model
    settings: Settings
    hourly_rates: dict[str, float]


@dataclass(frozen=True)
class BuiltLive:
    """A live state built from :class:`LiveInputs`, waiting to be adopted."""

    inputs: LiveInputs
    state: LiveState
    events: dict[int, RankedLabel]


def live_inputs(project: Project) -> LiveInputs | None:
    """Copy what the live state is built from (None: already built, or nothing to build)."""
    state = project.state
    if not state.models or state.built_live() is not None:
        return None
    state.refresh()
    rows = tuple(sorted(state.tracker.rows.values(), key=lambda r: r.id))
    s = state.settings
    return LiveInputs(state.pool, rows, state.ranking().ranks, s,
                      store.hourly_rates(state.db, s.default_hourly_rate))


def build_live(inputs: LiveInputs) -> BuiltLive:
    """Replay the events into a fresh live state (any thread; the project is not touched)."""
    s = inputs.settings
    events = ranked_labels(inputs.rows, inputs.ranks, s)
    state = replay(inputs.pool, events, price_model=s.price_model,
                   price_per_item=s.price_per_item, hourly_rates=inputs.hourly_rates,
                   budget=s.budget, value_per_positive=s.value_per_positive,
                   currency=s.currency)
    return BuiltLive(inputs, state, {e.event_id: e for e in events})


def adopt_live(project: Project, built: BuiltLive) -> bool:
    """Install a state built elsewhere, plus the labels recorded since; False if stale."""
    state = project.state
    state.refresh()
    if state.built_live() is not None:
        return True
    inputs = built.inputs
    if (state.settings != inputs.settings or state.pool != inputs.pool
            or state.ranking().ranks is not inputs.ranks
            or store.hourly_rates(state.db, state.settings.default_hourly_rate)
            != inputs.hourly_rates):
        return False
    upto = inputs.rows[-1].id if inputs.rows else 0
    rows = state.tracker.rows
    if {i for i in rows if i <= upto} != set(built.events):
        return False  # an undo (here or at another desk) since the copy: rebuild lazily
    live, events = built.state, dict(built.events)
    for label_id in sorted(i for i in rows if i > upto):
        event = state.ranked(rows[label_id])
        live.apply(event)
        events[label_id] = event
    state.install_live(live, events)
    return True


def offline_curves_at(path: str | Path) -> dict[str, np.ndarray]:
    """Open the project at ``path`` on this thread, read its offline curves, close it.

    A scan of the whole pool: the desk runs it on a worker thread with its own connection.
    """
    from triage.project.files import open_for_reading

    with open_for_reading(path) as project:
        return project.offline_curves()


def checkpoint_at(path: str | Path) -> None:
    """Fold the project's write-ahead log into the file from a connection of this thread."""
    from triage.store import connection

    database, _backup = connection.open_database(path)
    try:
        connection.checkpoint(database)
    finally:
        database.close()


def serving_warmup(project: Project) -> Callable[[], None]:
    """Work for another thread: what serving builds on first use, prepared in advance.

    That is the audit order of the whole pool, so that no key press waits for it."""
    return project.dispatcher.audit_job()
