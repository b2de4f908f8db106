"""Rebuilding the live state from a project's label events in numpy, not one event at a time.

Opening a project (the desk, ``triage status``, ``triage advise``) rebuilds the live gain
and spend state from every active label event. :func:`triage.stats.live.rebuild` applies
them one by one through :meth:`LiveState.apply` (about twenty microseconds of Python per
event: a fifth of a second at 10,000 labels, two seconds at 100,000). :func:`replay` builds
the same state from arrays: the counts per decile and per annotator are ``bincount``\\ s,
the gain curve is two cumulative sums. Later events still go through ``apply`` and
``revert``, so the result must be exactly the state the event-by-event rebuild leaves:
tests/test_live_replay.py checks that, snapshots and every later apply and revert.

:func:`ranked_labels` turns the label events into the :class:`RankedLabel`\\ s the live
state counts, deciding for each whether its candidate was positive by its final label at
that moment (majority, adjudication) without rescanning the candidate's events for every
event. :func:`ranked_label` is the one place a :class:`RankedLabel` is made.

The state's fields are filled here because :mod:`triage.stats.live` was not ours to change
in this round; its ``rebuild`` stays the reference this module is tested against.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Unpack

import numpy as np

from triage.base.labels import LabelEvent
from triage.project.final import FinalLabel, credited, final_labels, is_positive
from triage.stats.common import DECILES, decile_of_rank
from triage.stats.live import KINDS, RULING, LiveState, PriceSettings, RankedLabel, rebuild
from triage.store.settings import Settings

_OWN_DECISIONS = frozenset({"adjudication", "retest"})



def found_live(final: FinalLabel | None, settings: Settings) -> tuple[bool, str | None]:
    """Is the candidate found after an event, and who is credited with it?

    The project's one rule (:func:`triage.project.final.is_positive` and
    :func:`~triage.project.final.credited`): a resolved positive final label; a tie is not
    found until somebody rules, on the live curve as in exports and reports."""
    return is_positive(final, settings), credited(final, settings)

def replaced_by(event: LabelEvent, earlier: Iterable[LabelEvent]) -> int | None:
    """The id of the decision ``event`` corrects (a change from the history), or None.

    That is the same annotator's latest earlier event on the candidate. A ruling
    (adjudication) and a re-test are decisions of their own, so they neither correct nor
    are corrected.
    """
    if event.kind in _OWN_DECISIONS:
        return None
    mine = [r.id for r in earlier if r.annotator == event.annotator and r.id < event.id
            and r.kind not in _OWN_DECISIONS]
    return max(mine) if mine else None


def ranked_label(event: LabelEvent, rank: int, positive: bool, replaces: int | None,
                 credit: str | None) -> RankedLabel:
    """The live state's view of ``event``: at ``rank``, with the project's verdict."""
    return RankedLabel(event.id, rank, event.annotator, positive, event.value is None,
                       event.seconds, event.kind, replaces, credit)


def ranked_labels(events: Sequence[LabelEvent], ranks: np.ndarray,
                  settings: Settings) -> list[RankedLabel]:
    """The ranked labels of active ``events`` (oldest first), ``positive`` as the project counts.

    A candidate's first event is positive by its own value; a later one by the final label
    of the candidate's events so far (the only candidates that cost more than a look-up
    are those labeled more than once: overlap, audit, adjudication).
    """
    cids = np.fromiter((e.candidate_id for e in events), np.int64, len(events))
    rank_of = ranks[cids].tolist() if len(events) else []
    seen: dict[int, list[LabelEvent]] = {}
    out = []
    for event, rank in zip(events, rank_of):
        cid = event.candidate_id
        earlier = seen.get(cid)
        replaces = None
        credit = None
        if earlier is None:
            seen[cid] = [event]
            positive = settings.is_positive(event.value)
        else:
            replaces = replaced_by(event, earlier)
            earlier.append(event)
            positive, credit = found_live(final_labels(list(earlier)).get(cid), settings)
        out.append(ranked_label(event, rank, positive, replaces, credit))
    return out


def replay(pool_size: int, events: Iterable[RankedLabel],
           **settings: Unpack[PriceSettings]) -> LiveState:
    """The state :func:`triage.stats.live.rebuild` returns for ``events``, built in numpy."""
    events = list(events)
    if not events:
        return rebuild(pool_size, events, **settings)
    columns = zip(*[(e.event_id, e.rank, e.seconds, e.skipped, e.positive) for e in events])
    ids, rank, seconds, skipped, positive = (np.array(c) for c in columns)
    # Anything LiveState.apply would refuse (and ids that do not rise, as a project's do):
    # the reference rebuild takes it, and raises what it raises.
    if (ids.dtype.kind != "i" or rank.dtype.kind != "i" or ids[0] < 1
            or np.any(ids[1:] <= ids[:-1]) or rank.min() < 1 or rank.max() > pool_size
            or not np.all(np.isfinite(seconds)) or seconds.min() < 0
            or not {e.kind for e in events} <= KINDS
            # Corrections (history changes) are rare: the reference counts them.
            or any(e.replaces is not None for e in events)):
        return rebuild(pool_size, events, **settings)
    state = LiveState(pool_size, **settings)
    _fill(state, events, rank.astype(np.int64), skipped.astype(bool), positive.astype(bool),
          seconds.astype(np.float64))
    return state


def _fill(state: LiveState, events: list[RankedLabel], rank: np.ndarray,  # long: field by field
          skipped: np.ndarray, positive: np.ndarray, seconds: np.ndarray) -> None:
    pool = state.pool
    n = len(events)
    labeled = ~skipped
    l_rank, l_pos = rank[labeled], positive[labeled]
    # The curve: after each label, candidates annotated so far and positives among them
    # (a candidate is positive by its latest label, so a label on an already annotated
    # candidate moves the count by its value minus the previous label's).
    by_rank = np.argsort(l_rank, kind="stable")
    sorted_rank = l_rank[by_rank]
    same_as_before = np.zeros(sorted_rank.size, bool)
    same_as_before[1:] = sorted_rank[1:] == sorted_rank[:-1]
    previous_pos = np.zeros(sorted_rank.size, np.int64)
    previous_pos[1:] = np.where(same_as_before[1:], l_pos[by_rank][:-1], 0)
    first = np.empty(l_rank.size, bool)
    first[by_rank] = ~same_as_before
    delta = np.empty(l_rank.size, np.int64)
    delta[by_rank] = l_pos[by_rank].astype(np.int64) - previous_pos
    curve_x, curve_y = np.cumsum(first, dtype=np.int64), np.cumsum(delta, dtype=np.int64)
    # Per candidate: annotated, positive by its latest label, visited (labeled or skipped).
    last_of_rank = np.ones(sorted_rank.size, bool)
    last_of_rank[:-1] = sorted_rank[1:] != sorted_rank[:-1]
    annotated_ranks = sorted_rank[last_of_rank]
    positive_ranks = annotated_ranks[l_pos[by_rank][last_of_rank]]
    visited_ranks = np.unique(rank)

    def per_decile(ranks: np.ndarray) -> list[int]:
        deciles = decile_of_rank(ranks, pool) - 1
        return [int(c) for c in np.bincount(deciles, minlength=DECILES)]

    labels: dict[int, list[tuple[int, bool]]] = {}
    for e in events:
        if not e.skipped:
            labels.setdefault(e.rank, []).append((e.event_id, e.positive))
    state.restore(
        deciles=(per_decile(annotated_ranks), per_decile(positive_ranks),
                 per_decile(visited_ranks)),
        counts=(int(annotated_ranks.size), int(positive_ranks.size), int(l_rank.size),
                int(n - l_rank.size)),
        labels=labels, skips=dict(Counter(int(r) for r in rank[skipped])),
        applied={e.event_id: e for e in events},
        tally=_tally(events, skipped, positive, seconds), curve=(curve_x, curve_y))


def _tally(events: list[RankedLabel], skipped: np.ndarray, positive: np.ndarray,
           seconds: np.ndarray) -> dict[str, list[int]]:
    """annotator -> [events, labels, skips, positives, µs, rulings], first seen first."""
    codes: dict[str, int] = {}
    who = np.fromiter((codes.setdefault(e.annotator, len(codes)) for e in events), np.int64,
                      len(events))
    k = len(codes)

    def count(mask: np.ndarray) -> list[int]:
        return [int(c) for c in np.bincount(who[mask], minlength=k)]

    every = count(np.ones(len(events), bool))
    labels, skips = count(~skipped), count(skipped)
    positives = [0] * k  # credited per candidate, not per event (LiveState._credits)
    # As LiveState._count: integer microseconds, each rounded half to even as round()
    # does, summed as Python ints (exact however long the sessions).
    micros = [0] * k
    for code, us in zip(who.tolist(), np.rint(seconds * 1_000_000).tolist()):
        micros[code] += int(us)
    rulings = count(np.fromiter((e.kind == RULING for e in events), bool, len(events)))
    return {name: [every[c], labels[c], skips[c], positives[c], micros[c], rulings[c]]
            for name, c in codes.items()}
