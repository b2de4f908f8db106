"""Keyed hashes of strings, vectorised in numpy: the tie-breaking order of the import.

Tied scores are ordered by a keyed hash of the candidate key (see
:mod:`triage.ingest.importer`). Projects made before this module existed used
``pandas.util.hash_array(keys, hash_key=...)``, which is SipHash-2-4 of each string's UTF-8
bytes under a 16-byte key, followed by a 64-bit finaliser (splitmix64's). This module
computes exactly the same numbers without importing pandas (a third of a second of every
import) and without a Python object per key: it reads the bytes straight out of an Arrow
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


def _rotl(x: np.ndarray, bits: int) -> np.ndarray:
    return (x << _U64(bits)) | (x >> _U64(64 - bits))


def _rounds(v: list[np.ndarray], count: int) -> None:
    v0, v1, v2, v3 = v
    for _ in range(count):
        v0 += v1
        v1 = _rotl(v1, 13)
        v1 ^= v0
        v0 = _rotl(v0, 32)
        v2 += v3
        v3 = _rotl(v3, 16)
        v3 ^= v2
        v0 += v3
        v3 = _rotl(v3, 21)
        v3 ^= v0
        v2 += v1
        v1 = _rotl(v1, 17)
        v1 ^= v2
        v2 = _rotl(v2, 32)
    v[:] = [v0, v1, v2, v3]


def _siphash_words(words: np.ndarray, k0: int, k1: int) -> np.ndarray:
    """SipHash-2-4 of each row of ``words`` (n x blocks, the last block already padded)."""
    n = words.shape[0]
    v = [np.full(n, k0 ^ 0x736F6D6570736575, _U64), np.full(n, k1 ^ 0x646F72616E646F6D, _U64),
         np.full(n, k0 ^ 0x6C7967656E657261, _U64), np.full(n, k1 ^ 0x7465646279746573, _U64)]
    for block in range(words.shape[1]):
        m = words[:, block]
        v[3] ^= m
        _rounds(v, 2)
        v[0] ^= m
    v[2] ^= _U64(0xFF)
    _rounds(v, 4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


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
    for count in np.unique(blocks).tolist():
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
