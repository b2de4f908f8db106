"""Choosing whose ranking to follow with a multi-armed bandit (seed 003: Haffari, Tran &
Carman, "Efficient Benchmarking of NLP APIs using Multi-armed Bandits", EACL 2017).

Each model's ranking is an arm. Pulling an arm labels that model's best-ranked candidate
not labeled yet; the reward is 1 when it is positive. Each arm's yield has a Beta
posterior. Thompson sampling (TS) plays the arm whose posterior draw is highest; pure-
exploration TS (PETS, Russo 2016; seed 003 §2.1, Algorithm 1) plays that arm with
probability β and otherwise redraws until a different arm comes out (β = 1 is plain TS).
Exploration stops when the posterior probability that one arm is best reaches 1 - δ.

Yield falls as a ranking is worked down, so evidence is discounted: each pull of an arm
multiplies that arm's past counts by γ (``discount``) before adding the new label, which
keeps the posterior about the arm's *current* yield (γ = 1: no discount).

**Holding an incumbent** (``hold``, for a learned ranking among the arms). Thompson
sampling between two rankings that are about as good alternates between them, and that
costs labels: the positives a target recall still needs are the ones *both* rankings put
deep, and reaching depth d along either one then costs the union of both heads, more than
d labels as soon as the heads differ. With ``hold`` the allocator is conservative (in the
spirit of Wu et al. 2016, "Conservative bandits"): it follows one arm, the incumbent
(first the baseline, the first arm), and moves to another only once the posterior
probability that the other's current yield is higher reaches ``hold``. The evidence for an
arm it does not follow comes from shared credit: a label counts for every arm whose ranking
had that candidate next (``credit``), so a learned ranking that agrees with the followed
one gathers evidence without being played, and the followed arm alone answers for the
candidates only it would serve. Only an arm that has counted ``EVIDENCE`` labels
(discounted) can move the incumbent: an arm played once at the start, when every yield was
high, would otherwise look better than the worked-down arm followed, and a switch to it is
paid in labels. The choice is a function of the labels alone (no random draws), so every
desk of a team serves the same arm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

_REDRAWS = 1024  # PETS redraw cap; then a uniformly random other arm is played
_REDRAW_BATCH = 64
HOLD = 0.75  # P(another arm yields more) that moves an allocator holding an incumbent
EVIDENCE = 10.0  # labels (discounted) an arm must have counted before it can move the incumbent


def p_better(a1: float, b1: float, a2: float, b2: float) -> float:
    """P(X1 > X2) for independent X1 ~ Beta(a1, b1), X2 ~ Beta(a2, b2) (normal approximation)."""
    m1, m2 = a1 / (a1 + b1), a2 / (a2 + b2)
    var = (a1 * b1 / ((a1 + b1) ** 2 * (a1 + b1 + 1))
           + a2 * b2 / ((a2 + b2) ** 2 * (a2 + b2 + 1)))
    return 0.5 * (1.0 + math.erf((m1 - m2) / math.sqrt(2.0 * var + 1e-300)))


def ranking(scores: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Indices by descending score; ties in random (seeded) order, never input order."""
    s = np.asarray(scores, dtype=np.float64)
    return np.lexsort((rng.random(s.size), -s))


