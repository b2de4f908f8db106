"""What PostgreSQL shows every role that can connect, and the project cannot hide itself.

``pg_locks`` (and the function behind it, ``pg_lock_status()``) is readable by everyone,
and ``pg_stat_activity`` names the role of every backend: polled together they give the
moment of every label each named annotator writes (her backend holds a lock on ``labels``
for the few milliseconds of the write), to the hundredth of a second, which the feeds
round to the hour. Only an administrator can take that view away from ``PUBLIC``; the
project's owner keeps it (``held_elsewhere`` and the order lock's ``unstall`` read it).
``triage server init`` and ``grant`` print the SQL while an annotator can still read it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from triage.store.pg.url import ServerUrl

if TYPE_CHECKING:
    import psycopg


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
    if not readable:
        return []
    owner = _one(conn, "SELECT r.rolname FROM pg_namespace n JOIN pg_roles r "
                       "ON r.oid = n.nspowner WHERE n.nspname = %s", [url.schema])
    # A view's functions are checked against the one who reads the view: the owner needs
    # the function back as well as the view.
    return ["REVOKE SELECT ON pg_catalog.pg_locks FROM PUBLIC;",
            "REVOKE EXECUTE ON FUNCTION pg_catalog.pg_lock_status() FROM PUBLIC;",
            sql.SQL("GRANT SELECT ON pg_catalog.pg_locks TO {};").format(
                sql.Identifier(owner)).as_string(conn),
            sql.SQL("GRANT EXECUTE ON FUNCTION pg_catalog.pg_lock_status() TO {};").format(
                sql.Identifier(owner)).as_string(conn)]


__all__ = ["catalog_advice"]
