"""Keyed hashes of strings, vectorised in numpy: the tie-breaking order of the import.

Tied scores are ordered by a keyed hash of the candidate key (see
:mod:`triage.ingest.importer`). Projects made before this module existed used
``pandas.util.hash_array(keys, hash_key=...)``, which is SipHash-2-4 of each string's UTF-8
bytes under a 16-byte key, followed by a 64-bit finaliser (splitmix64's). This module
computes exactly the same numbers without importing pandas (a large import that every
import would otherwise pay; see docs/benchmarks.md) and without a Python object per key: it reads the bytes straight out of an Arrow
string array. ``tests/test_hashing.py`` holds it equal to pandas.

The strings are grouped by their number of 8-byte blocks; each group is one matrix of
little-endian words and SipHash's rounds run over a whole column of it at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from triage.base.arrow import string_buffers

_U64 = np.uint64


_STEP = 16384  # rows hashed at a time: the state and a scratch row stay in the CPU's cache
_INIT = (0x736F6D6570736575, 0x646F72616E646F6D, 0x6C7967656E657261, 0x7465646279746573)


def _rotl(x: np.ndarray, bits: int, scratch: np.ndarray) -> None:
    """Rotate ``x`` left in place (no temporary: ``scratch`` is overwritten)."""
    np.left_shift(x, _U64(bits), out=scratch)
    np.right_shift(x, _U64(64 - bits), out=x)
    np.bitwise_or(x, scratch, out=x)


def _rounds(v0: np.ndarray, v1: np.ndarray, v2: np.ndarray, v3: np.ndarray,
            scratch: np.ndarray, count: int) -> None:
    """``count`` SipRounds over the state arrays, in place."""
    for _ in range(count):
        v0 += v1
        _rotl(v1, 13, scratch)
        v1 ^= v0
        _rotl(v0, 32, scratch)
        v2 += v3
        _rotl(v3, 16, scratch)
        v3 ^= v2
        v0 += v3
        _rotl(v3, 21, scratch)
        v3 ^= v0
        v2 += v1
        _rotl(v1, 17, scratch)
        v1 ^= v2
        _rotl(v2, 32, scratch)


def _siphash_words(words: np.ndarray, k0: int, k1: int) -> np.ndarray:
    """SipHash-2-4 of each row of ``words`` (n x blocks, the last block already padded).

    In slices of ``_STEP`` rows with every operation in place: a whole-column pass per
    operation with fresh temporaries was five times slower (memory-bound).
    """
    n = words.shape[0]
    out = np.empty(n, dtype=_U64)
    state = np.empty((5, min(n, _STEP)), dtype=_U64)
    start_values = [_U64(k0 ^ _INIT[0]), _U64(k1 ^ _INIT[1]), _U64(k0 ^ _INIT[2]),
                    _U64(k1 ^ _INIT[3])]
    for start in range(0, n, _STEP):
        m = min(_STEP, n - start)
        v0, v1, v2, v3, scratch = (state[i, :m] for i in range(5))
        for v, value in zip((v0, v1, v2, v3), start_values, strict=True):
            v.fill(value)
        for block in range(words.shape[1]):
            word = words[start:start + m, block]
            v3 ^= word
            _rounds(v0, v1, v2, v3, scratch, 2)
            v0 ^= word
        v2 ^= _U64(0xFF)
        _rounds(v0, v1, v2, v3, scratch, 4)
        result = out[start:start + m]
        np.bitwise_xor(v0, v1, out=result)
        result ^= v2
        result ^= v3
    return out


def _word_blocks(strings: Any) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """(rows, their lengths, n x blocks little-endian words) per group of equal block count.

    The last block holds the tail bytes, zero-padded, and the length's low byte on top
    (SipHash's padding).
    """
    offsets, data = string_buffers(strings)
    starts, lengths = offsets[:-1], np.diff(offsets)
    if lengths.size and (lengths == lengths[0]).all():  # one length (keys often have)
        width, n = int(lengths[0]), lengths.size
        count = width // 8 + 1
        raw = np.zeros((n, 8 * count), dtype=np.uint8)
        raw[:, :width] = data[offsets[0]:offsets[-1]].reshape(n, width)
        words = raw.view("<u8").reshape(n, count)
        words[:, -1] |= _U64(width & 0xFF) << _U64(56)
        yield np.arange(n), lengths, words
        return
    blocks = lengths // 8 + 1
    padded = np.concatenate([data, np.zeros(8 * int(blocks.max(initial=1)), np.uint8)])
    for count in np.flatnonzero(np.bincount(blocks)).tolist():  # np.unique loads numpy.ma
        rows = np.flatnonzero(blocks == count)
        index = starts[rows, None] + np.arange(8 * count)[None, :]
        raw = padded[index]
        raw[np.arange(8 * count)[None, :] >= lengths[rows, None]] = 0
        words = raw.view("<u8").astype(_U64, copy=False).reshape(len(rows), count)
        words[:, -1] |= (lengths[rows].astype(_U64) & _U64(0xFF)) << _U64(56)
        yield rows, lengths[rows], words


def siphash(strings: Any, key: bytes) -> np.ndarray:
    """SipHash-2-4 (uint64) of each string's UTF-8 bytes under the 16-byte ``key``."""
    if len(key) != 16:
        raise ValueError("SipHash needs a 16-byte key")
    k0, k1 = (int.from_bytes(key[i:i + 8], "little") for i in (0, 8))
    out = np.empty(len(strings), dtype=_U64)
    for rows, _lengths, words in _word_blocks(strings):
        out[rows] = _siphash_words(words, k0, k1)
    return out


def fingerprints(strings: Any) -> np.ndarray:
    """A quick 64-bit fingerprint of each string (equal strings, equal fingerprints).

    Not a keyed hash: for spotting possible duplicates, which are then compared exactly.
    A few multiply-xor steps per 8 bytes, a tenth of SipHash's work.
    """
    out = np.empty(len(strings), dtype=_U64)
    with np.errstate(over="ignore"):
        for rows, lengths, words in _word_blocks(strings):
            h = lengths.astype(_U64) * _U64(0x9E3779B97F4A7C15)
            for block in range(words.shape[1]):
                h = (h ^ words[:, block]) * _U64(0x100000001B3)
                h ^= h >> _U64(29)
            out[rows] = h
    return out


def pandas_hash(strings: Any, hash_key: str) -> np.ndarray:
    """``pandas.util.hash_array`` of non-null strings: SipHash, then a 64-bit finaliser.

    Equal to ``pandas.util.hash_array(np.array(strings, dtype=object), hash_key=hash_key)``.
    """
    with np.errstate(over="ignore"):
        values = siphash(strings, hash_key.encode("utf-8"))
        values ^= values >> _U64(30)
        values *= _U64(0xBF58476D1CE4E5B9)
        values ^= values >> _U64(27)
        values *= _U64(0x94D049BB133111EB)
        values ^= values >> _U64(31)
    return values
