"""Checksums of stored bytes, vectorised: what ``triage check --deep`` compares at import.

Each string gets a 32-bit polynomial hash of its bytes, counted from its own start:
``h(s) = sum((s[k] + 1) * R**k for k in range(len(s))) mod 2**32`` with an odd ``R``. A
single changed byte always changes it (``R**k`` is odd, so ``d * R**k`` is not 0 modulo
2**32 for any change ``0 < |d| < 256``); other damage goes unseen with odds of 1 in 2**32.

Computed for a whole Arrow array at once, a few vectorised passes over its bytes (a
multiply by a table of powers of ``R``, a sum per string), in slices of about a megabyte: the sums over the
slice are made relative to each string's start by one multiply with an inverse power
(``R`` is odd, hence invertible modulo 2**32). The numbers are stored in project files:
never change them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["byte_hashes", "string_hashes"]

_U32 = np.uint32
_R = 0x9E3779B1
_R_INV = pow(_R, -1, 2**32)
_SLICE = 1 << 20  # bytes hashed at a time: tables and temporaries stay a few MB


class _Tables:
    """Powers of R, inverse powers, and the sums of the first n powers (grown on demand)."""

    size = 0
    powers = np.ones(1, _U32)
    inverse = np.ones(1, _U32)
    sums = np.zeros(2, _U32)

    @classmethod
    def ensure(cls, n: int) -> None:
        if n <= cls.size:
            return
        size = max(n, 1024, 2 * cls.size)
        powers = np.full(size, _R, _U32)
        powers[0] = 1
        np.cumprod(powers, out=powers)
        inverse = np.full(size, _R_INV, _U32)
        inverse[0] = 1
        np.cumprod(inverse, out=inverse)
        sums = np.zeros(size + 1, _U32)
        np.cumsum(powers, out=sums[1:])
        cls.powers, cls.inverse, cls.sums, cls.size = powers, inverse, sums, size


def _long(data: np.ndarray) -> int:
    """The hash of one string longer than a slice, a slice at a time."""
    total, scale = 0, 1
    for start in range(0, len(data), _SLICE):
        piece = data[start:start + _SLICE]
        offsets = np.array([0, len(piece)], dtype=np.int64)
        total = (total + scale * int(_slice(offsets, piece)[0])) % 2**32
        scale = scale * pow(_R, len(piece), 2**32) % 2**32
    return total


def _slice(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """Hashes of the strings at ``offsets`` (relative to ``data``, which they span)."""
    m = int(offsets[-1])
    _Tables.ensure(m + 1)
    starts, ends = offsets[:-1], offsets[1:]
    lengths = ends - starts
    terms = np.empty(m + 1, _U32)   # one spare element: reduceat needs an index below m+1
    np.copyto(terms[:m], data[:m])
    terms[m] = 0
    np.multiply(terms[:m], _Tables.powers[:m], out=terms[:m])
    # A sum over each string (an empty one reads a single element: zeroed below).
    sums = np.add.reduceat(terms, starts, dtype=_U32)
    sums[lengths == 0] = 0
    out = sums * _Tables.inverse[starts]
    out += _Tables.sums[lengths]
    return out.astype(_U32, copy=False)


def byte_hashes(offsets: np.ndarray, data: np.ndarray) -> np.ndarray:
    """The hash (uint32) of each string ``data[offsets[i]:offsets[i + 1]]``."""
    offsets = np.asarray(offsets, dtype=np.int64)
    n = len(offsets) - 1
    out = np.empty(max(n, 0), _U32)
    i = 0
    with np.errstate(over="ignore"):
        while i < n:
            base = int(offsets[i])
            j = int(np.searchsorted(offsets, base + _SLICE, side="right")) - 1
            j = min(max(j, i + 1), n)
            if j == i + 1 and offsets[j] - base > _SLICE:
                out[i] = _long(data[base:int(offsets[j])])
            else:
                out[i:j] = _slice(offsets[i:j + 1] - base, data[base:int(offsets[j])])
            i = j
    return out


def string_hashes(strings: Any) -> np.ndarray:
    """The hash (uint32) of each string's UTF-8 bytes in an Arrow string array."""
    from triage.base.arrow import string_buffers

    offsets, data = string_buffers(strings, narrow=True)
    return byte_hashes(offsets, data)
