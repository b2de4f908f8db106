"""Pull a server project into a project file: ``triage pull``, and every replica's refresh.

:func:`pull_into` brings a file (a client's replica, or the snapshot ``triage pull``
writes) up to date incrementally: new candidates and labels by id, undo marks by
``undo_seq``, and the small tables (settings, annotators, sessions, plan, guidelines …)
compared with the file's rows, so only what changed is written. A pull that finds nothing
new writes nothing, and the desk's ``data_version`` check sees no change. Labels come
through ``label_feed`` and sessions through ``session_feed``, so an annotator's replica
holds other annotators' labels with value and note NULL: they count as handled (served,
spent), never as a decision anyone can read.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlite_utils

from triage.store import connection
from triage.store.pg.connect import connect, translate
from triage.store.pg.schema import SERVER_SCHEMA_KEY
from triage.store.pg.tables import table
from triage.store.pg.url import ServerUrl, parse_url

if TYPE_CHECKING:
    import psycopg

# Small tables read whole and compared with the file's rows. The first two are replaced
# when they differ (rows may disappear from them); the others only grow or change.
REPLACED = ("project", "settings")
UPSERTED = ("annotators", "sessions", "models", "certifications", "guidelines")
_BATCH = 50_000


@dataclass(frozen=True)
class Pulled:
    """What one pull brought: new candidates, new labels, new undo marks, tables rewritten."""

    candidates: int
    labels: int
    undone: int
    changed: tuple[str, ...] = ()


def pull(url: ServerUrl | str, path: str | Path) -> Pulled:
    """``triage pull``: write ``url``'s project into a new, standalone project file."""
    import psycopg

    url = parse_url(url) if isinstance(url, str) else url
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
    one SQLite transaction, and only when something changed. Never writes to the server.
    The replica's marks (highest label id, highest ``undo_seq``) are read first, so an
    undo that commits meanwhile is seen either with its label or by the next pull.
    """
    marks = db.execute(
        "SELECT (SELECT coalesce(max(id), 0) FROM labels), "
        "(SELECT coalesce(max(undo_seq), 0) FROM labels), "
        "(SELECT coalesce(max(id), 0) FROM candidates), "
        "(SELECT count(*) || ':' || coalesce(sum(candidate_id), 0) FROM plan)").fetchone()
    models = [tuple(r) for r in db.execute(
        f"SELECT {table('models').column_list} FROM models ORDER BY id")]  # noqa: S608
    with _snapshot(conn):
        fetched = _fetch(conn, url, int(marks[0]), int(marks[1]), int(marks[2]), marks[3],
                         models)
    changes = {name: _changed(db, name, fetched[name]) for name in (*REPLACED, *UPSERTED)}
    changed = tuple(name for name, rows in changes.items() if rows)
    new_rows = any(fetched[k] for k in ("candidates", "labels", "undo", "rankings", "plan"))
    if changed or new_rows or fetched["plan"] is not None:
        with db.atomic():
            _apply(db, fetched, changes, first=int(marks[2]) == 0)
    return Pulled(candidates=len(fetched["candidates"]), labels=len(fetched["labels"]),
                  undone=len(fetched["undo"]),
                  changed=changed + (("plan",) if fetched["plan"] is not None else ()))


@contextlib.contextmanager
def _snapshot(conn: psycopg.Connection[Any]) -> Any:
    from psycopg import pq

    idle = conn.info.transaction_status == pq.TransactionStatus.IDLE and not conn.autocommit
    with conn.transaction():
        if idle:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def _fetch(conn: psycopg.Connection[Any], url: ServerUrl, after_label: int, after_undo: int,
           after_candidate: int, plan_mark: str, models: list[tuple[Any, ...]]
           ) -> dict[str, Any]:
    s = url.schema

    def rows(query: str, params: list[Any] | None = None) -> list[Any]:
        return conn.execute(query.encode(), params).fetchall()

    out: dict[str, Any] = {}
    for name in ("project", "settings", "annotators", "models", "certifications", "guidelines"):
        t = table(name)
        where = f" WHERE key != '{SERVER_SCHEMA_KEY}'" if name == "project" else ""
        out[name] = rows(f"SELECT {t.column_list} FROM {s}.{name}{where} ORDER BY {t.key}")
    out["sessions"] = rows(f"SELECT {table('sessions').column_list} FROM {s}.session_feed()")
    server_plan = rows(f"SELECT count(*) || ':' || coalesce(sum(candidate_id), 0) "
                       f"FROM {s}.plan")[0][0]
    out["plan"] = (rows(f"SELECT candidate_id, kind FROM {s}.plan ORDER BY candidate_id")
                   if server_plan != plan_mark else None)
    # Rankings are megabytes: read only when the models differ from the file's.
    out["rankings"] = (rows(f"SELECT {table('rankings').column_list} FROM {s}.rankings")
                       if [tuple(m) for m in out["models"]] != models else [])
    out["candidates"] = _all_rows(conn, f"SELECT {table('candidates').column_list} FROM "
                                        f"{s}.candidates WHERE id > {int(after_candidate)} "
                                        "ORDER BY id")
    out["labels"] = rows(f"SELECT {table('labels').column_list} FROM {s}.label_feed(%s)",
                         [after_label])
    out["undo"] = rows(f"SELECT undo_seq, id, undone_at FROM {s}.undo_feed(%s)", [after_undo])
    return out


def _all_rows(conn: psycopg.Connection[Any], query: str) -> list[Any]:
    """Rows of ``query``, fetched in binary (psycopg's COPY reader was three times slower)."""
    return conn.execute(query.encode(), binary=True).fetchall()


def _changed(db: sqlite_utils.Database, name: str, rows: list[Any]) -> list[Any]:
    """The server's rows of table ``name`` that the file lacks or holds differently."""
    t = table(name)
    local = {r[0]: tuple(r) for r in db.execute(
        f"SELECT {t.key}, {t.column_list} FROM {name}")}  # noqa: S608 - head-schema names
    at = t.names.index(t.key)
    server = [tuple(r) for r in rows]
    if name in REPLACED:
        same = {r[at]: r for r in server} == {k: v[1:] for k, v in local.items()}
        return [] if same else server
    return [r for r in server if local.get(r[at], (None,))[1:] != r]


def _insert(db: sqlite_utils.Database, name: str, rows: list[Any], conflict: str) -> None:
    if not rows:
        return
    t = table(name)
    marks = ", ".join("?" * len(t.names))
    sets = ", ".join(f"{c} = excluded.{c}" for c in t.names if c != t.key)
    tail = {"ignore": f" ON CONFLICT({t.key}) DO NOTHING",
            "update": f" ON CONFLICT({t.key}) DO UPDATE SET {sets}", "plain": ""}[conflict]
    # Only head-schema names are joined in; values are parameters.
    sql = f"INSERT INTO {name}({t.column_list}) VALUES ({marks}){tail}"  # noqa: S608
    for start in range(0, len(rows), _BATCH):
        db.conn.executemany(sql, rows[start:start + _BATCH])


def _apply(db: sqlite_utils.Database, fetched: dict[str, Any], changes: dict[str, list[Any]],
           *, first: bool) -> None:
    """Write what the pull brought, parents before children (the file checks foreign keys)."""
    conn = db.conn
    for name in REPLACED:
        if changes[name]:
            conn.execute(f"DELETE FROM {name}")  # noqa: S608 - a fixed table name
            _insert(db, name, changes[name], "plain")
    if fetched["plan"] is not None:
        conn.execute("DELETE FROM plan")
        _insert(db, "plan", fetched["plan"], "plain")
    if first and fetched["candidates"]:
        # As after an import: the key index is built on first use (candidates.ensure_key_index).
        conn.execute("DROP INDEX IF EXISTS candidates_key")
    _insert(db, "candidates", fetched["candidates"], "ignore")
    _insert(db, "models", changes["models"], "update")
    if changes["models"]:
        _insert(db, "rankings", fetched["rankings"], "update")
    for name in ("annotators", "sessions"):
        _insert(db, name, changes[name], "update")
    _insert(db, "labels", fetched["labels"], "ignore")
    conn.executemany("UPDATE labels SET undo_seq = ?, undone_at = ? WHERE id = ? "
                     "AND undo_seq IS NULL", [(seq, at, lid) for seq, lid, at in fetched["undo"]])
    for name in ("certifications", "guidelines"):
        _insert(db, name, changes[name], "update")


def refresh_labels(conn: psycopg.Connection[Any], db: sqlite_utils.Database, url: ServerUrl,
                   ids: list[int]) -> None:
    """Re-read labels already in the replica (after a note changed on the server)."""
    columns = table("labels").column_list
    rows = conn.execute(f"SELECT {columns} FROM {url.schema}.label_feed(0, %s)".encode(),
                        [ids]).fetchall()
    with db.atomic():
        _insert(db, "labels", rows, "update")


__all__ = ["Pulled", "pull", "pull_into", "refresh_labels"]
