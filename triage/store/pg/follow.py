"""The quick pull a desk runs after each of its writes: new labels, undo marks, sessions.

:func:`triage.store.pg.copy.pull_into` brings everything (settings, plan, guidelines …);
a desk that just labelled needs only what the label-and-next path reads: label events and
undo marks newer than the replica's, and the annotators and sessions they refer to
(foreign keys). All four queries go in one pipelined round trip, in one REPEATABLE READ
snapshot, so a label never arrives without its session. The rest follows on the next
full pull (on a notification, or when the project is opened).
"""

from __future__ import annotations

import functools
from typing import Any

import sqlite_utils
from psycopg import sql

from triage.store.pg.tables import table
from triage.store.pg.url import ServerUrl


def _marks(db: sqlite_utils.Database) -> tuple[int, int, int, int]:
    """(highest label id, undo_seq, session id, annotator id) the replica holds."""
    row = db.execute(
        "SELECT (SELECT coalesce(max(id), 0) FROM labels), "
        "(SELECT coalesce(max(undo_seq), 0) FROM labels), "
        "(SELECT coalesce(max(id), 0) FROM sessions), "
        "(SELECT coalesce(max(id), 0) FROM annotators)").fetchone()
    return int(row[0]), int(row[1]), int(row[2]), int(row[3])


@functools.cache
def _queries(schema: str) -> list[bytes]:
    s = sql.Identifier(schema)

    def cols(name: str) -> sql.Composed:
        return sql.SQL(", ").join(sql.Identifier(c) for c in table(name).names)

    return [q.as_bytes(None) for q in (
        sql.SQL("SELECT {} FROM {}.label_feed(%s)").format(cols("labels"), s),
        sql.SQL("SELECT undo_seq, id, undone_at FROM {}.undo_feed(%s)").format(s),
        sql.SQL("SELECT {} FROM {}.session_feed() WHERE id > %s").format(cols("sessions"), s),
        sql.SQL("SELECT {} FROM {}.annotators WHERE id > %s ORDER BY id").format(
            cols("annotators"), s),
    )]


@functools.cache
def _insert_sql(name: str) -> str:
    names = table(name).names
    # Only head-schema column names are joined in; the values are parameters.
    return (f"INSERT INTO {name}({', '.join(names)}) "  # noqa: S608
            f"VALUES ({', '.join('?' * len(names))}) ON CONFLICT(id) DO NOTHING")


def pull_new(conn: Any, db: sqlite_utils.Database, url: ServerUrl, also: bytes | None = None,
             write: tuple[bytes, list[Any]] | None = None) -> tuple[int, list[Any], Any]:
    """Copy new annotators, sessions, labels and undo marks into ``db``, in one round trip.

    Returns (how many labels and undo marks came, the rows of ``also`` read with them,
    e.g. the live leases, the first row of ``write``). ``conn`` must be in autocommit mode.

    Without ``write`` the reads share one REPEATABLE READ snapshot. With one (a label or
    an undo, which take the project's advisory lock) the reads follow it in the same
    implicit transaction, each with a fresh snapshot: every label and undo mark ordered
    before ours has committed (the lock orders them) and none after ours can exist yet, so
    what comes is a complete prefix; labels are read before sessions and annotators, so
    every row they refer to comes too. Nothing reaches ``db`` unless the server committed.
    """
    after_label, after_undo, after_session, after_annotator = _marks(db)
    params = [after_label, after_undo, after_session, after_annotator]
    with conn.pipeline():
        done = conn.execute(write[0], write[1]) if write is not None else None
        if write is None:
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        cursors = [conn.execute(query, [p]) for query, p in zip(_queries(url.schema), params)]
        extra = conn.execute(also) if also is not None else None
        if write is None:
            conn.execute("COMMIT")
    # Leaving the pipeline synced it: the write (if any) is committed.
    labels, undo, sessions, annotators = (cur.fetchall() for cur in cursors)
    also_rows = extra.fetchall() if extra is not None else []
    written = done.fetchone() if done is not None else None
    if not (annotators or sessions or labels or undo):
        return 0, also_rows, written
    with db.atomic():
        db.conn.executemany(_insert_sql("annotators"), annotators)
        db.conn.executemany(_insert_sql("sessions"), sessions)
        db.conn.executemany(_insert_sql("labels"), labels)
        db.conn.executemany("UPDATE labels SET undo_seq = ?, undone_at = ? WHERE id = ? "
                            "AND undo_seq IS NULL", [(seq, at, lid) for seq, lid, at in undo])
    return len(labels) + len(undo), also_rows, written
