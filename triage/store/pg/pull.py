"""Pull a server project into a project file: ``triage pull``, and every replica's refresh.

:func:`pull_into` brings a file (a client's replica, or the snapshot ``triage pull``
writes) up to date incrementally: new candidates by id, label rows changed since the last
pull by the server's change number (new labels, undo marks, repairs), and the small
tables (settings, annotators, sessions, plan, guidelines …) compared with the file's rows,
so only what changed is written. A pull that finds nothing new writes nothing, and the
desk's ``data_version`` check sees no change. Labels come through ``label_feed``, sessions
through ``session_feed``, rankings and certifications through their feeds
(:mod:`.feeds`), gold only for a role that may read it: an annotator's replica holds
other annotators' labels as "handled by someone" and no scores. A row the file refuses
is set aside (:mod:`.quarantine`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlite_utils

from triage.store import connection
from triage.store.pg import quarantine
from triage.store.pg.connect import connect, translate
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
        private(path)
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


def private(path: Path) -> None:
    """Make a copy of server rows readable by its owner only (mode 0600)."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(FileNotFoundError):
            name.chmod(0o600)


def pull_into(conn: psycopg.Connection[Any], db: sqlite_utils.Database,
              url: ServerUrl) -> Pulled:
    """Bring the file ``db`` up to date with ``url``'s project on the server (incremental).

    Reads in one snapshot of the server (REPEATABLE READ when ``conn`` is idle), writes in
    one SQLite transaction, and only when something changed. Never writes to the server.
    Labels come in the server's change order (``seq > last pulled``), so neither an id nor
    an undo number can stall a replica, and a row changed on the server comes again.
    Rows the file refuses are set aside (:mod:`.quarantine`), never fatal.
    """
    quarantine.ensure_local_tables(db)
    while True:
        pulled = _pull_once(conn, db, url)
        if pulled is not None:
            return pulled


def _marks(db: sqlite_utils.Database) -> tuple[Any, ...]:
    """How far the file has pulled: last candidate id, the plan's digest, last cal snapshot, label mark."""
    row = db.execute(
        "SELECT (SELECT coalesce(max(id), 0) FROM candidates), "
        "(SELECT count(*) || ':' || coalesce(sum(candidate_id), 0) FROM plan), "
        "(SELECT coalesce(max(id), 0) FROM cal_snapshots)").fetchone()
    return int(row[0]), row[1], int(row[2]), quarantine.mark(db)


def _pull_once(conn: psycopg.Connection[Any], db: sqlite_utils.Database,
               url: ServerUrl) -> Pulled | None:
    """One pull; None when another process pulled into the file meanwhile (pull again)."""
    marks = _marks(db)
    after = marks[3]
    models = [tuple(r) for r in db.execute(
        f"SELECT {table('models').column_list} FROM models ORDER BY id")]  # noqa: S608
    with _snapshot(conn):
        fetched = _fetch(conn, url, after, marks[0], marks[1], models, marks[2])
    changes = {name: _changed(db, name, fetched[name]) for name in (*REPLACED, *UPSERTED)}
    changed = tuple(name for name, rows in changes.items() if rows)
    new_rows = any(fetched[k] for k in ("candidates", "labels", "rankings", "plan",
                                         "cal_snapshots"))
    if changed or new_rows or fetched["plan"] is not None or fetched["seq"] > after:
        with _writing(db):
            if _marks(db) != marks:   # another desk of this role on this machine pulled
                return None
            _apply(db, fetched, changes, first=marks[0] == 0)
            quarantine.set_mark(db, fetched["seq"])
    return Pulled(candidates=len(fetched["candidates"]), labels=len(fetched["labels"]),
                  undone=sum(1 for r in fetched["labels"] if r[_UNDONE] is not None),
                  changed=changed + (("plan",) if fetched["plan"] is not None else ()))


@contextlib.contextmanager
def _writing(db: sqlite_utils.Database) -> Iterator[None]:
    """A write transaction taken at once (BEGIN IMMEDIATE): a second process pulling into
    the same file waits for the first instead of failing when its read turns into a write.
    Committed at the end of the block, also when it returns early having written nothing."""
    db.conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute("ROLLBACK")
        raise
    db.conn.execute("COMMIT")


_UNDONE = table("labels").names.index("undone_at")


@contextlib.contextmanager
def _snapshot(conn: psycopg.Connection[Any]) -> Any:
    from psycopg import pq

    idle = conn.info.transaction_status == pq.TransactionStatus.IDLE and not conn.autocommit
    with conn.transaction():
        if idle:
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        yield


