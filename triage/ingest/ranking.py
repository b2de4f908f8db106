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
PACKED_MIN = 4096  # below this many values a plain argsort is as quick
_U64 = np.uint64
_SIGN = np.uint64(1 << 63)


def sort_order(values: np.ndarray) -> np.ndarray:
    """Positions that put ``values`` (uint64) in ascending order; equal values in any order.

    As ``np.argsort(values)`` but one ``np.sort`` of plain integers: each value's top bits
    with its position in the low bits (what an argsort moves as a pair, one word here).
    Runs whose top bits are equal but whose values differ are put in order afterwards.
    """
    size = values.size
    bits = max(1, (size - 1).bit_length())
    if size < PACKED_MIN or bits > 40:
        return np.argsort(values)
    low = _U64((1 << bits) - 1)
    packed = values >> _U64(bits)
    packed <<= _U64(bits)
    packed |= np.arange(size, dtype=_U64)
    packed.sort()
    order = (packed & low).view(np.int64)
    packed >>= _U64(bits)
    same = packed[1:] == packed[:-1]
    del packed
    if same.any():
        _order_runs(values, order, same)
    return order


def _order_runs(values: np.ndarray, order: np.ndarray, same: np.ndarray) -> None:
    """Put in order, in place, the runs of ``order`` whose values' top bits are equal
    (``same[i]``: positions i and i+1 are in one run)."""
    inside = np.zeros(order.size, dtype=bool)
    inside[1:] |= same
    inside[:-1] |= same
    positions = np.flatnonzero(inside)
    rows = order[positions]
    full = values[rows]
    starts = np.ones(positions.size, dtype=bool)
    starts[1:] = ~same[positions[1:] - 1]
    if ((full[1:] == full[:-1]) | starts[1:]).all():
        return  # every run holds one value (ties): any order among them will do
    group = np.cumsum(starts)
    order[positions] = rows[np.lexsort((full, group))]


def descending_order(scores: np.ndarray) -> np.ndarray:
    """Positions of ``scores`` from the highest to the lowest: ``np.argsort(-scores)``.

    For finite floats; equal scores, 0.0 and -0.0 among them, in any order; computed by
    :func:`sort_order`.
    """
    if scores.size < PACKED_MIN or not np.isfinite(scores).all():
        return np.argsort(-scores)
    bits = (np.asarray(scores, dtype=np.float64) + 0.0).view(_U64)  # -0.0 + 0.0 is 0.0: one score, as the comparison says
    # Descending: a positive float's bits grow with it (the sign bit clear), a negative
    # one's shrink; so flip the positives' bits and keep the negatives' (sign bit set).
    negative = bits >= _SIGN
    np.invert(bits, out=bits, where=~negative)
    bits &= ~_SIGN
    bits[negative] |= _SIGN
    return sort_order(bits)


def _keys_of(keys: Sequence[str] | Any, rows: np.ndarray) -> Any:
    """The keys of ``rows`` as one Arrow string array."""
    if isinstance(keys, list):
        return arrow.strings([keys[i] for i in rows.tolist()])
    taken = cast(Any, keys).take(arrow.from_numpy(rows.astype(np.int64)))
    return taken.combine_chunks() if hasattr(taken, "combine_chunks") else taken


def _by_group_then_hash(group: np.ndarray, hashes: np.ndarray) -> np.ndarray:
    """``np.lexsort((hashes, group))``: positions by group, then by hash within a group.

    One sort of a 64-bit composite (the group in the top bits, the hash's top bits below)
    when no two composites are equal, which makes it the same order as the full hashes';
    else two stable sorts: by hash, then by group (a radix sort when groups fit 16 bits).
    """
    bits = int(group[-1]).bit_length() if group.size else 0  # groups count up from 1
    if 0 < bits <= 24:
        composite = hashes >> _U64(bits)
        composite |= group.astype(np.uint64) << _U64(64 - bits)
        by = sort_order(composite)
        composite = composite[by]
        if not (composite[1:] == composite[:-1]).any():
            return by
    by_hash = np.argsort(hashes, kind="stable")
    groups = group[by_hash]
    if groups.size and groups.max() < 1 << 16:
        groups = groups.astype(np.uint16)
    return by_hash[np.argsort(groups, kind="stable")]


