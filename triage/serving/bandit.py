"""Queue mode "bandit"/"pets": learn which model's ranking to follow while labeling.

Each model's frozen ranking is an arm; pulling an arm serves that model's best-ranked
candidate nobody has handled; a positive label is the reward (seed 003, Haffari et al.).
Thompson sampling picks the arm ("bandit"); the pure-exploration variant ("pets") plays
the sampled best arm only with probability β and otherwise another arm, to find the best
ranking with fewer labels. Counts are discounted so that an arm whose ranking has been
worked down (and whose yield is falling) loses its early lead.

The arm that served each label is stored with it (``labels.served_by``), so every desk
rebuilds the same belief from the file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sqlite_utils

from triage.base.labels import LabelEvent
from triage.serving.calqueue import ARM, CalQueue
from triage.serving.queue import RankedQueue
from triage.stats.models.bandit import BanditAllocator
from triage.store.records import ModelInfo, ranking
from triage.store.settings import Settings

DISCOUNT = 0.99
PETS_BETA = 0.5
DELTA = 0.05


@dataclass(frozen=True)
class BanditBelief:
    """What the allocator believes now: shown to the lead."""

    mode: str
    p_best: dict[str, float]
    pulls: dict[str, int]
    posterior_mean: dict[str, float]
    decided: str | None
    delta: float


class BanditQueue:
    """Serves fresh candidates from the arm the allocator chooses."""

    def __init__(self, db: sqlite_utils.Database, models: list[ModelInfo], settings: Settings,
                 is_handled: Callable[[int], bool], cal: CalQueue | None = None) -> None:
        self.mode = settings.queue_mode
        self.settings = settings
        self.queues: dict[str, RankedQueue | CalQueue] = {}
        for m in models:
            order, scores = ranking(db, m.id)
            self.queues[m.name] = RankedQueue(order, scores, is_handled)
        if cal is not None and ARM not in self.queues:
            self.queues[ARM] = cal   # the learned ranking is one more arm
        self._fresh_allocator()

    def _fresh_allocator(self) -> None:
        beta = PETS_BETA if self.mode == "pets" else 1.0
        self.allocator = BanditAllocator(list(self.queues), beta=beta, discount=DISCOUNT,
                                         seed=self.settings.seed)

    def fold(self, rows: list[LabelEvent]) -> None:
        """Count newly recorded labels that an arm served (skips give no reward signal)."""
        for row in rows:
            if row.served_by in self.queues and row.value is not None:
                self.allocator.update(row.served_by, self.settings.is_positive(row.value))

    def rebuild(self, rows: list[LabelEvent]) -> None:
        """Start over from the active labels (after an undo of a served label)."""
        self._fresh_allocator()
        self.fold(sorted(rows, key=lambda r: r.id))

    def rewind(self, ranks_by_model: dict[str, int]) -> None:
        """Let each named model's queue scan again from the given rank (a candidate was undone)."""
        for name, rank in ranks_by_model.items():
            self.queues[name].rewind(rank)

    def choose(self, taken: frozenset[int]) -> tuple[str, int] | None:
        """(arm, candidate id) of the next fresh candidate, or None when all are handled."""
        heads = {}
        for name, queue in self.queues.items():
            found = queue.peek(1, skip=taken)
            if found:
                heads[name] = found[0][1]
        if not heads:
            return None
        arm = self.allocator.choose([a for a in self.queues if a in heads])
        return arm, heads[arm]

    def belief(self) -> BanditBelief:
        """What the allocator believes now, for the lead's view."""
        post = self.allocator.posterior()
        return BanditBelief(
            mode=self.mode, p_best=self.allocator.p_best(), pulls=self.allocator.pulls(),
            posterior_mean={k: a / (a + b) for k, (a, b) in post.items()},
            decided=self.allocator.decided(DELTA), delta=DELTA,
        )
