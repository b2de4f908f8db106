"""Agreement broken down by annotator pair, annotator, session, score decile and time,
and test–retest agreement of each annotator with themself.

Rows are (group, items, α, percent agreement). Groups that are properties of a *rating*
(its annotator, session or time) are measured on pooled rating pairs: every pair of
ratings of one item by two different annotators where at least one rating belongs to the
group is a unit with two values. Groups that are properties of an *item* (its score
decile) simply keep the items in the group.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from triage.stats.agreement.coefficients import (
    kappa_from_tables,
    percent_agreement,
    percent_agreement_counts,
    rating_pairs,
)
from triage.stats.agreement.krippendorff import alpha_arrays, category_counts, krippendorff_alpha
from triage.stats.agreement.ratings import BREAKDOWNS, Coefficient, Ratings, encode

NO_OTHER_RATER = "no_other_rater"  # a reason code, worded by triage.views.agreement_words

__all__ = ["BREAKDOWNS", "BreakdownRow", "RetestRow", "breakdown", "retest_agreement"]


@dataclass(frozen=True)
class BreakdownRow:
    """Agreement within one group."""

    by: str
    group: str
    items: int
    alpha: Coefficient
    percent_agreement: Coefficient


@dataclass(frozen=True)
class RetestRow:
    """One annotator's agreement with their own earlier rating of the same items."""

    annotator: str
    items: int
    alpha: Coefficient
    percent_agreement: Coefficient
    kappa: Coefficient


def _pooled(ratings: Ratings, i: np.ndarray, j: np.ndarray, level: str) -> tuple[int, Coefficient, Coefficient]:
    """Items, α and percent agreement over rating pairs (i, j), each pair one unit."""
    unit = np.arange(i.size)
    item = np.concatenate([unit, unit])
    code = np.concatenate([ratings.code[i], ratings.code[j]])
    alpha = alpha_arrays(item, code, ratings.n_categories, level, ratings.values)
    pa = percent_agreement_counts(*category_counts(item, code, ratings.n_categories))
    return int(np.unique(ratings.item[i]).size), alpha, pa


def _row(by: str, group: str, ratings: Ratings, level: str) -> BreakdownRow:
    """α and percent agreement of a subset of ratings, counting its pairable items."""
    counts = np.bincount(ratings.item, minlength=ratings.n_items)
    return BreakdownRow(
        by, group, int(np.count_nonzero(counts >= 2)),
        krippendorff_alpha(ratings, level), percent_agreement(ratings),
    )


def by_pair(ratings: Ratings, level: str = "nominal") -> list[BreakdownRow]:
    """α and percent agreement for each annotator pair with items in common."""
    i, j = rating_pairs(ratings)
    key = ratings.annotator[i] * ratings.n_annotators + ratings.annotator[j]
    names = ratings.annotator_names
    rows = []
    for k in np.unique(key):
        a, b = divmod(int(k), ratings.n_annotators)
        mask = np.isin(ratings.annotator, [a, b])
        rows.append(_row("pair", f"{names[a]}|{names[b]}", ratings.subset(mask), level))
    return rows


def by_rating_group(
    ratings: Ratings, group: np.ndarray, by: str, level: str = "nominal"
) -> list[BreakdownRow]:
    """Pooled-pair agreement of each group of ratings against other annotators' ratings."""
    i, j = rating_pairs(ratings)
    group = np.asarray(group)
    rows = []
    for g in sorted(set(group.tolist()), key=_natural):
        keep = (group[i] == g) | (group[j] == g)
        if not keep.any():  # it has ratings, but none on an item another annotator rated
            alone = Coefficient.undefined(NO_OTHER_RATER)
            rows.append(BreakdownRow(by, str(g), 0, alone, alone))
            continue
        items, alpha, pa = _pooled(ratings, i[keep], j[keep], level)
        rows.append(BreakdownRow(by, str(g), items, alpha, pa))
    return rows


def by_item_group(
    ratings: Ratings, group: np.ndarray, by: str, level: str = "nominal"
) -> list[BreakdownRow]:
    """Agreement over the items of each group (``group`` given per rating)."""
    group = np.asarray(group)
    return [
        _row(by, str(g), ratings.subset(group == g), level)
        for g in sorted(set(group.tolist()), key=_natural)
    ]


def _natural(value: object) -> tuple[int, float, str]:
    """Sort by a leading number (decile 10 after 9, block 11-14 after 6-10), then as text."""
    text = str(value)
    match = re.match(r"-?\d+(\.\d+)?", text)
    return (0, float(match.group()), text) if match else (1, 0.0, text)


