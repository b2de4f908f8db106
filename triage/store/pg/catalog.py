"""What PostgreSQL shows every role that can connect, and the project cannot hide itself.

``pg_locks`` (and the function behind it, ``pg_lock_status()``) is readable by everyone,
and ``pg_stat_activity`` names the role of every backend: polled together they give the
moment of every label each named annotator writes (her backend holds a lock on ``labels``
for the few milliseconds of the write), to the hundredth of a second, which the feeds
round to the hour. Only an administrator can take that view away from ``PUBLIC``; the
project's owner keeps it (``held_elsewhere`` and the order lock's ``unstall`` read it).
``triage server init`` and ``grant`` print the SQL while an annotator can still read it.

Advisory locks are open to everyone too, and each key one takes is an entry of the
server's one shared lock table (``max_locks_per_transaction`` × ``max_connections``): an
annotator who takes some twelve thousand keys from one idle connection fills it, and every
other connection is refused ("out of shared memory"), the lead's ``status`` too, until she
disconnects; no timeout ends an idle connection that holds session locks. Only an
administrator can take the functions away from ``PUBLIC``; the owner keeps the one
``server init`` takes. ``init`` and ``grant`` print that SQL too while an annotator may
take one, and the revoke of temporary tables (thousands created in one transaction she
keeps open, her timeouts turned off, fill the table as well).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from triage.store.pg.url import ServerUrl

if TYPE_CHECKING:
    import psycopg

SETUP_LOCK = "pg_catalog.pg_advisory_xact_lock(bigint)"   # the one ``server init`` takes
# Every function that takes an advisory lock (an entry of the shared lock table).
ADVISORY = tuple(f"pg_catalog.pg_{name}({args})"
                 for name in ("advisory_lock", "advisory_lock_shared", "try_advisory_lock",
                              "try_advisory_lock_shared", "advisory_xact_lock",
                              "advisory_xact_lock_shared", "try_advisory_xact_lock",
                              "try_advisory_xact_lock_shared")
                 for args in ("bigint", "integer, integer"))


def _one(conn: psycopg.Connection[Any], query: str, params: list[str]) -> Any:
    row = conn.execute(query, params).fetchone()
    return row[0] if row else None


def catalog_advice(conn: psycopg.Connection[Any], url: ServerUrl,
                   annotators: list[str]) -> list[str]:
    """The SQL an administrator must run so that ``annotators`` cannot read others' locks."""
    from psycopg import sql

    readable = [a for a in annotators if _one(conn, (
        "SELECT has_table_privilege(%s, 'pg_catalog.pg_locks', 'SELECT') "
        "OR has_function_privilege(%s, 'pg_catalog.pg_lock_status()', 'EXECUTE')"), [a, a])]
    lockers = [a for a in annotators if any(_one(conn, (
        "SELECT has_function_privilege(%s, %s, 'EXECUTE')"), [a, f]) for f in ADVISORY)]
    temporary = [a for a in annotators if _one(conn, (
        "SELECT has_database_privilege(%s, current_database(), 'TEMPORARY')"), [a])]
    if not readable and not lockers and not temporary:
        return []
    owner = sql.Identifier(_one(conn, "SELECT r.rolname FROM pg_namespace n JOIN pg_roles r "
                                      "ON r.oid = n.nspowner WHERE n.nspname = %s", [url.schema]))
    out = []
    if readable:
        # A view's functions are checked against the one who reads the view: the owner
        # needs the function back as well as the view.
        out += ["REVOKE SELECT ON pg_catalog.pg_locks FROM PUBLIC;",
                "REVOKE EXECUTE ON FUNCTION pg_catalog.pg_lock_status() FROM PUBLIC;",
                sql.SQL("GRANT SELECT ON pg_catalog.pg_locks TO {};").format(
                    owner).as_string(conn),
                sql.SQL("GRANT EXECUTE ON FUNCTION pg_catalog.pg_lock_status() TO {};").format(
                    owner).as_string(conn)]
    if lockers:
        out += [f"REVOKE EXECUTE ON FUNCTION {', '.join(ADVISORY)} FROM PUBLIC;",
                sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {};").format(
                    sql.SQL(SETUP_LOCK), owner).as_string(conn)]
    if temporary:   # thousands of temporary tables in one open transaction fill it too
        out.append(sql.SQL("REVOKE TEMPORARY ON DATABASE {} FROM PUBLIC;").format(
            sql.Identifier(_one(conn, "SELECT current_database()", []))).as_string(conn))
    return out


__all__ = ["ADVISORY", "SETUP_LOCK", "catalog_advice"]
