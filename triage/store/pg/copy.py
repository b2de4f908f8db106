"""Push a project file to the server (``triage push``); pulling is in :mod:`.pull`.

Push goes table by table over the columns of the SQLite head schema
(:func:`triage.store.pg.tables.head_tables`), so the file and the server hold the same
rows under the same ids, in one server transaction with ``COPY``. The big tables get
their primary key built after the copy; identities restart past the highest id pushed.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import sqlite_utils

from triage.base.errors import TriageError
from triage.store import bulkrun, connection, integrity
from triage.store.pg.audit import store_audit_order
from triage.store.pg.connect import transaction
from triage.store.pg.schema import SERVER_ONLY, SERVER_SCHEMA_KEY, ensure_project
from triage.store.pg.tables import Table, head_tables, table
from triage.store.pg.url import ServerUrl, parse_url

if TYPE_CHECKING:
    import psycopg

# Big append-only tables: their primary key is built once, after the COPY.
APPENDED = ("candidates", "labels")


# --------------------------------------------------------------------------- push


def push(path: str | Path, url: ServerUrl | str) -> dict[str, int]:
    """Publish the project file at ``path`` as ``url``'s project; returns rows per table."""
    url = parse_url(url) if isinstance(url, str) else url
    with tempfile.TemporaryDirectory(prefix="triage-push-") as tmp:
        if connection.check_project(path) < len(connection.known_migrations()):
            # An older file is brought to the head schema in a copy: push never changes it.
            path = _snapshot_copy(path, Path(tmp) / "copy.triage")
        db, _backup = connection.open_database(path)
        try:
            with transaction(url) as conn:
                ensure_project(conn, url)
                refuse_if_published(conn, url)
                return push_tables(db, conn, url)
        finally:
            db.close()


def _snapshot_copy(path: str | Path, target: Path) -> Path:
    """A consistent copy of the project at ``path`` (SQLite's online backup, log included)."""
    import sqlite3

    # Not mode=ro: a read-only connection cannot remove the -wal and -shm files it makes.
    source = sqlite3.connect(path, timeout=connection.BUSY_TIMEOUT_S)
    try:
        copy = sqlite3.connect(target)
        with copy:
            source.backup(copy)
        copy.close()
    finally:
        source.close()
    return target


def refuse_if_published(conn: psycopg.Connection[Any], url: ServerUrl) -> None:
    """TriageError when ``url``'s project already has candidates on the server."""
    row = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {url.schema}.candidates)".encode()
                       ).fetchone()
    if row and row[0]:
        raise TriageError(f"{url.display} already holds a project; choose another "
                          "?project= name (nothing was written)")


def push_tables(db: sqlite_utils.Database, conn: psycopg.Connection[Any], url: ServerUrl,
                only: tuple[str, ...] | None = None, *, finish: bool = True) -> dict[str, int]:
    """COPY every table (or those named in ``only``) of ``db`` into the server schema.

    ``finish`` False leaves the identities and the audit order to the caller."""
    counts: dict[str, int] = {}
    for t in head_tables():
        if t.name in SERVER_ONLY or (only is not None and t.name not in only):
            continue
        if t.name != "project":  # the file's rows replace what init put there (annotators)
            conn.execute(f"DELETE FROM {url.schema}.{t.name}".encode())
        if t.name == "candidates":
            with without_primary_key(conn, url, t.name):
                counts[t.name] = _push_candidates(db, conn, url)
            continue
        where = f" WHERE key != '{SERVER_SCHEMA_KEY}'" if t.name == "project" else ""
        rows = db.execute(f"SELECT {t.column_list} FROM {t.name}{where}")  # noqa: S608
        if t.name in APPENDED:  # big tables: build the primary key once, after the COPY
            with without_primary_key(conn, url, t.name):
                counts[t.name] = copy_rows(conn, url, t, rows)
        else:
            counts[t.name] = copy_rows(conn, url, t, rows)
    if finish:
        restart_identities(conn, url)
        store_audit_order(conn, url)
    if "annotators" in counts:
        add_member_annotators(conn, url)
    return counts


