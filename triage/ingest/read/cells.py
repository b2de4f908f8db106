"""Checks on Arrow string columns that mean what the careful parser's checks mean.

Blank is what ``str.strip`` leaves empty (:data:`WHITESPACE`, every character it strips);
unique compares the text byte for byte. The fast mode uses these to accept a column the
careful parser would accept (a text or key with no blank value, keys without a repeat),
and the importer to turn a blank gold label into none.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from triage.base import arrow

# Every character Python's str.strip() removes (str.isspace), so that "blank" means the
# same on both paths; tests/test_reader.py checks the list against Python itself.
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
              "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_BLANK = "^[" + "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE) + "]*$"

def blank(values: Any) -> Any:
    """Boolean Arrow array: is the string empty or whitespace only (as ``str.strip`` sees it)?"""
    import pyarrow.compute as pc

    return pc.match_substring_regex(values, _BLANK)


# Is this byte the first byte of (the UTF-8 encoding of) a WHITESPACE character?
_BLANK_START = np.zeros(256, dtype=bool)
_BLANK_START[[c.encode("utf-8")[0] for c in WHITESPACE]] = True


def any_blank(values: Any) -> bool:
    """True when some string is empty or whitespace only.

    Only strings that are empty or start with (the first byte of) a whitespace character
    can be blank; numpy finds those from the first bytes, and the exact test runs on them.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    for chunk in chunks:
        offsets, data = arrow.string_buffers(chunk, narrow=True)
        starts, lengths = offsets[:-1], np.diff(offsets)
        maybe = lengths == 0
        nonempty = ~maybe
        maybe[nonempty] = _BLANK_START[data[starts[nonempty]]]
        if maybe.any() and pc.any(blank(chunk.filter(arrow.booleans(maybe)))).as_py():
            return True
    return False


def blank_mask(values: Any) -> np.ndarray | None:
    """Which strings of an Arrow string array are blank (see :func:`blank`); None if none.

    As in :func:`any_blank`, numpy picks the few that can be from their first bytes, and
    only those are tested exactly: most columns have none, and then no regex runs at all.
    """
    offsets, data = arrow.string_buffers(values, narrow=True)
    starts, lengths = offsets[:-1], np.diff(offsets)
    maybe = lengths == 0
    nonempty = ~maybe
    maybe[nonempty] = _BLANK_START[data[starts[nonempty]]]
    if not maybe.any():
        return None
    rows = np.flatnonzero(maybe)
    exact = arrow.to_numpy_bool(blank(values.take(arrow.from_numpy(rows))))
    mask = np.zeros(len(values), dtype=bool)
    mask[rows[exact]] = True
    return mask if mask.any() else None


def all_unique(values: Any) -> bool:
    """True when no string occurs twice.

    Sorting 64-bit fingerprints finds the candidates for duplicates with a few bytes per
    row (a hash table of the strings, ``pyarrow.compute.unique``, held a copy of every key:
    0.7 GB at five million); only strings whose fingerprints collide are compared.
    """
    import pyarrow as pa

    from triage.ingest.hashing import fingerprints

    chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
    prints = np.concatenate([fingerprints(c) for c in chunks] or [np.zeros(0, np.uint64)])
    ranked = np.sort(prints)
    same = ranked[1:][ranked[1:] == ranked[:-1]]
    if same.size == 0:
        return True
    rows = np.flatnonzero(np.isin(prints, same))
    suspects = values.take(arrow.from_numpy(rows.astype(np.int64))).to_pylist()
    return len(set(suspects)) == len(suspects)
