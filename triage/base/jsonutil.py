"""Plain-JSON conversion shared by the core (reports) and the command line."""

from __future__ import annotations

import math
from dataclasses import asdict, is_dataclass
from typing import Any


def jsonable(value: Any) -> Any:
    """Convert dataclasses, numpy scalars/arrays and non-finite floats to plain JSON values.

    NaN and infinities become ``null``: JSON has no spelling for them, and a reader should
    see "no value" rather than a number that is not one.
    """
    if is_dataclass(value) and not isinstance(value, type):
        return jsonable(asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if hasattr(value, "tolist") and callable(value.tolist):  # numpy array or scalar
        return jsonable(value.tolist())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    return value
