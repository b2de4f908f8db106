"""Ratings in long form and the value-or-undefined result every coefficient returns.

A rating is one (item, annotator, label) triple. Labels are coded against a declared
category list so categories nobody used still count where a coefficient needs them
(Gwet's AC1 uses the number of declared categories). Missing labels are simply absent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from triage.base.errors import TriageError

BREAKDOWNS = ("pair", "annotator", "session", "decile", "time", "guideline_version")
LEVELS = ("nominal", "ordinal", "interval", "ratio")


@dataclass(frozen=True)
class Coefficient:
    """A coefficient's value, or ``None`` with the reason code why it is undefined.

    :mod:`triage.views.agreement_words` words the codes (``no_ratings``, ``one_category``, …)."""

    value: float | None
    reason: str | None = None

    @property
    def defined(self) -> bool:
        """True when the coefficient has a value."""
        return self.value is not None

    @classmethod
    def of(cls, value: float) -> Coefficient:
        """A defined coefficient."""
        return cls(float(value), None)

    @classmethod
    def undefined(cls, reason: str) -> Coefficient:
        """An undefined coefficient and the reason code saying why."""
        return cls(None, reason)


@dataclass(frozen=True, eq=False)
class Ratings:
    """Coded ratings, one per (item, annotator); arrays have equal length.

    ``values`` holds each category's number for interval/ratio levels (and the rank for
    ordinal); ``replaced`` counts earlier ratings overridden by a later rating of the same
    item by the same annotator (the last one counts).
    """

    item: np.ndarray
    annotator: np.ndarray
    code: np.ndarray
    categories: tuple[str, ...]
    item_names: tuple[str, ...]
    annotator_names: tuple[str, ...]
    values: np.ndarray = field(default_factory=lambda: np.zeros(0))
    replaced: int = 0
    source: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __len__(self) -> int:
        return int(self.code.size)

    @property
    def n_items(self) -> int:
        """Number of distinct items."""
        return len(self.item_names)

    @property
    def n_annotators(self) -> int:
        """Number of distinct annotators."""
        return len(self.annotator_names)

    @property
    def n_categories(self) -> int:
        """Number of categories (declared, or seen in the labels)."""
        return len(self.categories)

    def subset(self, mask: np.ndarray) -> Ratings:
        """The ratings where ``mask`` is true (names and categories unchanged)."""
        return Ratings(
            self.item[mask], self.annotator[mask], self.code[mask], self.categories,
            self.item_names, self.annotator_names, self.values, 0,
            self.source[mask] if self.source.size else self.source,
        )


def _index(names: Sequence[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    """Codes 0..k-1 in order of first appearance, and the distinct names."""
    uniq, first, inverse = np.unique(
        np.asarray(names, dtype=object).astype(str), return_index=True, return_inverse=True
    )
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[inverse].astype(np.int64), tuple(str(u) for u in uniq[order])


def numeric_values(categories: Sequence[str]) -> np.ndarray | None:
    """Each category as a float, or ``None`` when one of them is not a finite number."""
    out = np.empty(len(categories))
    for i, c in enumerate(categories):
        try:
            out[i] = float(c)
        except ValueError:
            return None
        if not math.isfinite(out[i]):
            return None
    return out


def category_order(labels: Sequence[str], level: str, declared: Sequence[str] | None) -> list[str]:
    """The category list: as declared, else numeric order (or first appearance for nominal).

    Ordinal data with non-numeric labels needs an explicit order: sorting words
    alphabetically would silently invent one.
    """
    if declared is not None:
        cats = [str(c) for c in declared]
        if len(set(cats)) != len(cats):
            raise TriageError("the category list names a category twice")
        return cats
    seen = list(dict.fromkeys(str(x) for x in labels if x is not None and str(x) != ""))
    nums = numeric_values(seen)
    if nums is not None:
        return [seen[i] for i in np.argsort(nums, kind="stable")]
    if level != "nominal":
        raise TriageError(
            f"the {level} level needs the category order (--order a,b,c): "
            f"the labels are not all numbers"
        )
    return seen


def encode(
    items: Sequence[object],
    annotators: Sequence[object],
    labels: Sequence[object],
    *,
    level: str = "nominal",
    categories: Sequence[str] | None = None,
) -> Ratings:
    """Code long-form ratings; empty or ``None`` labels are missing and dropped.

    Raises :class:`TriageError` for a label outside the declared categories, for
    interval/ratio labels that are not numbers and for negative ratio values.
    """
    if level not in LEVELS:
        raise TriageError(f"unknown level {level!r}; choose one of {', '.join(LEVELS)}")
    if not len(items) == len(annotators) == len(labels):
        raise TriageError("items, annotators and labels must have the same length")
    item_code, item_names = _index([str(x) for x in items])
    labels_s = ["" if x is None else str(x) for x in labels]
    present = np.array([s != "" for s in labels_s], dtype=bool)
    ann_all = [str(a) for a in annotators]
    ann_code, ann_names = _index([a for a, p in zip(ann_all, present) if p] or [])
    cats = category_order(labels_s, level, categories)
    lookup = {c: i for i, c in enumerate(cats)}
    present_labels = [s for s, p in zip(labels_s, present) if p]
    unknown = sorted({s for s in present_labels if s not in lookup})
    if unknown:
        raise TriageError(
            f"label {unknown[0]!r} is not one of the declared categories ({', '.join(cats)})"
        )
    code = np.array([lookup[s] for s in present_labels], dtype=np.int64)
    values = _level_values(cats, level)
    item_p = item_code[present]
    rows = np.flatnonzero(present)
    ann_code = ann_code.astype(np.int64)
    # One rating per (item, annotator): the last one in input order wins.
    key = item_p * max(len(ann_names), 1) + ann_code
    _, last_rev = np.unique(key[::-1], return_index=True)
    keep = np.sort(key.size - 1 - last_rev)
    return Ratings(
        item_p[keep], ann_code[keep], code[keep], tuple(cats), item_names, ann_names,
        values, int(key.size - keep.size), rows[keep],
    )


def _level_values(cats: Sequence[str], level: str) -> np.ndarray:
    """Numbers standing for the categories: ranks for nominal/ordinal, values otherwise."""
    if level in ("nominal", "ordinal"):
        return np.arange(len(cats), dtype=float)
    vals = numeric_values(cats)
    if vals is None:
        bad = next(c for c in cats if numeric_values([c]) is None)
        raise TriageError(f"the {level} level needs numeric labels; {bad!r} is not a number")
    if level == "ratio" and (vals < 0).any():
        raise TriageError("the ratio level needs non-negative values")
    return vals


def from_wide(
    rows: Sequence[Sequence[object]], annotator_names: Sequence[str] | None = None, *,
    level: str = "nominal", categories: Sequence[str] | None = None,
) -> Ratings:
    """Code a units × raters table (``None`` or ``""`` = no rating); item names are row numbers."""
    n_cols = max((len(r) for r in rows), default=0)
    names = list(annotator_names) if annotator_names else [f"r{j + 1}" for j in range(n_cols)]
    items, anns, labels = [], [], []
    for i, row in enumerate(rows):
        for j in range(n_cols):
            v = row[j] if j < len(row) else None
            items.append(str(i + 1))
            anns.append(names[j])
            labels.append(v)
    return encode(items, anns, labels, level=level, categories=categories)
