"""Candidates' text columns a batch at a time, in any order the caller gives: the export's read.

An export of a pool holding gigabytes of text never holds the whole of it: the caller
hands batches of candidate ids (in ranking order), and each batch comes back as one Arrow
table of ``key``, ``text``, ``gold`` and ``meta`` (``''`` for NULL) in that order. The
rows come through the standard library's ``sqlite3`` on one read-only connection (the
same engine as every other connection of this process, so opening the file here drops no
lock another connection holds), inside one read transaction: every batch sees the same
state of the file. Values come as bytes (no decoding to Python text and back) and go
into ``large_string`` arrays, whose 64-bit offsets no amount of text overflows.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from triage.base import arrow
from triage.store import connection, integrity

NAMES = ("key", "text", "gold", "meta")
# The ids travel as one JSON parameter; CROSS JOIN keeps json_each the outer loop, so each
# batch is that many look-ups by rowid, never a scan of the table.
_SQL = ("SELECT c.id, CAST(c.key AS TEXT), CAST(c.text AS TEXT), "
        "CAST(coalesce(c.gold, '') AS TEXT), CAST(coalesce(c.meta, '') AS TEXT) "
        "FROM json_each(?) AS j CROSS JOIN candidates AS c ON c.id = j.value")


def text_batches(path: str | Path, batches: Iterable[np.ndarray]) -> Iterator[Any]:
    """For each array of candidate ids, an Arrow table of their NAMES columns in that order."""
    conn = integrity.read_only_connection(Path(path), connection.BUSY_TIMEOUT_S)
    conn.text_factory = bytes
    try:
        conn.execute("BEGIN")   # one snapshot for the whole export
        for ids in batches:
            yield _batch(conn, np.asarray(ids, dtype=np.int64))
    finally:
        conn.close()


def _batch(conn: Any, ids: np.ndarray) -> Any:
    import pyarrow as pa

    order = np.argsort(ids, kind="stable")
    wanted = ids[order]                      # in id order: the file is read front to back
    rows = conn.execute(_SQL, [json.dumps(wanted.tolist())]).fetchall()
    found = np.fromiter((r[0] for r in rows), np.int64, len(rows))
    if found.size != wanted.size or not np.array_equal(found, wanted):
        rows = _in_order(rows, wanted)
    columns = list(zip(*rows)) if rows else [() for _ in range(5)]
    table = pa.table([arrow.utf8(list(c)) for c in columns[1:]], names=list(NAMES))
    back = np.empty_like(order)
    back[order] = np.arange(order.size)     # position in id order of each asked id
    return table.take(arrow.from_numpy(back))


def _in_order(rows: list[tuple[Any, ...]], wanted: np.ndarray) -> list[tuple[Any, ...]]:
    """``rows`` in the order of ``wanted`` (a missing candidate: empty cells)."""
    by_id = {r[0]: r for r in rows}
    empty = (b"", b"", b"", b"")
    return [by_id.get(int(i), (int(i), *empty)) for i in wanted]
