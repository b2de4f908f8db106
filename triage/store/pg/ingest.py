"""A candidate pool straight to the server at COPY speed (``triage new URL SOURCE``).

The importer (:mod:`triage.ingest.importer`) reads and checks the file with Arrow and ranks
the models exactly as for a file; :func:`pool_writer` gives it a writer that sends the
candidates to PostgreSQL instead of SQLite. The writer is called as soon as the reader
thread has started, so the connection and the project's schema are made while the first
batches are parsed, and the batches go into ``COPY … FROM STDIN (… FREEZE)`` as they
arrive: Arrow's C++ writer writes each in the server's text format, or as CSV once a
batch holds a string that format would need escaped
(:func:`~triage.store.pg.copy.copy_arrow`; no Python object per value). Meanwhile the
reader thread ranks the models, so what follows the COPY is server work: the primary
key, built once (growing it row by row made the COPY three times slower), then the
rankings, plan and audit order. The key's statement is pipelined: while the server
builds it, the client takes the first ranking, and a helper thread draws the overlap
plan (as the plan's COPY text) and then shuffles the audit order. Everything runs in one
server transaction: an error, a bad row found mid-file or a cancel leaves the server as
it was.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.base import arrow
from triage.base.errors import TriageError
from triage.store.pg.copy import copy_arrow, restart_identities
from triage.store.pg.tables import table
from triage.store.pg.url import ServerUrl
from triage.store.poolwrite import ALREADY, Advance, Info, Models, Plan

if TYPE_CHECKING:
    import psycopg
    import sqlite_utils

    from triage.store.pg.ahead import Ahead


def pool_writer(url: ServerUrl, project: sqlite_utils.Database, *, seed: int,
                plan: Plan | None = None, ahead: Ahead | None = None) -> Callable[..., None]:
    """A writer with :func:`triage.store.poolwrite.write_pool`'s signature, to the server.

    Each call is one server transaction: the project's schema, ``project``'s ``project``
    and ``settings`` rows (a new project file made for it), the pool, and the audit order
    shuffled with ``seed``. ``plan(model)`` may give the overlap plan to store with a
    model's ranking (as for a file). ``ahead``: the transaction begun while the command
    loaded (:mod:`triage.store.pg.ahead`), which the first call continues.
    """

    def write(db: Any, rows: Any, models: Models, *, info: Info, chunk: int,
              advance: Advance, after: Any = None) -> None:
        from triage.store.pg.connect import adopted, transaction
        from triage.store.pg.copy import push_tables, refuse_if_published
        from triage.store.pg.schema import ensure_project

        if after is not None:
            raise TriageError("a file that carries labels cannot go straight to a server: "
                              "create a project file from it, then `triage push` it")
        begun = ahead.take() if ahead is not None else None
        with adopted(begun, url) if begun is not None else transaction(url) as conn:
            if begun is None:   # a second try (the careful read) starts from nothing
                ensure_project(conn, url, audit=False)
                refuse_if_published(conn, url)
            push_tables(project, conn, url, only=("settings",), finish=False)
            write_pool(conn, url, rows, models, info=info, chunk=chunk, advance=advance,
                       seed=seed, plan=plan)
            push_tables(project, conn, url, only=("project",), finish=False)

    return write


def write_pool(conn: psycopg.Connection[Any], url: ServerUrl, rows: Any, models: Models, *,
               info: Info, chunk: int, advance: Advance, seed: int,
               plan: Plan | None = None) -> int:
    """Candidates 1..N from ``rows``, then ``models()``, ``info()``, the audit order; N.

    ``rows`` is an Arrow table or a stream of record batches; ``seed`` shuffles the audit
    order."""
    from triage.base.jobs import lane
    from triage.store.pg.audit import shuffled, store_shuffled

    s = url.schema
    found = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {s}.candidates)".encode()).fetchone()
    if found and found[0]:
        raise TriageError(ALREADY)
    # Emptying the tables in this transaction lets COPY write the rows frozen (no later
    # rewrite by VACUUM or hint bits); they were empty already. The plan's table is made
    # ready now too, so nothing but its COPY waits for the candidates' key.
    with conn.pipeline():
        conn.execute(f"TRUNCATE {s}.candidates, {s}.plan".encode())
        conn.execute(f"ALTER TABLE {s}.candidates DROP CONSTRAINT candidates_pkey".encode())
        if plan is not None:
            conn.execute(f"ALTER TABLE {s}.plan DROP CONSTRAINT plan_pkey".encode())
    # What the client computes after the COPY (the audit order, the overlap plan) runs on
    # a second thread while the server builds the key and stores the rankings.
    # The plan is asked for first: it is stored right after the first ranking, the audit
    # order only at the end.
    with lane("pg-import", 1) as pool:
        n = copy_candidates(conn, url, rows, chunk, advance)
        made = iter(models())
        with conn.pipeline():   # the server builds the key while the client goes on
            add_primary_key(conn, url, "candidates")
            first = next(made, None)   # its ranking, and its plan drawn beside the key
            planned = pool.submit(plan_rows, plan, first) if plan is not None and \
                first is not None else None
        order = pool.submit(shuffled, np.arange(1, n + 1, dtype=np.int64), seed)
        keyed = plan is None   # the plan's key is dropped until a plan is stored
        for i, model in enumerate(itertools.chain([first] if first is not None else [], made)):
            if i > 0:
                planned = pool.submit(plan_rows, plan, model) if plan is not None else None
            keyed |= _store_model(conn, url, model, planned, keyed=keyed)
            advance(len(model.candidate_ids))
        # The small statements that remain go in one round trip (a COPY cannot join it).
        with conn.pipeline():
            if not keyed:
                conn.execute(f"ALTER TABLE {s}.plan ADD PRIMARY KEY (candidate_id)".encode())
            for key, value in info():
                conn.execute(f"INSERT INTO {s}.project(key, value) VALUES (%s, %s) ON "
                             "CONFLICT (key) DO UPDATE SET value = excluded.value".encode(),
                             [key, value])
            restart_identities(conn, url)
        store_shuffled(conn, url, order.result())
    return n


def _store_model(conn: psycopg.Connection[Any], url: ServerUrl, model: Any, planned: Any,
                 *, keyed: bool) -> bool:
    """Store ``model``, its ranking and the plan ``planned`` gives (a future of
    :func:`plan_rows`, or None) into the plan table emptied in this transaction; whether
    the plan's key was built (``keyed``: it is already)."""
    s = url.schema
    row = conn.execute(
        f"INSERT INTO {s}.models(name, source_column, source_file, imported_at, "
        "tied_items) VALUES (%s, %s, %s, %s, %s) RETURNING id".encode(), model.row(),
    ).fetchone()
    if row is None:
        raise TriageError(f"the server did not return the id of model {model.name!r}")
    copy_blobs(conn, f"{s}.rankings (model_id, candidate_ids, scores)",
               ["int8", "bytea", "bytea"], [row[0], *model.blobs()])
    text = planned.result() if planned is not None else None
    if text is None:
        return False
    _copy_plan(conn, url, text)
    if not keyed:
        conn.execute(f"ALTER TABLE {s}.plan ADD PRIMARY KEY (candidate_id)".encode())
    return True


