"""The live state the desk and ``triage status`` draw from: what the money has bought so far.

Qt-free and database-free: the project layer feeds label events in (``apply``), each as a
:class:`RankedLabel` (its rank and the project's verdict), takes them back on undo (``revert``), and asks for a cheap immutable :class:`LiveSnapshot` after each.

Counting rules (documented in the README):

* ``events`` counts decisions, ``label_events`` the non-skip ones, ``skipped`` the skips.
* A candidate is **annotated** when it has at least one active non-skip label; it counts
  once however many annotators labeled it (overlap, audit, retest, adjudication).
* A candidate is **positive** when its latest active non-skip label (highest ``event_id``)
  says so; the project layer decides what ``positive`` means for an adjudicated item.
* A candidate is **visited** when it is annotated or has an active skip.
* **Spend** counts every decision, skips and overlap/audit/retest labels included, so the
  price of measuring agreement is visible: per item = price × events; per hour =
  Σ seconds × the annotator's hourly rate / 3600. Seconds are kept as integer
  microseconds so undo restores sums exactly. A curator's **ruling** (adjudication) is
  not annotation: it costs nothing per item, and per hour only at the curator's own
  rate; a curator who only ruled, unpaid, is left out of the spend per annotator.
* ``current_decile`` is the first decile with an unvisited candidate (the one a top-down
  annotator is working through; random audit labels deep in the ranking do not move it),
  or ``None`` when every candidate has been visited.
* Per-annotator ``positives`` count the positive candidates credited to the annotator: a
  candidate's credit is its latest label's ``credit`` (or that label's annotator), so an
  annotator who said "no" is never credited and the per-annotator positives add up to
  ``positives_found``.
* A **correction** (``replaces``: a history change) is no new decision: events, labels,
  skips and per-item spend count decisions, the latest event per annotator and candidate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Unpack

import numpy as np

from triage.stats.common import DECILES, decile_sizes
from triage.stats.live_types import DecileLive as DecileLive
from triage.stats.live_types import LiveSnapshot as LiveSnapshot
from triage.stats.live_types import PriceSettings as PriceSettings
from triage.stats.live_types import RankedLabel as RankedLabel

KINDS = frozenset({"triage", "overlap", "audit", "retest", "adjudication", "certify"})
PRICE_MODELS = frozenset({"per_item", "per_hour"})
_SETTINGS = frozenset({"price_model", "price_per_item", "hourly_rates", "budget",
                       "value_per_positive", "currency", "total_positives_hint"})
_EVENTS, _LABELS, _SKIPS, _POSITIVES, _MICROS, _RULINGS = range(6)
RULING = "adjudication"   # a curator's ruling: a decision, not a paid annotation


class LiveState:
    """Incremental gain/spend state over one pool ranked by the active model."""

    def __init__(self, pool_size: int, *, price_model: str = "per_item",
                 price_per_item: float = 0.0, hourly_rates: dict[str, float] | None = None,
                 budget: float | None = None, value_per_positive: float | None = None,
                 currency: str = "USD", total_positives_hint: int | None = None) -> None:
        if pool_size < 0:
            raise ValueError("pool size must not be negative")
        self.pool = int(pool_size)
        self._sizes = [int(x) for x in decile_sizes(self.pool)]
        self.price_model = "per_item"
        self.price_per_item = 0.0
        self.hourly_rates: dict[str, float] = {}
        self.budget: float | None = None
        self.value_per_positive: float | None = None
        self.currency = "USD"
        self.total_positives_hint: int | None = None
        self.reprice(price_model=price_model, price_per_item=price_per_item,
                     hourly_rates=hourly_rates or {}, budget=budget,
                     value_per_positive=value_per_positive, currency=currency,
                     total_positives_hint=total_positives_hint)
        self._reset()

    # -- state -----------------------------------------------------------------------
    def _reset(self) -> None:
        self._applied: dict[int, RankedLabel] = {}  # insertion order = apply order
        self._labels: dict[int, list[tuple[int, bool]]] = {}  # rank -> active (id, positive)
        self._skips: dict[int, int] = {}  # rank -> active skip events
        self._tally: dict[str, list[int]] = {}  # annotator -> [events, labels, skips, pos, µs, rulings]
        self._dec_annotated = [0] * DECILES
        self._dec_positive = [0] * DECILES
        self._dec_visited = [0] * DECILES
        self._annotated = self._positives = self._label_events = self._skip_events = 0
        self._credits: dict[str, int] = {}  # annotator -> positive candidates credited
        self._curve_x = np.zeros(64, dtype=np.int64)
        self._curve_y = np.zeros(64, dtype=np.int64)
        self._curve_n = 0
        self._exposed = 0  # curve points visible through a snapshot: never overwrite them

    def restore(self, *, deciles: tuple[list[int], list[int], list[int]],
                counts: tuple[int, int, int, int], labels: dict[int, list[tuple[int, bool]]],
                skips: dict[int, int], applied: dict[int, RankedLabel],
                tally: dict[str, list[int]], curve: tuple[np.ndarray, np.ndarray]) -> None:
        """Install totals computed in bulk from events, as applying them one by one would.

        :mod:`triage.project.live_replay` computes them with numpy."""
        self._dec_annotated, self._dec_positive, self._dec_visited = (list(d) for d in deciles)
        self._annotated, self._positives, self._label_events, self._skip_events = counts
        self._labels, self._skips, self._applied, self._tally = labels, skips, applied, tally
        self._credits = {}
        for rank in labels:
            self._credit(self._rank_state(rank)[3], +1)
        n = int(curve[0].size)
        self._curve_x = np.zeros(max(64, n), np.int64)
        self._curve_y = np.zeros(max(64, n), np.int64)
        self._curve_x[:n], self._curve_y[:n] = curve
        self._curve_n, self._exposed = n, 0

    @property
    def events(self) -> list[RankedLabel]:
        """Active events in the order they were applied."""
        return list(self._applied.values())

    def _rank_state(self, rank: int) -> tuple[bool, bool, bool, str | None]:
        """(annotated, positive, visited, credited annotator) of the candidate at ``rank``."""
        stack = self._labels.get(rank, [])
        annotated = bool(stack)
        top = max(stack) if annotated else None
        positive = top is not None and top[1]
        credit = None
        if top is not None and top[1]:
            latest = self._applied[top[0]]
            credit = latest.credit or latest.annotator
        return annotated, positive, annotated or rank in self._skips, credit

    def _credit(self, annotator: str | None, sign: int) -> None:
        if annotator is not None:
            left = self._credits.get(annotator, 0) + sign
            if left:
                self._credits[annotator] = left
            else:
                del self._credits[annotator]

    def _move(self, rank: int, before: tuple[bool, bool, bool, str | None]) -> None:
        after = self._rank_state(rank)
        if after[3] != before[3]:
            self._credit(before[3], -1)
            self._credit(after[3], +1)
        d = (DECILES * rank + self.pool - 1) // self.pool - 1  # ceil(10 r / N) - 1
        da, dp, dv = (int(x) - int(y) for x, y in zip(after[:3], before[:3]))
        self._dec_annotated[d] += da
        self._dec_positive[d] += dp
        self._dec_visited[d] += dv
        self._annotated += da
        self._positives += dp

    def _check(self, event: RankedLabel) -> None:
        if not 1 <= event.rank <= self.pool:
            raise ValueError(f"rank {event.rank} is outside the pool 1..{self.pool}")
        if event.kind not in KINDS:
            raise ValueError(f"unknown label kind {event.kind!r}; expected one of {sorted(KINDS)}")
        if not (math.isfinite(event.seconds) and event.seconds >= 0):
            raise ValueError("seconds must be a finite number >= 0")

    def apply(self, event: RankedLabel) -> None:
        """Count one new event. O(1) (O(labels on that candidate), a handful at most)."""
        self._check(event)
        if event.event_id in self._applied:
            raise ValueError(f"event {event.event_id} is already applied")
        before = self._rank_state(event.rank)
        if event.skipped:
            self._skips[event.rank] = self._skips.get(event.rank, 0) + 1
            self._skip_events += 1
        else:
            self._labels.setdefault(event.rank, []).append((event.event_id, event.positive))
            self._label_events += 1
        self._decisions(event, -1)
        self._applied[event.event_id] = event
        self._move(event.rank, before)
        self._count(event, +1)
        if not event.skipped:
            self._push_curve()

    def revert(self, event: RankedLabel) -> None:
        """Undo an applied event. O(1) for the latest; O(k) when k events came after it."""
        stored = self._applied.get(event.event_id)
        if stored is None:
            raise ValueError(f"event {event.event_id} is not applied")
        if stored != event:
            raise ValueError(f"event {event.event_id} differs from the one applied")
        # Another annotator may have labeled since: the curve points after this event
        # change, so take the later events off, remove this one, and put them back.
        later: list[RankedLabel] = []
        for event_id in reversed(self._applied):
            if event_id == event.event_id:
                break
            later.append(self._applied[event_id])
        for newer in later:
            self._revert_latest(newer)
        self._revert_latest(event)
        for newer in reversed(later):
            self.apply(newer)

    def _revert_latest(self, event: RankedLabel) -> None:
        before = self._rank_state(event.rank)
        if event.skipped:
            left = self._skips[event.rank] - 1
            if left:
                self._skips[event.rank] = left
            else:
                del self._skips[event.rank]
            self._skip_events -= 1
        else:
            stack = self._labels[event.rank]
            stack.remove((event.event_id, event.positive))
            if not stack:
                del self._labels[event.rank]
            self._label_events -= 1
            self._curve_n -= 1
        self._decisions(event, +1)
        self._move(event.rank, before)
        del self._applied[event.event_id]
        self._count(event, -1)

    def _decisions(self, event: RankedLabel, sign: int) -> None:
        """A correction takes its earlier decision out of (-1) or back into (+1) the counts."""
        if (old := self._applied.get(event.replaces or 0)) is not None and old.skipped:
            self._skip_events += sign
        elif old is not None:
            self._label_events += sign

    def _count(self, event: RankedLabel, sign: int) -> None:
        tally = self._tally.setdefault(event.annotator, [0, 0, 0, 0, 0, 0])
        old = self._applied.get(event.replaces or 0)  # event ids start at 1
        if old is None:
            tally[_EVENTS] += sign
            tally[_RULINGS] += sign * (event.kind == RULING)
        else:  # the earlier decision's place is taken: no new event, no new spend
            tally[_SKIPS if old.skipped else _LABELS] -= sign
        tally[_SKIPS if event.skipped else _LABELS] += sign
        tally[_MICROS] += sign * round(event.seconds * 1_000_000)
        if tally[_EVENTS] == 0:
            del self._tally[event.annotator]

    def _push_curve(self) -> None:
        n = self._curve_n
        if n >= self._curve_x.size or n < self._exposed:
            # Grow, or copy before overwriting points an earlier snapshot can see.
            size = max(64, 2 * n, self._curve_x.size)
            self._curve_x = np.concatenate([self._curve_x[:n], np.zeros(size - n, np.int64)])
            self._curve_y = np.concatenate([self._curve_y[:n], np.zeros(size - n, np.int64)])
            self._exposed = 0
        self._curve_x[n] = self._annotated
        self._curve_y[n] = self._positives
        self._curve_n = n + 1

    # -- settings and money ----------------------------------------------------------
    def reprice(self, **settings: Unpack[PriceSettings]) -> None:
        """Change cost settings; spend is recomputed from the kept per-annotator sums."""
        unknown = set(settings) - _SETTINGS
        if unknown:
            raise ValueError(f"unknown setting(s): {', '.join(sorted(unknown))}")
        model = settings.get("price_model", self.price_model)
        if model not in PRICE_MODELS:
            raise ValueError(f"price model must be one of {sorted(PRICE_MODELS)}, not {model!r}")
        price = float(settings.get("price_per_item", self.price_per_item))
        rates = dict(settings.get("hourly_rates", self.hourly_rates) or {})
        budget = settings.get("budget", self.budget)
        value = settings.get("value_per_positive", self.value_per_positive)
        for name, amount in [("price per item", price), *(
                (f"hourly rate of {a}", r) for a, r in rates.items())]:
            if not (math.isfinite(float(amount)) and float(amount) >= 0):
                raise ValueError(f"{name} must be a finite number >= 0")
        if budget is not None and not math.isfinite(float(budget)):
            raise ValueError("budget must be a finite number")
        hint = settings.get("total_positives_hint", self.total_positives_hint)
        self.price_model = str(model)
        self.price_per_item = price
        self.hourly_rates = {a: float(r) for a, r in rates.items()}
        self.budget = None if budget is None else float(budget)
        self.value_per_positive = None if value is None else float(value)
        self.currency = str(settings.get("currency", self.currency))
        self.total_positives_hint = None if hint is None else int(hint)

    def _spend_of(self, annotator: str, tally: list[int]) -> float:
        if self.price_model == "per_item":
            return self.price_per_item * (tally[_EVENTS] - tally[_RULINGS])
        return tally[_MICROS] / 1e6 * self.hourly_rates.get(annotator, 0.0) / 3600.0

    # -- snapshot --------------------------------------------------------------------
    def snapshot(self) -> LiveSnapshot:
        """The current figures. O(10 + annotators); the curve arrays are shared views."""
        names = sorted(self._tally)
        by_spend = {a: self._spend_of(a, self._tally[a]) for a in names}
        # A curator who only ruled and is not paid for it is no annotator of the spend.
        curators = {a for a in names if self._tally[a][_EVENTS] == self._tally[a][_RULINGS]
                    and (self.price_model == "per_item" or a not in self.hourly_rates)}
        by_spend = {a: v for a, v in by_spend.items() if a not in curators}
        events = self._label_events + self._skip_events
        if self.price_model == "per_item":
            rulings = sum(t[_RULINGS] for t in self._tally.values())
            spend = self.price_per_item * (events - rulings)
            per_event: float | None = self.price_per_item
        else:
            spend = sum(by_spend.values())
            per_event = spend / events if events else None
        deciles = tuple(self._decile(d, per_event) for d in range(DECILES))
        current = next((d + 1 for d in range(DECILES)
                        if self._dec_visited[d] < self._sizes[d]), None)
        projected = None
        if current is not None and per_event is not None:
            projected = (self._sizes[current - 1] - self._dec_visited[current - 1]) * per_event
        n = self._curve_n
        self._exposed = max(self._exposed, n)
        curve_x, curve_y = self._curve_x[:n], self._curve_y[:n]
        curve_x.flags.writeable = curve_y.flags.writeable = False
        found = self._positives
        hint = self.total_positives_hint
        return LiveSnapshot(
            pool=self.pool, events=events, label_events=self._label_events,
            annotated=self._annotated, skipped=self._skip_events, positives_found=found,
            price_model=self.price_model, currency=self.currency, spend=spend,
            budget=self.budget,
            budget_left=None if self.budget is None else self.budget - spend,
            cost_per_positive=spend / found if found else None,
            value_of_positives=(None if self.value_per_positive is None
                                else self.value_per_positive * found),
            recall_from_hint=found / hint if hint else None,
            deciles=deciles, current_decile=current, projected_spend_to_finish_decile=projected,
            spend_by_annotator=by_spend,
            labels_by_annotator={a: self._tally[a][_LABELS] for a in names},
            skips_by_annotator={a: self._tally[a][_SKIPS] for a in names},
            positives_by_annotator={a: self._credits.get(a, 0) for a in names},
            seconds_by_annotator={a: self._tally[a][_MICROS] / 1e6 for a in names},
            unpriced_annotators=tuple(a for a in names if self.price_model == "per_hour"
                                      and a not in self.hourly_rates and a not in curators),
            curve_annotated=curve_x, curve_positives=curve_y,
        )

    def _decile(self, d: int, per_event: float | None) -> DecileLive:
        items, annotated, positives = self._sizes[d], self._dec_annotated[d], self._dec_positive[d]
        yield_ = positives / annotated if annotated else None
        marginal = None
        if yield_ is not None and per_event is not None:
            marginal = per_event / yield_ if yield_ > 0 else math.inf
        share = annotated / items if items else None
        return DecileLive(d + 1, items, annotated, positives, yield_, marginal, share)


def rebuild(pool_size: int, events: Iterable[RankedLabel],
            **settings: Unpack[PriceSettings]) -> LiveState:
    """A fresh state with ``events`` applied in order (used when a project is opened)."""
    state = LiveState(pool_size, **settings)
    for event in events:
        state.apply(event)
    return state
