"""The server's own copy of the audit order, so it can judge an ``audit`` label.

The audit sample is the prefix of one seeded shuffle of the pool
(:func:`triage.base.audit.audit_order`). The lead's publish, team import, ``server init``
and a change of the seed store that shuffle in ``audit_order`` (annotators can neither
read nor write it); ``claim`` marks a lease as the audit item due when every earlier item
of the order is handled or on another desk's lease, and ``add_label`` takes an annotator's
``audit`` label only on such a lease (:mod:`.judge`).
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


def store_audit_order(conn: psycopg.Connection[Any], url: ServerUrl) -> int:
    """Replace the server's audit order with the shuffle of its candidates; rows written."""
    s = url.schema
    row = conn.execute(f"SELECT coalesce(array_agg(id), '{{}}') FROM {s}.candidates".encode()
                       ).fetchone()
    ids = np.asarray(row[0] if row else [], dtype=np.int64)
    order = audit_order(ids, server_seed(conn, url))
    conn.execute(f"DELETE FROM {s}.audit_order".encode())
    if order.size:
        text = "".join(f"{c}\t{i}\n" for i, c in enumerate(order.tolist()))
        with conn.cursor() as cur, cur.copy(
                f"COPY {s}.audit_order (candidate_id, pos) FROM STDIN".encode()) as copy:
            copy.write(text.encode())
    return int(order.size)


__all__ = ["server_seed", "store_audit_order"]