def add_member_annotators(conn: psycopg.Connection[Any], url: ServerUrl) -> None:
    """An annotator row for every login role in the project's annotator group."""
    from triage.store.pg.functions import NOW_TEXT

    conn.execute(
        f"INSERT INTO {url.schema}.annotators(name, created_at) SELECT r.rolname, {NOW_TEXT} "
        "FROM pg_roles r WHERE r.rolcanlogin AND pg_has_role(r.oid, %s, 'MEMBER') "
        "AND NOT r.rolsuper ON CONFLICT (name) DO NOTHING".encode(), [url.annotator_role])


def copy_rows(conn: psycopg.Connection[Any], url: ServerUrl, t: Table, rows: Any) -> int:
    """COPY ``rows`` (tuples in ``t``'s column order) into the server's table ``t``."""
    n = 0
    statement = f"COPY {url.schema}.{t.name} ({t.column_list}) FROM STDIN"
    with conn.cursor() as cur, cur.copy(statement.encode()) as copy:
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


# What a string may not hold to go into the server's text format as Arrow writes it
# unquoted (a backslash is that format's escape; Arrow refuses the others unquoted), and
# into CSV unquoted (a quote, the delimiter or a line end).
TEXT_MARKS = (b"\t", b"\r", b"\n", b"\\", b'"')
CSV_MARKS = (b",", b'"', b"\r", b"\n")


