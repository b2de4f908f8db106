"""Connections to the team's server, and what its errors mean to a user.

Every connection commits synchronously (``synchronous_commit=on``: a label is on the
server's disk before it is acknowledged), names itself ``triage`` in ``pg_stat_activity``
and gives up connecting after a few seconds, so a dead server turns into a plain message
instead of a frozen desk. Errors become :class:`~triage.base.errors.TriageError`;
"the server is not there" becomes :class:`~triage.base.errors.ServerUnavailable`, a
``BusyError``, so callers retry it like a locked file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from triage.base.errors import ServerUnavailable, TriageError
from triage.store.pg.url import ServerUrl, parse_url

if TYPE_CHECKING:
    import psycopg

CONNECT_TIMEOUT_S = 5
APPLICATION_NAME = "triage"


MISSING_DRIVER = ("a team server (a postgresql:// address) needs the PostgreSQL driver "
                  "psycopg, which this installation lacks; install it with: "
                  "pip install 'triage[team]' (or pip install 'psycopg[binary]')")


def require_driver() -> None:
    """TriageError saying how to install the PostgreSQL driver when it is missing."""
    try:
        import psycopg  # noqa: F401 - only whether it imports
    except ImportError as error:
        raise TriageError(MISSING_DRIVER) from error


def connect(url: ServerUrl | str, *, autocommit: bool = False) -> psycopg.Connection[Any]:
    """A new psycopg connection to ``url``'s server; ServerUnavailable when it does not answer."""
    require_driver()
    import psycopg
    from psycopg.conninfo import make_conninfo

    if isinstance(url, str):
        url = parse_url(url)
    extra: dict[str, Any] = {}
    if url.param("application_name") is None:
        extra["application_name"] = APPLICATION_NAME
    if url.param("connect_timeout") is None:
        extra["connect_timeout"] = CONNECT_TIMEOUT_S
    options = url.param("options") or ""
    extra["options"] = f"{options} -c synchronous_commit=on".strip()
    try:
        return psycopg.connect(make_conninfo(url.conninfo, **extra), autocommit=autocommit)
    except psycopg.Error as error:
        raise translate(error, url) from error


@contextmanager
def transaction(url: ServerUrl | str) -> Iterator[psycopg.Connection[Any]]:
    """A new connection in one transaction: committed at the end, closed, errors translated."""
    import psycopg

    if isinstance(url, str):
        url = parse_url(url)
    conn = connect(url)
    try:
        with conn.transaction():
            yield conn
    except psycopg.Error as error:
        raise translate(error, url) from error
    finally:
        conn.close()


@contextmanager
def adopted(conn: psycopg.Connection[Any], url: ServerUrl) -> Iterator[psycopg.Connection[Any]]:
    """An open connection's transaction (begun elsewhere): committed at the end, closed."""
    import psycopg

    try:
        yield conn
        conn.commit()
    except psycopg.Error as error:
        raise translate(error, url) from error
    finally:
        conn.close()


def translate(error: Exception, url: ServerUrl) -> TriageError:
    """The user-facing error for a psycopg error raised while talking to ``url``'s server."""
    import psycopg
    from psycopg import errors

    first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if isinstance(error, errors.InsufficientPrivilege) and "table settings" in str(error):
        return TriageError(f"only the lead (role {url.lead_role}) may change settings")
    if isinstance(error, errors.InsufficientPrivilege):
        return TriageError(f"{url.display}: permission denied ({first}); "
                           f"ask the project's lead (role {url.lead_role}) to do this")
    if isinstance(error, psycopg.OperationalError) and _authentication(error):
        # Wrong or missing password, or a login the server's rules refuse: the user's to
        # fix, never retried.
        return TriageError(f"the server at {url.host} refused the login "
                           f"(authentication failed: {_reason(error)}); check the role and "
                           "its password (PGPASSWORD, ~/.pgpass or a PGSERVICE file)")
    if isinstance(error, errors.AdminShutdown | errors.CannotConnectNow | errors.CrashShutdown):
        return ServerUnavailable(f"the server at {url.host} is not answering ({first})")
    if isinstance(error, psycopg.OperationalError) and _unanswered(error):
        return ServerUnavailable(f"the server at {url.host} is not answering ({first}); "
                                 "nothing was written, try again when it is back")
    if isinstance(error, psycopg.OperationalError) and "FATAL:" in str(error):
        # The server answered and refused us: a role or database problem.
        return TriageError(f"the server at {url.host} refused the connection: "
                           f"{_reason(error)}")
    if isinstance(error, errors.LockNotAvailable):
        return TriageError(f"{url.display}: another connection holds a lock on the project's "
                           f"tables ({first}); nothing was changed: try again, or end that "
                           "connection (pg_stat_activity names it)")
    if isinstance(error, errors.UndefinedTable | errors.InvalidSchemaName):
        return TriageError(f"{url.display}: there is no project {url.project!r} on this server "
                           "(create it with `triage new URL FILE …` or `triage push`)")
    return TriageError(f"{url.display}: {first}")


# Said by a server that is there but cannot take us yet: worth trying again.
_NOT_READY = ("starting up", "shutting down", "in recovery", "too many clients",
              "not yet accepting connections", "not accepting connections",
              "recovery mode", "consistent recovery state")
# Said when the login itself is refused: not worth trying again.
_AUTHENTICATION = ("password authentication failed", "no password supplied",
                   "authentication failed", "pg_hba.conf rejects", "no pg_hba.conf entry",
                   "peer authentication", "ident authentication", "certificate authentication")


def _reason(error: Exception) -> str:
    """The server's one-line reason, after "FATAL:" when it gave one."""
    text = str(error)
    if "FATAL:" in text:
        text = text.split("FATAL:", 1)[1]
    lines = text.strip().splitlines()
    return lines[0].strip() if lines else type(error).__name__


def _authentication(error: Exception) -> bool:
    """Whether the server (or libpq) refused the login itself."""
    text = str(error).lower()
    return any(reason in text for reason in _AUTHENTICATION)


def _unanswered(error: Exception) -> bool:
    """Whether libpq never got an answer (refused, timed out, connection lost, not ready).

    A server that answered and refused us says so after "FATAL:" (no such role, no such
    database): that is the user's to fix, not a reason to retry; one starting up, shutting
    down or recovering is retried.
    """
    text = str(error)
    if any(reason in text for reason in _NOT_READY):
        return True
    if getattr(error, "sqlstate", None) is not None:
        return False
    return "FATAL:" not in text


def is_lead(conn: psycopg.Connection[Any], url: ServerUrl) -> bool:
    """Whether the connected role may lead ``url``'s project (member of its lead group)."""
    row = conn.execute(
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM pg_roles WHERE rolname = %s) "
        "THEN pg_has_role(current_user, %s, 'MEMBER') ELSE false END",
        [url.lead_role, url.lead_role],
    ).fetchone()
    return bool(row and row[0])


__all__ = ["APPLICATION_NAME", "CONNECT_TIMEOUT_S", "ServerUnavailable", "connect",
           "is_lead", "transaction", "translate"]
