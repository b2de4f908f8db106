"""Push a project file to the server, and pull the server's project into a file.

Both go table by table over the columns of the SQLite head schema
(:func:`triage.store.pg.schema.head_tables`), so a file and the server hold the same rows
under the same ids. :func:`push` publishes a whole project (labels and all) in one
server transaction with ``COPY``. :func:`pull_into` brings a file (a client's replica, or
the snapshot ``triage pull`` writes) up to date incrementally: new candidates and labels
by id, undo marks by ``undo_seq``, the small tables (settings, sessions, plan …) whole.
Labels come through ``label_feed`` and sessions through ``session_feed``, so an annotator's
replica holds other annotators' labels with value and note NULL (handled, never shown).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlite_utils

from triage.base.errors import TriageError
from triage.store import connection
from triage.store.pg.connect import connect, translate
from triage.store.pg.schema import (
    SERVER_ONLY,
    SERVER_SCHEMA_KEY,
    Table,
    ensure_project,
    head_tables,
    table,
)
from triage.store.pg.url import ServerUrl, parse_url

if TYPE_CHECKING:
    import psycopg

# Tables a pull replaces whole (small, and rows may disappear from them).
REPLACED = ("project", "settings", "plan")
# Tables a pull copies by id above the replica's highest (append-only on the server).
APPENDED = ("candidates", "labels")
_COPY_BATCH = 50_000


@dataclass(frozen=True)
class Pulled:
    """What one pull brought: new candidates, new labels, new undo marks."""

    candidates: int
    labels: int
    undone: int


def _pk(t: Table) -> str:
    return next(c.name for c in t.columns if c.pk)


def _columns(t: Table) -> str:
    return ", ".join(t.names)


# --------------------------------------------------------------------------- push


def push(path: str | Path, url: ServerUrl | str) -> dict[str, int]:
    """Publish the project file at ``path`` as ``url``'s project; returns rows per table."""
    import psycopg

    if isinstance(url, str):
        url = parse_url(url)
    db, _backup = connection.open_database(path)
    conn = connect(url)
    try:
        with conn.transaction():
            ensure_project(conn, url)
            refuse_if_published(conn, url)
            return push_tables(db, conn, url)
    except psycopg.Error as error:
        raise translate(error, url) from error
    finally:
        conn.close()
        db.close()


def refuse_if_published(conn: psycopg.Connection[Any], url: ServerUrl) -> None:
    """TriageError when ``url``'s project already has candidates on the server."""
    row = conn.execute(f"SELECT EXISTS (SELECT 1 FROM {url.schema}.candidates)".encode()
                       ).fetchone()
    if row and row[0]:
        raise TriageError(f"{url.display} already holds a project; choose another "
                          "?project= name (nothing was written)")


def push_tables(db: sqlite_utils.Database, conn: psycopg.Connection[Any], url: ServerUrl,
                only: tuple[str, ...] | None = None) -> dict[str, int]:
    """COPY every table (or those named in ``only``) of ``db`` into the server schema."""
    counts: dict[str, int] = {}
    for t in head_tables():
        if t.name in SERVER_ONLY or (only is not None and t.name not in only):
            continue
        where = f" WHERE key != '{SERVER_SCHEMA_KEY}'" if t.name == "project" else ""
        rows = db.execute(f"SELECT {_columns(t)} FROM {t.name}{where}")  # noqa: S608
        counts[t.name] = copy_rows(conn, url, t, rows)
    restart_identities(conn, url)
    return counts


def copy_rows(conn: psycopg.Connection[Any], url: ServerUrl, t: Table, rows: Any) -> int:
    """COPY ``rows`` (tuples in ``t``'s column order) into the server's table ``t``."""
    n = 0
    statement = f"COPY {url.schema}.{t.name} ({_columns(t)}) FROM STDIN"
    with conn.cursor() as cur, cur.copy(statement.encode()) as copy:
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


def restart_identities(conn: psycopg.Connection[Any], url: ServerUrl) -> None:
    """Start every identity past the highest id pushed, so server rows get fresh ids."""
    for t in head_tables():
        if t.identity:
            conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{url.schema}.{t.name}', 'id'), "
                f"coalesce(max(id), 0) + 1, false) FROM {url.schema}.{t.name}".encode())


# --------------------------------------------------------------------------- pull


def pull(url: ServerUrl | str, path: str | Path) -> Pulled:
    """``triage pull``: write ``url``'s project into a new, standalone project file."""
    import psycopg

    if isinstance(url, str):
        url = parse_url(url)
    path = Path(path)
    conn = connect(url)
    db: sqlite_utils.Database | None = None
    ok = False
    try:
        db = connection.create_database(path)
        result = pull_into(conn, db, url)
        ok = True
        return result
    except psycopg.Error as error:
        raise translate(error, url) from error
    finally:
        conn.close()
        if db is not None:
            db.close()
        if db is not None and not ok:  # a failed pull leaves no half-written file behind
            for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
                leftover.unlink(missing_ok=True)


def pull_into(conn: psycopg.Connection[Any], db: sqlite_utils.Database,
              url: ServerUrl) -> Pulled:
    """Bring the file ``db`` up to date with ``url``'s project on the server (incremental).

    Reads in one snapshot of the server (REPEATABLE READ when ``conn`` is idle), writes in
    one SQLite transaction. Never writes to the server. The replica's marks (highest
    label id, highest ``undo_seq``) are read first, so an undo that commits meanwhile is
    seen either with its label or by the next pull, never missed.
    """
    after_label = int(db.execute("SELECT coalesce(max(id), 0) FROM labels").fetchone()[0])
    after_undo = int(db.execute("SELECT coalesce(max(undo_seq), 0) FROM labels").fetchone()[0])
    after_candidate = int(db.execute("SELECT coalesce(max(id), 0) FROM candidates"
                                     ).fetchone()[0])
    with _snapshot(conn):
        fetched = _fetch(conn, url, after_label, after_undo, after_candidate,
                         _model_ids(db))
    with db.atomic():
        _apply(db, fetched, first=after_candidate == 0)
    return Pulled(candidates=len(fetched["candidates"]), labels=len(fetched["labels"]),
                  undone=len(fetched["undo"]))


