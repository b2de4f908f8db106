"""Queue mode "bandit"/"pets": learn which model's ranking to follow while labeling.

Each model's frozen ranking is an arm; pulling an arm serves that model's best-ranked
candidate nobody has handled; a positive label is the reward (seed 003, Haffari et al.).
Thompson sampling picks the arm ("bandit"); the pure-exploration variant ("pets") plays
the sampled best arm only with probability β and otherwise another arm, to find the best
ranking with fewer labels. Counts are discounted so that an arm whose ranking has been
worked down (and whose yield is falling) loses its early lead.

The arm that served each label is stored with it (``labels.served_by``), so every desk
rebuilds the same belief from the file.

With the learned ``cal`` ranking among the arms the allocator holds an incumbent (see
:mod:`triage.stats.models.bandit`): it follows the baseline (the active model, else the
first) until another arm is likely enough to yield more, and a label counts for every arm
whose ranking had it next. A label served where cal's head and the followed arm's head
agree is stored as served by cal; an imported arm's share is worked out again from its
frozen ranking and the labels before it. The choice then depends on the stored labels
only, so every desk of a team serves the same arm.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sqlite_utils

from triage.base.labels import LabelEvent
from triage.serving.calqueue import ARM, CalQueue
from triage.serving.queue import RankedQueue
from triage.stats.models.bandit import HOLD, BanditAllocator
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
        self.fixed: dict[str, RankedQueue] = {}
        for m in sorted(models, key=lambda m: m.name != settings.active_model):  # baseline first
            order, scores = ranking(db, m.id)
            self.queues[m.name] = self.fixed[m.name] = RankedQueue(order, scores, is_handled)
        if cal is not None and ARM not in self.queues:
            self.queues[ARM] = cal   # the learned ranking is one more arm
        self.hold = HOLD if ARM in self.queues else None
        self._fresh_allocator()

    def _fresh_allocator(self) -> None:
        beta = PETS_BETA if self.mode == "pets" else 1.0
        self.allocator = BanditAllocator(list(self.queues), beta=beta, discount=DISCOUNT,
                                         seed=self.settings.seed, hold=self.hold)
        self._seen: set[int] = set()   # candidates labeled so far, in the order folded
        self._ptr = dict.fromkeys(self.fixed, 0)

    def _fixed_head(self, name: str) -> int | None:
        """The frozen ranking's best candidate among those not labeled before the row folded."""
        order = self.fixed[name].order
        i = self._ptr[name]
        while i < order.size and int(order[i]) in self._seen:
            i += 1
        self._ptr[name] = i
        return int(order[i]) if i < order.size else None

    def fold(self, rows: list[LabelEvent]) -> None:
        """Count newly recorded labels for the arms that served them (skips give no reward)."""
        for row in rows:
            if row.served_by in self.queues and row.value is not None:
                arms = [row.served_by]
                if self.hold is not None:  # shared credit: every frozen ranking it headed
                    arms += [n for n in self.fixed if self._fixed_head(n) == row.candidate_id]
                self.allocator.credit(arms, self.settings.is_positive(row.value))
            self._seen.add(row.candidate_id)

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
        if self.hold is not None and heads.get(ARM) == heads[arm]:
            arm = ARM  # cal agrees with the arm followed: the label counts for cal too
        return arm, heads[arm]

    def belief(self) -> BanditBelief:
        """What the allocator believes now, for the lead's view."""
        post = self.allocator.posterior()
        return BanditBelief(
            mode=self.mode, p_best=self.allocator.p_best(), pulls=self.allocator.pulls(),
            posterior_mean={k: a / (a + b) for k, (a, b) in post.items()},
            decided=self.allocator.decided(DELTA), delta=DELTA,
        )