def sees_all(conn: psycopg.Connection[Any], url: ServerUrl) -> bool:
    """Whether the connected role may read gold and scores (the lead, the owner)."""
    row = conn.execute("SELECT has_column_privilege(%s, 'gold', 'SELECT')",
                       [f"{url.schema}.candidates"]).fetchone()
    return bool(row and row[0])


def _fetch(conn: psycopg.Connection[Any], url: ServerUrl, after: int,
           after_candidate: int, plan_mark: str, models: list[tuple[Any, ...]],
           after_cal: int = 0) -> dict[str, Any]:
    # long: one read per table, in one snapshot; reading them in a row keeps the order visible
    s = url.schema

    def rows(query: str, params: list[Any] | None = None) -> list[Any]:
        return conn.execute(query.encode(), params).fetchall()

    out: dict[str, Any] = {}
    out["project"] = rows(f"SELECT {table('project').column_list} FROM {s}.project_feed()")
    for name in ("settings", "guidelines"):
        t = table(name)
        out[name] = rows(f"SELECT {t.column_list} FROM {s}.{name} ORDER BY {t.key}")
    t = table("annotators")   # others' joining day only, for an annotator
    out["annotators"] = rows(f"SELECT {t.column_list} FROM {s}.annotator_feed() ORDER BY {t.key}")
    out["models"] = rows(f"SELECT {table('models').column_list} FROM {s}.model_feed()")
    out["cal_snapshots"] = _rankings_blank(rows(
        f"SELECT {table('cal_snapshots').column_list} FROM {s}.cal_feed(%s)", [after_cal]))
    out["certifications"] = rows(f"SELECT {table('certifications').column_list} "
                                 f"FROM {s}.certification_feed()")
    sessions = rows(f"SELECT {table('sessions').column_list}, seq FROM {s}.session_feed(0)")
    out["sessions"] = [r[:-1] for r in sessions]
    server_plan = rows(f"SELECT count(*) || ':' || coalesce(sum(candidate_id), 0) "
                       f"FROM {s}.plan")[0][0]
    out["plan"] = (rows(f"SELECT candidate_id, kind FROM {s}.plan ORDER BY candidate_id")
                   if server_plan != plan_mark else None)
    # Rankings are megabytes: read only when the models differ from the file's.
    out["rankings"] = (_rankings(rows(f"SELECT model_id, candidate_ids, scores "
                                      f"FROM {s}.ranking_feed()"))
                       if [tuple(m) for m in out["models"]] != models else [])
    # The lead reads the table itself (fastest); others what the feed lets them see.
    source = (f"{s}.candidates WHERE id > {int(after_candidate)}" if sees_all(conn, url)
              else f"{s}.candidate_feed({int(after_candidate)})")
    out["candidates"] = _all_rows(conn, f"SELECT id, key, text, meta, gold FROM {source} "
                                        "ORDER BY id")
    labels = rows(f"SELECT {table('labels').column_list}, seq FROM {s}.label_feed(%s)",
                  [after])
    out["labels"] = [r[:-1] for r in labels]
    seqs = [r[-1] for r in labels] + [r[-1] for r in sessions]
    seqs += [r[0] for r in rows(f"SELECT max(seq) FROM {s}.annotators")]
    out["seq"] = max([after, *(int(q) for q in seqs if q is not None)])
    return out


def _rankings(rows: list[Any]) -> list[Any]:
    """Rankings as stored; for a role that may not read scores, a stand-in keeps the order.

    The stand-in scores fall strictly with the rank (1 down to just above 0), so the
    queue serves the same order and no tie appears that the ranking did not have.
    """
    import numpy as np

    out = []
    for model_id, ids, scores in rows:
        if scores is None:
            n = len(ids) // 8
            scores = (1.0 - np.arange(n, dtype="<f8") / max(n, 1)).astype("<f8").tobytes()
        out.append((model_id, ids, scores))
    return out


def _rankings_blank(rows: list[Any]) -> list[Any]:
    """Cal snapshots as stored; blank scores (an annotator's) get the stand-in of rankings."""
    at = table("cal_snapshots").names.index("scores")
    ids_at = table("cal_snapshots").names.index("candidate_ids")
    out = []
    for r in rows:
        r = list(r)
        if r[at] is None:
            r[at] = _rankings([(0, r[ids_at], None)])[0][2]
        out.append(tuple(r))
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


