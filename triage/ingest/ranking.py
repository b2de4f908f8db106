"""The frozen ranking of a model: descending score, ties in a seeded order of their keys.

Rank 1 is the highest score. Equal scores are never ordered by their position in the
file: tied items are ordered by a keyed hash (SipHash) of their candidate key under a key
derived from the project seed and the model name, a seeded pseudo-random permutation that
is the same however the input rows are shuffled.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from triage.base import arrow
from triage.ingest.hashing import pandas_hash

HASH_SLICE = 1 << 18


def _keys_of(keys: Sequence[str] | Any, rows: np.ndarray) -> Any:
    """The keys of ``rows`` as one Arrow string array."""
    if isinstance(keys, list):
        return arrow.strings([keys[i] for i in rows.tolist()])
    taken = cast(Any, keys).take(arrow.from_numpy(rows.astype(np.int64)))
    return taken.combine_chunks() if hasattr(taken, "combine_chunks") else taken


def _by_group_then_hash(group: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """``np.lexsort((hashes, group))``, in half the time: a stable sort by hash, then a
    stable sort by group (a radix sort when the groups fit in 16 bits)."""
    by_hash = np.argsort(hashes, kind="stable")
    groups = group[by_hash]
    if groups.size and groups.max() < 1 << 16:
        groups = groups.astype(np.uint16)
    return by_hash[np.argsort(groups, kind="stable")]


def rank_scores(scores: np.ndarray, keys: Sequence[str] | Any, seed: int, model: str
                ) -> tuple[np.ndarray, int]:
    """Row indexes in rank order (index 0 = rank 1) and the number of tied items.

    Descending score; ties ordered by a seeded keyed hash of the key, never by file order.
    ``keys`` is a list of strings or an Arrow string array.
    """
    order, _ordered, tied = rank_sorted(scores, keys, seed, model)
    return order, tied


def rank_sorted(scores: np.ndarray, keys: Sequence[str] | Any, seed: int, model: str
                ) -> tuple[np.ndarray, np.ndarray, int]:
    """:func:`rank_scores` with the scores in rank order too (``scores[order]``).

    The sort makes them anyway: at five million rows a second copy would be 40 MB.
    """
    # Any sort will do: equal scores are put in their seeded order just below.
    order = np.argsort(-scores)
    ordered = scores[order]
    same = ordered[1:] == ordered[:-1]
    if not same.any():
        return order, ordered, 0
    tied = np.zeros(len(scores), dtype=bool)
    tied[1:] |= same
    tied[:-1] |= same
    # Re-order only the tied positions: by tie group (keeps groups in place), then hash.
    # A group starts at a tied position whose predecessor holds another score; numbering
    # the groups among the tied positions only keeps this small (no array per row).
    positions = np.flatnonzero(tied)
    starts = np.ones(len(positions), dtype=bool)
    inner = positions > 0
    starts[inner] = ~same[positions[inner] - 1]
    group = np.cumsum(starts)
    del tied, same, starts
    rows = order[positions]
    hash_key = hashlib.sha256(f"{seed}:{model}".encode()).hexdigest()[:16]
    # In slices: SipHash in numpy makes a dozen temporaries per key hashed, and at five
    # million rows millions of them are tied.
    hashes = np.empty(len(rows), dtype=np.uint64)
    for start in range(0, len(rows), HASH_SLICE):
        part = rows[start:start + HASH_SLICE]
        hashes[start:start + len(part)] = pandas_hash(_keys_of(keys, part), hash_key)
    order[positions] = rows[_by_group_then_hash(group, hashes)]
    ordered[positions] = scores[order[positions]]  # equal, but 0.0 and -0.0 are two values
    return order, ordered, len(positions)
