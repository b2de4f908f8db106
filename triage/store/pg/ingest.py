"""A candidate pool straight to the server at COPY speed (``triage new URL SOURCE``).

The importer (:mod:`triage.ingest.importer`) reads and checks the file with Arrow and ranks
the models exactly as for a file; :func:`pool_writer` gives it a writer that sends the
candidates to PostgreSQL instead of SQLite. Each Arrow batch is written as CSV by Arrow's
C++ writer and streamed into ``COPY … FROM STDIN (FORMAT csv)``: the server parses the same
bytes ``psql``'s ``\\copy`` would send, and no Python object is made per value. The primary
key is dropped for the copy and built once after it: growing it row by row made the copy
three times slower. Everything runs inside the caller's transaction: an error or a cancel
leaves the server as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from triage.base import arrow
from triage.base.errors import TriageError
from triage.store.pg.copy import copy_arrow, restart_identities, without_primary_key
from triage.store.pg.url import ServerUrl
from triage.store.poolwrite import ALREADY, Advance, Info, Models, Plan

if TYPE_CHECKING:
    import psycopg



def pool_writer(conn: psycopg.Connection[Any], url: ServerUrl,
                plan: Plan | None = None) -> Callable[..., None]:
    """A writer with :func:`triage.store.poolwrite.write_pool`'s signature, to the server.

    ``plan(model)`` may give the overlap plan to store with a model's ranking, in the
    same server transaction (as for a file).
    """

    def write(db: Any, rows: Any, models: Models, *, info: Info, chunk: int,
              advance: Advance, after: Any = None) -> None:
        if after is not None:
            raise TriageError("a file that carries labels cannot go straight to a server: "
                              "create a project file from it, then `triage push` it")
        write_pool(conn, url, rows, models, info=info, chunk=chunk, advance=advance,
                   plan=plan)

    return write


def write_pool(conn: psycopg.Connection[Any], url: ServerUrl, rows: Any, models: Models, *,
               info: Info, chunk: int, advance: Advance, plan: Plan | None = None) -> None:
    """Candidates 1..N from the Arrow table ``rows``, then ``models()`` and ``info()``."""
    s = url.schema
    found = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {s}.candidates)".encode()).fetchone()
    if found and found[0]:
        raise TriageError(ALREADY)
    # Emptying the table in this transaction lets COPY write the rows frozen (no later
    # rewrite by VACUUM or hint bits); it was empty already.
    conn.execute(f"TRUNCATE {s}.candidates".encode())
    with without_primary_key(conn, url, "candidates"):
        copy_candidates(conn, url, rows, chunk, advance)
    for model in models():
        row = conn.execute(
            f"INSERT INTO {s}.models(name, source_column, source_file, imported_at, "
            "tied_items) VALUES (%s, %s, %s, %s, %s) RETURNING id".encode(), model.row(),
        ).fetchone()
        if row is None:
            raise TriageError(f"the server did not return the id of model {model.name!r}")
        conn.execute(f"INSERT INTO {s}.rankings(model_id, candidate_ids, scores) "
                     "VALUES (%s, %b, %b)".encode(), [row[0], *model.blobs()])
        ids = plan(model) if plan is not None else None
        if ids is not None:
            store_plan(conn, url, np.asarray(ids, dtype=np.int64))
        advance(len(model.candidate_ids))
    for key, value in info():
        conn.execute(f"INSERT INTO {s}.project(key, value) VALUES (%s, %s) ON CONFLICT (key) "
                     "DO UPDATE SET value = excluded.value".encode(), [key, value])
    restart_identities(conn, url)


def store_plan(conn: psycopg.Connection[Any], url: ServerUrl, ids: np.ndarray) -> None:
    """Replace the overlap plan with ``ids``, by COPY.

    An array parameter of a hundred thousand ids took a fifth of a second to send.
    """
    s = url.schema
    conn.execute(f"DELETE FROM {s}.plan WHERE kind = 'overlap'".encode())
    if not ids.size:
        return
    text = "\toverlap\n".join(map(str, ids.tolist())) + "\toverlap\n"
    with conn.cursor() as cur, cur.copy(f"COPY {s}.plan (candidate_id, kind) FROM STDIN"
                                        .encode()) as copy:
        copy.write(text.encode())


def copy_candidates(conn: psycopg.Connection[Any], url: ServerUrl, rows: Any, chunk: int,
                    advance: Advance) -> None:
    """Stream the Arrow table ``rows`` (key, text[, meta, gold]) into COPY, with ids 1..N."""
    import pyarrow as pa

    def batches() -> Any:
        start = 1
        for batch in rows.to_batches(max_chunksize=chunk):
            ids = arrow.from_numpy(np.arange(start, start + batch.num_rows, dtype=np.int64))
            start += batch.num_rows
            yield pa.RecordBatch.from_arrays([ids, *batch.columns],
                                             names=["id", *rows.column_names])

    copy_arrow(conn, url, "candidates", batches(), freeze=True, advance=advance)


__all__ = ["copy_candidates", "pool_writer", "store_plan", "write_pool"]
