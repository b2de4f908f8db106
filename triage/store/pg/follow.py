"""The quick pull a desk runs after each of its writes: changed labels, sessions, annotators.

:func:`triage.store.pg.pull.pull_into` brings everything (settings, plan, guidelines …);
a desk that just labelled needs only what the label-and-next path reads: label rows
(new ones and undo marks) changed since the replica's last pull, and the annotators and
sessions they refer to (foreign keys). The three queries go in one pipelined round trip,
in one snapshot, so a label never arrives without its session. The rest follows on the
next full pull (on a notification, or when the project is opened).
"""

from __future__ import annotations

import functools
from typing import Any

import sqlite_utils
from psycopg import sql

from triage.store.pg import quarantine
from triage.store.pg.pull import insert_sql, store_labels
from triage.store.pg.tables import table
from triage.store.pg.url import ServerUrl


@functools.cache
def _queries(schema: str) -> list[bytes]:
    s = sql.Identifier(schema)

    def cols(name: str) -> sql.Composed:
        return sql.SQL(", ").join(sql.Identifier(c) for c in table(name).names)

    return [q.as_bytes(None) for q in (
        sql.SQL("SELECT {}, seq FROM {}.label_feed(%s)").format(cols("labels"), s),
        sql.SQL("SELECT {}, seq FROM {}.session_feed(%s)").format(cols("sessions"), s),
        sql.SQL("SELECT {}, seq FROM {}.annotator_feed(%s)").format(cols("annotators"), s),
    )]


def pull_new(conn: Any, db: sqlite_utils.Database, url: ServerUrl, also: bytes | None = None,
             write: tuple[bytes, list[Any]] | None = None) -> tuple[int, list[Any], Any]:
    """Copy changed annotators, sessions and labels into ``db``, in one round trip.

    Returns (how many label rows came, the rows of ``also`` read with them, e.g. the live
    leases, the first row of ``write``). ``conn`` must be in autocommit mode.

    Rows come by the server's change number (``seq > last pulled``). Without ``write`` the
    reads share one REPEATABLE READ snapshot. With one (a label or an undo, which take the
    project's advisory lock, as every numbered change does) the reads follow it in the same
    implicit transaction: every change numbered before ours has committed and none after
    ours can exist yet, so what comes is a complete prefix. Nothing reaches ``db`` unless
    the server committed; a row the file refuses is set aside (:mod:`.quarantine`).
    """
    after = quarantine.mark(db)
    with conn.pipeline():
        done = conn.execute(write[0], write[1]) if write is not None else None
        if write is None:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        cursors = [conn.execute(query, [after]) for query in _queries(url.schema)]
        extra = conn.execute(also) if also is not None else None
        if write is None:
            conn.execute("COMMIT")
    # Leaving the pipeline synced it: the write (if any) is committed.
    labels, sessions, annotators = (cur.fetchall() for cur in cursors)
    also_rows = extra.fetchall() if extra is not None else []
    written = done.fetchone() if done is not None else None
    if not (annotators or sessions or labels):
        return 0, also_rows, written
    with db.atomic():
        for name, rows in (("annotators", annotators), ("sessions", sessions)):
            if rows:
                quarantine.store(db, name, insert_sql(name, "update"), [r[:-1] for r in rows])
        store_labels(db, [r[:-1] for r in labels])
        quarantine.set_mark(db, max(int(r[-1]) for r in (*labels, *sessions, *annotators)))
    return len(labels), also_rows, written
