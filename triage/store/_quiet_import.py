"""Importing sqlite-utils without pandas: a third of a second off every command.

``sqlite_utils.db`` imports pandas at import time only to add ``pd.Timestamp`` to its
column-type table, which Triage never uses; pandas (and pyarrow through it) costs about
0.4 s, paid by every command, while most commands never need pandas. Unless pandas is
already loaded, it is masked while sqlite-utils loads (``sys.modules["pandas"] = None``
makes ``import pandas`` raise ImportError, which sqlite-utils catches) and unmasked right
after, so later code imports pandas normally. :mod:`triage.store` runs this before any of
its modules imports sqlite-utils. (Plugins: every ``Database`` Triage makes passes
``execute_plugins=False``, sqlite-utils' own switch, so none is looked for or run.)
"""

from __future__ import annotations

import sys


def import_sqlite_utils() -> None:
    """Load sqlite-utils, keeping pandas out of it unless pandas is already loaded."""
    if "sqlite_utils" in sys.modules or "pandas" in sys.modules:
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]
    try:
        import sqlite_utils  # noqa: F401 - loaded now, with pandas masked
    finally:
        if "pandas" in sys.modules and sys.modules["pandas"] is None:
            del sys.modules["pandas"]