def add_primary_key(conn: psycopg.Connection[Any], url: ServerUrl, name: str) -> None:
    """Build table ``name``'s primary key, in one pass (see ``without_primary_key``)."""
    conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
    conn.execute(f"ALTER TABLE {url.schema}.{name} ADD PRIMARY KEY ({table(name).key})"
                 .encode())


def plan_rows(plan: Plan, model: Any) -> bytes | None:
    """The overlap plan ``plan`` draws from ``model`` as the plan's COPY text; None: none.

    Made on the helper thread, so the server does not wait for the text."""
    ids = plan(model)
    if ids is None:
        return None
    ids = np.asarray(ids, dtype=np.int64)
    return ("\toverlap\n".join(map(str, ids.tolist())) + "\toverlap\n").encode() \
        if ids.size else b""


def _copy_plan(conn: psycopg.Connection[Any], url: ServerUrl, text: bytes) -> None:
    """COPY the rows ``text`` (:func:`plan_rows`) into the plan emptied in this transaction.

    Frozen; COPY, because one big array parameter is slow for the client to send."""
    if not text:
        return
    statement = f"COPY {url.schema}.plan (candidate_id, kind) FROM STDIN (FREEZE)"
    with conn.cursor() as cur, cur.copy(statement.encode()) as copy:
        copy.write(text)


def copy_blobs(conn: psycopg.Connection[Any], target: str, types: list[str],
               row: list[Any]) -> None:
    """Insert one row holding big ``bytea`` values by a binary COPY into ``target``.

    As a statement's parameter, a value of megabytes is slow for the client to send (libpq
    moves the rest of one big message after each partial write); COPY sends it in small
    pieces. docs/benchmarks.md has the figures.
    """
    with conn.cursor() as cur, cur.copy(f"COPY {target} FROM STDIN (FORMAT binary)"
                                        .encode()) as copy:
        copy.set_types(types)
        copy.write_row(row)


def copy_candidates(conn: psycopg.Connection[Any], url: ServerUrl, rows: Any, chunk: int,
                    advance: Advance) -> int:
    """Stream ``rows`` (key, text[, meta, gold]) into COPY, with ids 1..N; returns N.

    ``rows`` is an Arrow table or a stream of record batches."""
    import pyarrow as pa

    def batches() -> Any:
        start = 1
        parts = rows.to_batches(max_chunksize=chunk) if isinstance(rows, pa.Table) else rows
        for batch in parts:
            ids = arrow.from_numpy(np.arange(start, start + batch.num_rows, dtype=np.int64))
            start += batch.num_rows
            yield pa.RecordBatch.from_arrays([ids, *batch.columns],
                                             names=["id", *batch.schema.names])

    return copy_arrow(conn, url, "candidates", batches(), freeze=True, advance=advance)


__all__ = ["add_primary_key", "copy_blobs", "copy_candidates", "plan_rows", "pool_writer",
           "write_pool"]