class BanditAllocator:
    """Stateful Thompson / PETS allocator over named arms with Beta(1, 1) priors."""

    def __init__(self, arms: list[str], *, beta: float = 1.0, discount: float = 1.0, seed: int = 0,
                 samples: int = 4000, hold: float | None = None):
        if not arms or len(set(arms)) != len(arms):
            raise ValueError("arms must be distinct names, at least one")
        if not 0.0 < beta <= 1.0 or not 0.0 < discount <= 1.0:
            raise ValueError("beta and discount must be in (0, 1]")
        if hold is not None and not 0.5 <= hold < 1.0:
            raise ValueError("hold must be in [0.5, 1)")
        self.arms = list(arms)
        self.hold = hold
        self.incumbent = 0  # the arm followed when holding (the baseline first)
        self.beta = beta
        self.discount = discount
        self.samples = samples
        self._a = np.ones(len(arms))  # 1 + discounted positives
        self._b = np.ones(len(arms))  # 1 + discounted negatives
        self._pulls = np.zeros(len(arms), dtype=np.int64)
        self._rng = np.random.default_rng(seed)
        # A separate stream for P(best), so asking for it never changes the choices made.
        self._mc = np.random.default_rng([seed, 1])

    def _index(self, arm: str) -> int:
        try:
            return self.arms.index(arm)
        except ValueError:
            raise KeyError(f"unknown arm {arm!r}") from None

    def choose(self, available: list[str] | None = None) -> str:
        """The next arm to pull (each available arm once first, as Algorithm 1 initialises)."""
        idx = np.arange(len(self.arms)) if available is None else np.array([self._index(a) for a in available])
        if idx.size == 0:
            raise ValueError("no arm is available")
        unpulled = idx[self._pulls[idx] == 0]
        if unpulled.size:
            return self.arms[int(unpulled[0])]
        if self.hold is not None:
            if self.incumbent in idx:
                return self.arms[self.incumbent]
            means = self._a[idx] / (self._a[idx] + self._b[idx])
            return self.arms[int(idx[int(np.argmax(means))])]
        first = idx[int(np.argmax(self._rng.beta(self._a[idx], self._b[idx])))]
        if self.beta >= 1.0 or idx.size == 1 or self._rng.random() <= self.beta:
            return self.arms[int(first)]
        # Redraw in vectorised batches: with a dominant arm a different winner is rare.
        for _ in range(_REDRAWS // _REDRAW_BATCH):
            draws = self._rng.beta(self._a[idx], self._b[idx], size=(_REDRAW_BATCH, idx.size))
            winners = idx[np.argmax(draws, axis=1)]
            others = winners[winners != first]
            if others.size:
                return self.arms[int(others[0])]
        rest = idx[idx != first]
        return self.arms[int(self._rng.choice(rest))]

    def update(self, arm: str, positive: bool) -> None:
        """Record one label obtained by pulling ``arm``."""
        self.credit([arm], positive)

    def credit(self, arms: list[str], positive: bool) -> None:
        """Record one label for every arm whose ranking had that candidate next."""
        idx = sorted({self._index(arm) for arm in arms})
        g = self.discount
        for i in idx:
            self._a[i] = 1.0 + g * (self._a[i] - 1.0) + float(bool(positive))
            self._b[i] = 1.0 + g * (self._b[i] - 1.0) + float(not positive)
            self._pulls[i] += 1
        if self.hold is not None:
            self._challenge()

    def _challenge(self) -> None:
        """Move to the arm most likely to yield more than the incumbent, if likely enough."""
        inc = self.incumbent
        seen = self._a + self._b - 2.0
        odds = [(p_better(self._a[j], self._b[j], self._a[inc], self._b[inc]), j)
                for j in range(len(self.arms)) if j != inc and seen[j] >= EVIDENCE]
        if odds and self._pulls[inc] > 0:
            best, j = max(odds)
            if best >= float(self.hold or 1.0):
                self.incumbent = j

    def posterior(self) -> dict[str, tuple[float, float]]:
        """Beta parameters (a, b) per arm."""
        return {arm: (float(a), float(b)) for arm, a, b in zip(self.arms, self._a, self._b)}

    def pulls(self) -> dict[str, int]:
        """Labels obtained per arm."""
        return {arm: int(n) for arm, n in zip(self.arms, self._pulls)}

    def p_best(self) -> dict[str, float]:
        """Monte Carlo probability that each arm has the highest yield."""
        draws = self._mc.beta(self._a, self._b, size=(self.samples, len(self.arms)))
        wins = np.bincount(np.argmax(draws, axis=1), minlength=len(self.arms))
        return {arm: float(w / self.samples) for arm, w in zip(self.arms, wins)}

    def decided(self, delta: float = 0.05) -> str | None:
        """The arm whose P(best) reaches 1 - δ, if any."""
        if np.any(self._pulls == 0):
            return None
        best = max(self.p_best().items(), key=lambda kv: kv[1])
        return best[0] if best[1] >= 1.0 - delta else None


@dataclass(frozen=True)
class BanditRun:
    """A backtest of one strategy on labeled data."""

    order: np.ndarray  # candidate indices in labeling order
    arms: list[str]  # arm pulled for each label (the followed model for fixed strategies)
    decided_arm: str | None  # arm that reached P(best) >= 1 - δ
    decided_at: int | None  # number of labels when it did
    p_best: dict[str, float]  # at the end of the run (empty for fixed strategies)
    positives: int


def _follow(order: np.ndarray, gold: np.ndarray, name: str, budget: int) -> BanditRun:
    chosen = order[:budget]
    return BanditRun(chosen, [name] * chosen.size, None, None, {}, int(gold[chosen].sum()))


def run_bandit(
    scores: dict[str, np.ndarray], gold: np.ndarray, strategy: str, *, budget: int | None = None,
    seed: int = 0, beta: float = 0.5, discount: float = 0.99, delta: float = 0.05,
    commit: bool = True, check_every: int = 10,
) -> BanditRun:
    """Simulate labeling with ``strategy``: "follow:NAME", "bandit" (TS), "pets" or "random-model".

    With ``commit`` the bandit follows the decided arm once P(best) >= 1 - δ.
    """
    gold = np.asarray(gold).astype(bool).ravel()
    n = gold.size
    names = list(scores)
    if not names:
        raise ValueError("no models to choose from")
    for name in names:
        if np.asarray(scores[name]).size != n:
            raise ValueError(f"{name}: {np.asarray(scores[name]).size} scores for {n} gold labels")
    budget = n if budget is None else max(0, min(int(budget), n))
    rng = np.random.default_rng(seed)
    ranks = {name: ranking(scores[name], rng) for name in names}
    if strategy.startswith("follow:"):
        name = strategy.partition(":")[2]
        if name not in ranks:
            raise ValueError(f"unknown model {name!r} in strategy {strategy!r}")
        return _follow(ranks[name], gold, name, budget)
    if strategy == "random-model":
        name = names[int(rng.integers(len(names)))]
        return _follow(ranks[name], gold, name, budget)
    if strategy not in ("bandit", "pets"):
        raise ValueError(f"unknown strategy {strategy!r}")
    alloc = BanditAllocator(names, beta=1.0 if strategy == "bandit" else beta, discount=discount,
                            seed=int(rng.integers(2**31)))
    labeled = np.zeros(n, dtype=bool)
    ptr = dict.fromkeys(names, 0)
    order: list[int] = []
    arms: list[str] = []
    decided = decided_at = None
    while len(order) < budget:
        if decided is not None and commit:
            rest = ranks[decided][~labeled[ranks[decided]]][: budget - len(order)]
            order.extend(rest.tolist())
            arms.extend([decided] * rest.size)
            break
        for name in names:  # skip candidates another arm already had labeled
            r = ranks[name]
            while ptr[name] < n and labeled[r[ptr[name]]]:
                ptr[name] += 1
        arm = alloc.choose([m for m in names if ptr[m] < n])
        item = int(ranks[arm][ptr[arm]])
        labeled[item] = True
        order.append(item)
        arms.append(arm)
        alloc.update(arm, bool(gold[item]))
        if decided is None and len(order) % check_every == 0:
            decided = alloc.decided(delta)
            decided_at = len(order) if decided is not None else None
    out = np.asarray(order, dtype=np.int64)
    return BanditRun(out, arms, decided, decided_at, alloc.p_best(), int(gold[out].sum()))


def labeling_order(
    scores: dict[str, np.ndarray], gold: np.ndarray, strategy: str, *, budget: int | None = None,
    seed: int = 0, beta: float = 0.5, discount: float = 0.99,
) -> np.ndarray:
    """Candidate indices in the order ``strategy`` would have them labeled (for backtests)."""
    return run_bandit(scores, gold, strategy, budget=budget, seed=seed, beta=beta, discount=discount).order