def time_groups(times: Sequence[str] | None, n: int, block: int | None) -> np.ndarray:
    """Per rating: its day, or its block of ``block`` consecutive ratings.

    The day is the first 10 characters of an ISO time; blocks follow time order when times
    are given, else input order.
    """
    if block:
        order = np.argsort(np.asarray(times, dtype=str), kind="stable") if times else np.arange(n)
        position = np.empty(n, dtype=np.int64)
        position[order] = np.arange(n)
        start = position // block * block
        return np.array([f"{s + 1}-{min(s + block, n)}" for s in start], dtype=object)
    if times is None:
        raise ValueError("per-day breakdown needs a time column")
    return np.array([str(t)[:10] for t in times], dtype=object)


def breakdown(
    ratings: Ratings,
    by: str,
    level: str = "nominal",
    *,
    session: Sequence[str] | None = None,
    decile: Sequence[str] | None = None,
    time: Sequence[str] | None = None,
    block: int | None = None,
    guideline_version: Sequence[str] | None = None,
) -> list[BreakdownRow]:
    """Rows of (group, items, α, percent agreement) for one breakdown.

    ``session``, ``decile`` and ``time`` are columns of the input table (one entry per
    input row); ratings carry their source row, so replaced ratings are ignored.
    """
    if by == "pair":
        return by_pair(ratings, level)
    if by == "annotator":
        return by_rating_group(ratings, np.asarray(ratings.annotator_names, dtype=object)[
            ratings.annotator], "annotator", level)
    column = {"session": session, "decile": decile, "time": time,
              "guideline_version": guideline_version}.get(by)
    if by not in BREAKDOWNS:
        raise ValueError(f"unknown breakdown {by!r}")
    if column is None and not (by == "time" and block):
        raise ValueError(f"the {by} breakdown needs a {by} column")
    if by == "time":
        groups = time_groups(time, len(time) if time is not None else _rows(ratings), block)
    else:
        assert column is not None  # checked above: only the time breakdown may go without
        groups = np.asarray([str(x) for x in column], dtype=object)
    per_rating = groups[ratings.source]
    if by in ("decile", "guideline_version"):
        # Per guideline version: how well the ratings given under that version agree.
        return by_item_group(ratings, per_rating, by, level)
    return by_rating_group(ratings, per_rating, by, level)


def _rows(ratings: Ratings) -> int:
    return int(ratings.source.max()) + 1 if ratings.source.size else 0


def retest_agreement(
    items: Sequence[object],
    annotators: Sequence[object],
    labels: Sequence[object],
    sessions: Sequence[object],
    *,
    level: str = "nominal",
    categories: Sequence[str] | None = None,
) -> list[RetestRow]:
    """Agreement of each annotator with themself on items they rated in two sessions.

    Within a session the last rating counts; the first two sessions (in input order)
    in which the annotator rated the item are the test and the retest.
    """
    # Code each (annotator, item, session) as its own "item" so encode keeps one rating
    # per session; then pair up an annotator's first two sessions per item.
    sessions = [str(s) for s in sessions]
    session_rank = {s: r for r, s in enumerate(dict.fromkeys(sessions))}
    keys = [f"{a}\x1f{i}\x1f{s}" for a, i, s in zip(annotators, items, sessions)]
    coded = encode(keys, ["x"] * len(keys), labels, level=level, categories=categories)
    parts = [coded.item_names[k].split("\x1f") for k in coded.item]
    by_annotator: dict[str, dict[str, list[tuple[int, int]]]] = {}
    for (a, i, s), code in zip(parts, coded.code.tolist()):
        by_annotator.setdefault(a, {}).setdefault(i, []).append((session_rank[s], code))
    rows = []
    for a in sorted(by_annotator):
        firsts, seconds = [], []
        for visits in by_annotator[a].values():
            if len(visits) >= 2:
                visits.sort()
                firsts.append(visits[0][1])
                seconds.append(visits[1][1])
        rows.append(_retest_row(a, np.array(firsts, int), np.array(seconds, int), coded, level))
    return rows


def _retest_row(
    annotator: str, first: np.ndarray, second: np.ndarray, coded: Ratings, level: str
) -> RetestRow:
    n, c = first.size, coded.n_categories
    unit = np.arange(n)
    item = np.concatenate([unit, unit])
    code = np.concatenate([first, second])
    alpha = alpha_arrays(item, code, c, level, coded.values)
    pa = percent_agreement_counts(*category_counts(item, code, c))
    table = np.bincount(first * c + second, minlength=c * c).reshape(1, c, c)
    kappa = kappa_from_tables(table)[0]
    if n == 0:
        alpha = pa = kappa = Coefficient.undefined("no_retest_item")
    return RetestRow(annotator, n, alpha, pa, kappa)