def copy_arrow(conn: psycopg.Connection[Any], url: ServerUrl, name: str, batches: Any,
               *, freeze: bool = False, advance: Callable[[int], None] | None = None) -> int:
    """Stream Arrow record batches into ``COPY`` of table ``name``; rows written.

    Arrow's C++ writer makes the rows (no Python object per value). Batches go in the
    server's text format while their strings need no escape (:data:`TEXT_MARKS`): the
    server parses it about a fifth faster than CSV. From the first batch that does, the
    rest go as CSV in a second COPY, unquoted where nothing needs quotes, else with every
    string quoted and a null unquoted and empty: in PostgreSQL's CSV that is "" for an
    empty string and NULL for a missing value. ``freeze`` writes the rows frozen; only for
    a table created or emptied in this transaction.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    options = {"text": pacsv.WriteOptions(include_header=False, quoting_style="none",
                                          delimiter="\t", null_string="\\N"),
               "csv": pacsv.WriteOptions(include_header=False),
               "bare": pacsv.WriteOptions(include_header=False, quoting_style="none")}
    n = 0
    form = None
    with conn.cursor() as cur, contextlib.ExitStack() as stack:
        # The COPY starts with the first batch (its columns name the table's); a failure
        # in the batches (a bad row read on another thread, a cancel) ends it as failed.
        copy: Any = None
        for batch in batches:
            wanted = "text" if form != "csv" and plain_strings(batch, TEXT_MARKS, nonempty=False) \
                else "csv"
            if wanted != form:
                stack.close()   # the text COPY so far ends; the rest go as CSV
                form = wanted
                statement = (f"COPY {url.schema}.{name} ({', '.join(batch.schema.names)}) "
                             f"FROM STDIN (FORMAT {form}{', FREEZE' if freeze else ''})")
                copy = stack.enter_context(cur.copy(statement.encode()))
            how = form if form == "text" or not plain_strings(batch, CSV_MARKS,
                                                              nonempty=True) else "bare"
            sink = pa.BufferOutputStream()
            pacsv.write_csv(batch, sink, options[how])
            copy.write(memoryview(sink.getvalue()))
            n += batch.num_rows
            if advance is not None:
                advance(batch.num_rows)
    return n


def plain_strings(batch: Any, marks: tuple[bytes, ...] = CSV_MARKS, *,
                  nonempty: bool = True) -> bool:
    """Whether no string of ``batch`` holds any of ``marks`` (and, ``nonempty``, none is "").

    Unquoted in CSV, an empty string would be NULL. The check is a byte search per mark over
    the strings' bytes and a minimum of their lengths, in C.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    for column in batch.columns:
        kind = column.type
        if pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind):
            continue
        if not (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
            return False   # a kind not searched here goes quoted
        if column.null_count == len(column):
            continue
        if nonempty and pc.min(pc.binary_length(column)).as_py() == 0:
            return False
        offsets, data = column.buffers()[1:3]
        ends = np.frombuffer(offsets, dtype=np.int64 if pa.types.is_large_string(kind)
                             else np.int32)
        lo, hi = int(ends[column.offset]), int(ends[column.offset + len(column)])
        raw = data.slice(lo, hi - lo).to_pybytes()
        if any(mark in raw for mark in marks):
            return False
    return True


def _push_candidates(db: sqlite_utils.Database, conn: psycopg.Connection[Any],
                     url: ServerUrl) -> int:
    """The file's candidates by Arrow (read in C by ADBC, in a child process) when the
    child can open the file; else as rows through ``db``."""
    t = table("candidates")
    path = connection.database_path(db)
    if path is None or not bulkrun.available() or not integrity.writable(path) \
            or integrity.no_room(Path(path)):
        rows = db.execute(f"SELECT {t.column_list} FROM candidates")  # noqa: S608
        return copy_rows(conn, url, t, rows)
    # The driver infers a column's type from its first rows, so a column that starts
    # with NULLs comes as text with a flag, and the NULLs are put back here.
    batches = bulkrun.read(path, "SELECT id, key, text, coalesce(meta, '') AS meta, "
                           "meta IS NULL AS meta_null, coalesce(gold, '') AS gold, "
                           "gold IS NULL AS gold_null FROM candidates ORDER BY id")
    return copy_arrow(conn, url, "candidates", _with_nulls(batches))


def _with_nulls(batches: Any) -> Any:
    """Candidate batches with meta and gold NULL again where their flag says so."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for got in batches:
        columns = {n: got.column(n) for n in ("id", "key", "text")}
        for n in ("meta", "gold"):
            flag = pc.cast(got.column(f"{n}_null"), pa.bool_())
            columns[n] = pc.if_else(flag, pa.scalar(None, got.column(n).type), got.column(n))
        yield pa.record_batch(list(columns.values()), names=list(columns))


@contextlib.contextmanager
def without_primary_key(conn: psycopg.Connection[Any], url: ServerUrl, name: str) -> Any:
    """Drop table ``name``'s primary key for a bulk COPY and build it once afterwards.

    Only for a table that is empty, in the caller's transaction: nobody else sees it
    without its key. Building the index over a million sorted ids takes a second; growing
    it row by row during the COPY took four.
    """
    key = table(name).key
    conn.execute(f"ALTER TABLE {url.schema}.{name} DROP CONSTRAINT {name}_pkey".encode())
    yield
    conn.execute("SET LOCAL maintenance_work_mem = '256MB'")
    conn.execute(f"ALTER TABLE {url.schema}.{name} ADD PRIMARY KEY ({key})".encode())


def restart_identities(conn: psycopg.Connection[Any], url: ServerUrl) -> None:
    """Start every identity past the highest id pushed, so server rows get fresh ids."""
    for t in head_tables():
        if t.identity:
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{url.schema}.{t.name}', 'id'), "
                f"coalesce(max(id), 0) + 1, false) FROM {url.schema}.{t.name}".encode())
    # Undo marks pushed from a file keep their order; the server's next one follows them.
    conn.execute(f"SELECT setval('{url.schema}.undo_order', coalesce(max(undo_seq), 0) + 1, "
                 f"false) FROM {url.schema}.labels".encode())


# Pulling lives in .pull; these names stay importable from here, loaded when first asked
# for (a team import, which only pushes, never loads the pull and quarantine modules).
PULLED = ("Pulled", "pull", "pull_into", "refresh_labels")


def __getattr__(name: str) -> Any:
    """:mod:`.pull`'s names, asked for from here."""
    if name in PULLED:
        from triage.store.pg import pull as pulling

        return getattr(pulling, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["add_member_annotators", "copy_arrow", "copy_rows", "push", "push_tables",
           "refuse_if_published", "restart_identities"]
