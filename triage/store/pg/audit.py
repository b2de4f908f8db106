"""The server's own copy of the audit order, so it can judge an ``audit`` label.

The audit sample is the prefix of one seeded shuffle of the pool
(:func:`triage.base.audit.audit_order`). The lead's publish, team import, ``server init``
and a change of the seed store that shuffle in ``audit_order`` (annotators can neither
read nor write it); ``claim`` marks a lease as the audit item due when it is the first
item of the order neither handled nor on another desk's lease, and ``add_label`` takes
an annotator's ``audit`` label only on such a lease (:mod:`.judge`).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import psycopg

from triage.base.audit import audit_order
from triage.store.pg.url import ServerUrl
from triage.store.settings import Settings


def server_seed(conn: psycopg.Connection[Any], url: ServerUrl) -> int:
    """The project's seed as stored on the server (the default when none is)."""
    row = conn.execute(f"SELECT value FROM {url.schema}.settings WHERE key = 'seed'".encode()
                       ).fetchone()
    return int(json.loads(row[0])) if row else Settings().seed


def _candidate_ids(conn: psycopg.Connection[Any], url: ServerUrl) -> np.ndarray:
    """The ids of the server's candidates; 1..N without reading them when they are that.

    Every import numbers its pool 1..N, so the count and the largest id (read from the
    primary key) usually say which ids there are; reading a million back took a second.
    """
    s = url.schema
    row = conn.execute(f"SELECT count(*), min(id), max(id) FROM {s}.candidates".encode()
                       ).fetchone()
    if row is not None and row[0] and row[1] == 1 and row[2] == row[0]:
        return np.arange(1, int(row[0]) + 1, dtype=np.int64)   # unique ids: exactly 1..N
    row = conn.execute(f"SELECT string_agg(int8send(id), ''::bytea) FROM {s}.candidates"
                       .encode()).fetchone()
    ids = np.frombuffer(row[0], dtype=">i8") if row and row[0] else np.empty(0, np.int64)
    return ids.astype(np.int64)


def store_audit_order(conn: psycopg.Connection[Any], url: ServerUrl) -> int:
    """Replace the server's audit order with the shuffle of its candidates; its length."""
    return store_order(conn, url, _candidate_ids(conn, url), server_seed(conn, url))


def store_order(conn: psycopg.Connection[Any], url: ServerUrl, ids: np.ndarray,
                seed: int) -> int:
    """Replace the server's audit order with the shuffle of ``ids`` by ``seed``; its length."""
    order = shuffled(ids, seed)
    store_shuffled(conn, url, order)
    return len(order) // 8


def shuffled(ids: np.ndarray, seed: int) -> bytes:
    """The audit order of ``ids`` as the server stores it: 8-byte big-endian integers."""
    return audit_order(ids, seed).astype(">i8").tobytes()


def store_shuffled(conn: psycopg.Connection[Any], url: ServerUrl, order: bytes) -> None:
    """Replace the server's audit order with ``order`` (from :func:`shuffled`).

    One row, stored uncompressed so the server reads the slices it needs (the start of the
    order), never all of it. By a binary COPY (:func:`triage.store.pg.ingest.copy_blobs`), which
    sends a big value in pieces; docs/benchmarks.md has the figures.
    """
    s = url.schema
    conn.execute(f"DELETE FROM {s}.audit_order".encode())
    if order:
        with conn.cursor() as cur, cur.copy(f"COPY {s}.audit_order (id, n, ids) FROM STDIN "
                                            "(FORMAT binary)".encode()) as copy:
            copy.set_types(["int4", "int4", "bytea"])
            copy.write_row([1, len(order) // 8, order])


__all__ = ["server_seed", "store_audit_order", "store_order", "store_shuffled",
           "shuffled"]