@contextlib.contextmanager
def _snapshot(conn: psycopg.Connection[Any]) -> Any:
    from psycopg import pq

    idle = conn.info.transaction_status == pq.TransactionStatus.IDLE and not conn.autocommit
    with conn.transaction():
        if idle:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def _model_ids(db: sqlite_utils.Database) -> list[int]:
    return [r[0] for r in db.execute("SELECT id FROM models ORDER BY id")]


def _fetch(conn: psycopg.Connection[Any], url: ServerUrl, after_label: int, after_undo: int,
           after_candidate: int, model_ids: list[int]) -> dict[str, list[Any]]:
    s = url.schema

    def rows(query: str, params: list[Any] | None = None) -> list[Any]:
        return conn.execute(query.encode(), params).fetchall()

    out: dict[str, list[Any]] = {}
    for name in ("project", "settings", "annotators", "plan", "certifications", "guidelines"):
        t = table(name)
        where = f" WHERE key != '{SERVER_SCHEMA_KEY}'" if name == "project" else ""
        out[name] = rows(f"SELECT {_columns(t)} FROM {s}.{name}{where}")
    out["sessions"] = rows(f"SELECT {_columns(table('sessions'))} FROM {s}.session_feed()")
    out["models"] = rows(f"SELECT {_columns(table('models'))} FROM {s}.models ORDER BY id")
    out["rankings"] = []
    if [m[0] for m in out["models"]] != model_ids:
        out["rankings"] = rows(f"SELECT {_columns(table('rankings'))} FROM {s}.rankings")
    out["candidates"] = _copy_out(conn, f"SELECT {_columns(table('candidates'))} FROM "
                                        f"{s}.candidates WHERE id > {int(after_candidate)} "
                                        "ORDER BY id")
    out["labels"] = [r[:-1] for r in rows(
        f"SELECT * FROM {s}.label_feed(%s)", [after_label])]  # drop "masked"
    out["undo"] = rows(f"SELECT undo_seq, id, undone_at FROM {s}.undo_feed(%s)", [after_undo])
    return out


def _copy_out(conn: psycopg.Connection[Any], query: str) -> list[Any]:
    """Rows of ``query`` by COPY in binary (a million candidates in about a second)."""
    with conn.cursor() as cur, cur.copy(f"COPY ({query}) TO STDOUT (FORMAT BINARY)".encode()
                                        ) as copy:
        copy.set_types(["bigint", "text", "text", "text", "text"])
        return list(copy.rows())


def _insert(db: sqlite_utils.Database, name: str, rows: list[Any], conflict: str) -> None:
    if not rows:
        return
    t = table(name)
    pk = _pk(t)
    marks = ", ".join("?" * len(t.names))
    sets = ", ".join(f"{c} = excluded.{c}" for c in t.names if c != pk)
    tail = {"ignore": f" ON CONFLICT({pk}) DO NOTHING",
            "update": f" ON CONFLICT({pk}) DO UPDATE SET {sets}", "plain": ""}[conflict]
    # Only head-schema names are joined in; values are parameters.
    sql = f"INSERT INTO {name}({_columns(t)}) VALUES ({marks}){tail}"  # noqa: S608
    for start in range(0, len(rows), _COPY_BATCH):
        db.conn.executemany(sql, rows[start:start + _COPY_BATCH])


def _apply(db: sqlite_utils.Database, fetched: dict[str, list[Any]], *, first: bool) -> None:
    conn = db.conn
    for name in REPLACED:
        conn.execute(f"DELETE FROM {name}")  # noqa: S608 - a fixed table name
        _insert(db, name, fetched[name], "plain")
    if first and fetched["candidates"]:
        # As after an import: the key index is built on first use (candidates.ensure_key_index).
        conn.execute("DROP INDEX IF EXISTS candidates_key")
    _insert(db, "candidates", fetched["candidates"], "ignore")
    _insert(db, "models", fetched["models"], "update")
    _insert(db, "rankings", fetched["rankings"], "update")
    _insert(db, "annotators", fetched["annotators"], "update")
    _insert(db, "sessions", fetched["sessions"], "update")
    _insert(db, "labels", fetched["labels"], "ignore")
    conn.executemany("UPDATE labels SET undo_seq = ?, undone_at = ? WHERE id = ? "
                     "AND undo_seq IS NULL", [(seq, at, lid) for seq, lid, at in fetched["undo"]])
    _insert(db, "certifications", fetched["certifications"], "update")
    _insert(db, "guidelines", fetched["guidelines"], "update")


def refresh_labels(conn: psycopg.Connection[Any], db: sqlite_utils.Database, url: ServerUrl,
                   ids: list[int]) -> None:
    """Re-read labels already in the replica (after a note changed on the server)."""
    rows = conn.execute(f"SELECT * FROM {url.schema}.label_feed(0, %s)".encode(),
                        [ids]).fetchall()
    with db.atomic():
        _insert(db, "labels", [r[:-1] for r in rows], "update")


__all__ = ["Pulled", "copy_rows", "pull", "pull_into", "push", "push_tables",
           "refresh_labels", "refuse_if_published", "restart_identities"]