def insert_sql(name: str, conflict: str) -> str:
    """An INSERT of every column of head-schema table ``name`` (``ignore``/``update``/``plain``)."""
    t = table(name)
    marks = ", ".join("?" * len(t.names))
    sets = ", ".join(f"{c} = excluded.{c}" for c in t.names if c != t.key)
    tail = {"ignore": f" ON CONFLICT({t.key}) DO NOTHING",
            "update": f" ON CONFLICT({t.key}) DO UPDATE SET {sets}", "plain": ""}[conflict]
    # Only head-schema names are joined in; values are parameters.
    return f"INSERT INTO {name}({t.column_list}) VALUES ({marks}){tail}"  # noqa: S608


# A row of the labels table with every column in the head schema's order (uid, annotator
# id, undo number, source id ... : ``table("labels").names``), as replication copies it.
# Not a second label event: the desk reads it back from the file as a LabelEvent.
LabelsTableRow = tuple[Any, ...]

_LABELS = table("labels").names
_UNDO = _LABELS.index("undo_seq")
_LABEL_UPSERT = (
    f"INSERT INTO labels({', '.join(_LABELS)}) VALUES ({', '.join('?' * len(_LABELS))}) "  # noqa: S608
    "ON CONFLICT(id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _LABELS if c not in ("id", "undo_seq"))
    + ", undo_seq = CASE WHEN excluded.undone_at IS NULL THEN NULL ELSE labels.undo_seq END")
_RENUMBER = ("UPDATE labels SET undo_seq = (SELECT coalesce(max(undo_seq), 0) + 1 FROM labels) "
             "WHERE id = ? AND undone_at IS NOT NULL AND undo_seq IS NULL")


def store_labels(db: sqlite_utils.Database, rows: list[LabelsTableRow]) -> None:
    """Store label rows from the server; undo marks get the replica's own order numbers.

    Desks follow undo marks by ``undo_seq > last seen``. Numbered here, in the order the
    server made them, a huge number on the server (a hand edit) cannot hide the marks
    that come after it.
    """
    undone = sorted((r for r in rows if r[_UNDONE] is not None),
                    key=lambda r: (r[_UNDO] is None, r[_UNDO] or 0, r[0]))
    clean = [(*r[:_UNDO], None, *r[_UNDO + 1:]) for r in rows]
    for start in range(0, len(clean), _BATCH):
        quarantine.store(db, "labels", _LABEL_UPSERT, clean[start:start + _BATCH])
    db.conn.executemany(_RENUMBER, [(r[0],) for r in undone])


def _insert(db: sqlite_utils.Database, name: str, rows: list[Any], conflict: str) -> None:
    for start in range(0, len(rows), _BATCH):
        quarantine.store(db, name, insert_sql(name, conflict), rows[start:start + _BATCH])


def _apply(db: sqlite_utils.Database, fetched: dict[str, Any], changes: dict[str, list[Any]],
           *, first: bool) -> None:
    """Write what the pull brought, parents before children (the file checks foreign keys)."""
    conn = db.conn
    for name in REPLACED:
        if changes[name]:
            conn.execute(f"DELETE FROM {name}")  # noqa: S608 - a fixed table name
            _insert(db, name, changes[name], "plain")
    if first and fetched["candidates"]:
        # As after an import: the key index is built on first use (candidates.ensure_key_index).
        conn.execute("DROP INDEX IF EXISTS candidates_key")
    _insert(db, "candidates", fetched["candidates"], "ignore")
    if fetched["plan"] is not None:
        conn.execute("DELETE FROM plan")
        _insert(db, "plan", fetched["plan"], "plain")
    _insert(db, "models", changes["models"], "update")
    if changes["models"]:
        _insert(db, "rankings", fetched["rankings"], "update")
    for name in ("annotators", "sessions"):
        _insert(db, name, changes[name], "update")
    store_labels(db, fetched["labels"])
    for name in ("certifications", "guidelines"):
        _insert(db, name, changes[name], "update")
    _insert(db, "cal_snapshots", fetched["cal_snapshots"], "ignore")


def refresh_labels(conn: psycopg.Connection[Any], db: sqlite_utils.Database, url: ServerUrl,
                   ids: list[int]) -> None:
    """Re-read labels already in the replica (after a note changed on the server)."""
    columns = table("labels").column_list
    rows = conn.execute(f"SELECT {columns} FROM {url.schema}.label_feed(0, %s)".encode(),
                        [ids]).fetchall()
    with db.atomic():
        quarantine.ensure_local_tables(db)
        store_labels(db, rows)


__all__ = ["Pulled", "insert_sql", "store_labels", "private", "pull", "pull_into", "refresh_labels", "sees_all"]
