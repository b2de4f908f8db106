"""Each candidate's ``meta`` (the columns nobody mapped) as JSON text, built by Arrow.

A candidate's metadata is the JSON object ``json.dumps(dict(zip(names, values)),
ensure_ascii=False)`` would give. Calling that once per row costs seconds per million;
here the same text is joined column-wise in Arrow's C++ kernels: each string column is
escaped as ``json.dumps`` escapes (backslash, quote, and the control characters, short
forms where JSON has them, ``\\u00XX`` otherwise), and the pieces are joined with the
names between them. Numbers (float64 columns) are written as ``repr`` writes them, as
``json.dumps`` does; those few columns (a score the user also wants kept) go through
Python.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from triage.base import arrow

_SHORT = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b",
          "\f": "\\f"}
_CONTROL = "[\\x00-\\x1f]"
_NEEDS = '[\\x00-\\x1f\\\\"]'


def escaped(values: Any) -> Any:
    """A string array's values as the inside of JSON strings (no surrounding quotes)."""
    import pyarrow.compute as pc

    if not len(values) or not pc.any(pc.match_substring_regex(values, _NEEDS)).as_py():
        return values
    for raw, done in _SHORT.items():  # the backslash first: later escapes add some
        if pc.any(pc.match_substring(values, raw)).as_py():
            values = pc.replace_substring(values, raw, done)
    if pc.any(pc.match_substring_regex(values, _CONTROL)).as_py():
        for code in range(0x20):
            char = chr(code)
            if char not in _SHORT and pc.any(pc.match_substring(values, char)).as_py():
                values = pc.replace_substring(values, char, f"\\u{code:04x}")
    return values


def _piece(column: Any) -> Any:
    """A column's values as JSON values: escaped and quoted strings, or numbers."""
    import pyarrow as pa

    if isinstance(column, list):
        column = arrow.strings(column)
    if isinstance(column, np.ndarray) or pa.types.is_floating(column.type):
        numbers = column if isinstance(column, np.ndarray) else arrow.to_numpy(column)
        return arrow.strings([json.dumps(v) for v in numbers.tolist()]), False
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    return escaped(column), True


def objects(names: Sequence[str], columns: Sequence[Any]) -> Any:
    """The JSON object text of each row (a large_string array), ``names`` to values.

    ``columns`` are Arrow string arrays, ``list[str]``, or float64 arrays / Arrow arrays.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    parts: list[Any] = []
    glue = "{"
    for name, column in zip(names, columns):
        values, quoted = _piece(column)
        key = json.dumps(name, ensure_ascii=False)
        parts += [arrow.text(glue + key + (': "' if quoted else ": ")),
                  values.cast(pa.large_string())]
        glue = '", ' if quoted else ", "
    if not parts:
        raise ValueError("no metadata columns")
    parts.append(arrow.text('"}' if glue == '", ' else "}"))
    return pc.binary_join_element_wise(*parts, arrow.text(""))