def _tied_hashes(keys: Sequence[str] | Any, rows: np.ndarray, hash_key: str,
                 total: int) -> np.ndarray:
    """The keyed hashes of the keys of ``rows``.

    When most rows are tied, every key is hashed in file order and the tied ones picked:
    cheaper than gathering their strings first. Else only theirs, in slices (SipHash in
    numpy makes temporaries per key hashed, and at five million rows millions are tied).
    """
    if not isinstance(keys, list) and 4 * len(rows) >= total:
        return _every_hash(keys, hash_key, total)[rows]
    hashes = np.empty(len(rows), dtype=np.uint64)
    for start in range(0, len(rows), HASH_SLICE):
        part = rows[start:start + HASH_SLICE]
        hashes[start:start + len(part)] = pandas_hash(_keys_of(keys, part), hash_key)
    return hashes


def _every_hash(keys: Any, hash_key: str, total: int) -> np.ndarray:
    """The keyed hash of every key of an Arrow string array, in file order, in slices."""
    pieces = keys.chunks if hasattr(keys, "chunks") else [keys]
    every = np.empty(total, dtype=np.uint64)
    done = 0
    for piece in pieces:
        for start in range(0, len(piece), HASH_SLICE):
            part = piece.slice(start, HASH_SLICE)
            every[done:done + len(part)] = pandas_hash(part, hash_key)
            done += len(part)
    return every


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending: ``np.unique`` (which loads ``numpy.ma``, a tenth of a
    second at start-up on a loaded machine, for its NaN handling; a NaN here ends the few-
    scores path anyway)."""
    ordered = np.sort(values)
    keep = np.ones(ordered.size, dtype=bool)
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


def _few_scores_order(scores: np.ndarray, keys: Any, hash_key: str
                      ) -> tuple[np.ndarray, int] | None:
    """Rank order and tied items in one sort when a file has few distinct scores; else None.

    Scores rounded to a few decimals: nearly every row is tied. Each row's sort key is
    its score's place among the distinct scores (found by Arrow's hash table, not a sort)
    in the top bits and its key's hash below, so one sort orders by score, then ties by
    hash, as :func:`rank_sorted`'s two steps do, unless two sort keys are equal (the
    hash's low bits are dropped): then None, and the two steps decide.
    """
    if isinstance(keys, list) or scores.size < 1024:
        return None
    sample = scores[::max(1, scores.size // 8192)]
    if 2 * _distinct(sample).size > sample.size:  # many distinct: the two steps are faster
        return None
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(arrow.from_numpy(scores))
    values = arrow.to_numpy(encoded.dictionary)  # Arrow's to_numpy may look for pandas
    distinct = _distinct(values)  # 0.0 and -0.0 are one score here, as in the two steps
    bits = max(1, (distinct.size - 1).bit_length())
    if bits > 24 or np.isnan(distinct[-1]):
        return None
    place_of = distinct.size - 1 - np.searchsorted(distinct, values)  # best score: 0
    place = place_of[arrow.to_numpy(encoded.indices)]
    del encoded
    counts = np.bincount(place, minlength=distinct.size)
    place = place.astype(np.int64, copy=False).view(np.uint64)  # places are not negative
    # In place: at five million rows each array here is 40 MB.
    composite = _every_hash(keys, hash_key, scores.size)
    composite >>= _U64(bits)
    place <<= _U64(64 - bits)
    composite |= place
    del place
    order = sort_order(composite)
    composite = composite[order]
    if (composite[1:] == composite[:-1]).any():
        return None
    return order, int(counts[counts > 1].sum())


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
    hash_key = hashlib.sha256(f"{seed}:{model}".encode()).hexdigest()[:16]
    few = _few_scores_order(scores, keys, hash_key)
    if few is not None:
        return few[0], scores[few[0]], few[1]
    # Any sort will do: equal scores are put in their seeded order just below.
    order = descending_order(scores)
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
    hashes = _tied_hashes(keys, rows, hash_key, len(scores))
    order[positions] = rows[_by_group_then_hash(group, hashes)]
    ordered[positions] = scores[order[positions]]  # equal, but 0.0 and -0.0 are two values
    return order, ordered, len(positions)
