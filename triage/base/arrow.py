"""Arrow arrays to and from numpy and Python lists, without pyarrow's pandas detection.

``pyarrow.array``, ``pyarrow.scalar`` and ``to_numpy`` ask whether their argument is a
pandas object, and that question imports pandas, a large import that a command which
only moves rows from a file to SQLite should not pay. These helpers build arrays
from buffers instead (no per-value Python work for numpy input).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa


def from_numpy(values: np.ndarray) -> Any:
    """An int64 or float64 Arrow array sharing ``values``' memory (no nulls)."""
    values = np.ascontiguousarray(values)
    kinds = {np.dtype(np.int64): pa.int64(), np.dtype(np.float64): pa.float64()}
    if values.dtype not in kinds:
        raise TypeError(f"from_numpy takes int64 or float64, not {values.dtype}")
    return pa.Array.from_buffers(kinds[values.dtype], len(values), [None, pa.py_buffer(values)])


def to_numpy(array: Any) -> np.ndarray:
    """A numeric Arrow array or chunked array without nulls as one numpy array."""
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    dtype = np.dtype(array.type.to_pandas_dtype())
    parts = [np.frombuffer(c.buffers()[1], dtype=dtype)[c.offset:c.offset + len(c)]
             for c in chunks if len(c)]
    return np.concatenate(parts) if parts else np.empty(0, dtype)


def string_buffers(array: Any, narrow: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(offsets, bytes) of an Arrow string array as numpy views (offsets index the bytes).

    Offsets are int64; with ``narrow`` a ``string`` array keeps its int32 offsets (no
    copy of the text to widen them).
    """
    wide = array.type == pa.large_string()
    if not wide and not (narrow and array.type == pa.string()):
        array = array.cast(pa.large_string())
        wide = True
    offsets_buffer, data_buffer = array.buffers()[1:3]
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64 if wide else np.int32)[array.offset:
                                                            array.offset + len(array) + 1]
    data = (np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None
            else np.zeros(0, np.uint8))
    return offsets, data


def booleans(values: np.ndarray) -> Any:
    """A boolean Arrow array of a numpy bool array (no nulls)."""
    bits = np.packbits(np.asarray(values, dtype=bool), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def to_numpy_bool(array: Any) -> np.ndarray:
    """A boolean Arrow array (or chunked array) without nulls as a numpy bool array."""
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    parts = [np.unpackbits(np.frombuffer(c.buffers()[1], dtype=np.uint8),
                           bitorder="little")[c.offset:c.offset + len(c)].astype(bool)
             for c in chunks if len(c)]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=bool)


def _variable(kind: Any, values: Sequence[bytes | None]) -> Any:
    lengths = np.fromiter((0 if v is None else len(v) for v in values), np.int64, len(values))
    offsets = np.zeros(len(values) + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    valid = np.fromiter((v is not None for v in values), bool, len(values))
    bitmap = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
    data = b"".join(v for v in values if v is not None)
    return pa.Array.from_buffers(kind, len(values), [bitmap, pa.py_buffer(offsets),
                                                     pa.py_buffer(data)])


def strings(values: Sequence[str | None]) -> Any:
    """A large_string Arrow array of ``values`` (None is null)."""
    return _variable(pa.large_string(), [None if v is None else v.encode("utf-8")
                                         for v in values])


def utf8(values: Sequence[bytes | None]) -> Any:
    """A large_string Arrow array of UTF-8 encoded ``values`` (None is null)."""
    if None in values:
        return _variable(pa.large_string(), values)
    offsets = np.zeros(len(values) + 1, np.int64)   # no Python work per value but len()
    np.cumsum(np.fromiter(map(len, values), np.int64, len(values)),  # type: ignore[arg-type]
              out=offsets[1:])
    data = b"".join(values)  # type: ignore[arg-type]
    return pa.Array.from_buffers(pa.large_string(), len(values),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def text(value: str) -> Any:
    """A large_string Arrow scalar (what compute functions need beside large_string arrays)."""
    return strings([value])[0]


def repeat(value: str, count: int) -> Any:
    """A large_string Arrow array of ``count`` copies of ``value``."""
    encoded = value.encode("utf-8")
    offsets = np.arange(count + 1, dtype=np.int64) * len(encoded)
    return pa.Array.from_buffers(pa.large_string(), count,
                                 [None, pa.py_buffer(offsets), pa.py_buffer(encoded * count)])


def binaries(values: Sequence[bytes | None]) -> Any:
    """A large_binary Arrow array of ``values`` (None is null)."""
    return _variable(pa.large_binary(), values)


def column_of(value: Any) -> Any:
    """A one-element Arrow array of a ``str``, ``int``, ``float``, ``bytes`` or None."""
    if value is None:
        return pa.nulls(1, pa.large_string())
    if isinstance(value, str):
        return strings([value])
    if isinstance(value, bytes):
        return binaries([value])
    if isinstance(value, bool | int):
        return from_numpy(np.array([int(value)], np.int64))
    if isinstance(value, float):
        return from_numpy(np.array([value], np.float64))
    raise TypeError(f"cannot bind a {type(value).__name__}")
