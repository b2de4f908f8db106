"""A replica's connection to its server: reconnecting, errors in plain words, pulling.

:class:`ServerChannel` is the half of :class:`triage.store.pg.link.TeamLink` that talks to
the server: one psycopg connection in autocommit mode (a single statement is one round
trip; several go in an explicit transaction, pipelined where they can be), used by one
thread at a time, reopened after a failure. A lost connection becomes
:class:`ServerUnavailable` (a BusyError), whose message names the server. Pulls write to
the replica through the link's own SQLite connection.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import psycopg
import sqlite_utils
from psycopg import errors as pgerrors

from triage.base.errors import ServerUnavailable, TriageError
from triage.store.pg import serving_sql as q
from triage.store.pg.follow import pull_new
from triage.store.pg.pull import pull_into
from triage.store.pg.url import ServerUrl

log = logging.getLogger(__name__)

# What the server's functions raise for a write they refuse (a check, a permission, a
# session that is not the caller's), and what psycopg raises for text it cannot send.
REFUSALS = (pgerrors.InsufficientPrivilege, pgerrors.CheckViolation, pgerrors.NoDataFound,
            pgerrors.RaiseException, psycopg.DataError, psycopg.IntegrityError)


# What the server raises for a write that must wait: a lock another connection holds too
# long, or labels faster than a person labels. Nothing was written; the desk retries.
WAITS = (pgerrors.LockNotAvailable, pgerrors.ConfigurationLimitExceeded)


def waiting(error: BaseException) -> ServerUnavailable:
    """The desk's sentence for a write the server asked to wait for."""
    diag = getattr(error, "diag", None)
    reason = getattr(diag, "message_primary", None) or str(error).strip().splitlines()[0]
    return ServerUnavailable(f"the team server asked this desk to wait ({reason}); nothing "
                             "was lost and nothing is sent twice: trying again")


def refused(error: BaseException) -> TriageError:
    """The user's message for a write the server refused: its reason, one line."""
    diag = getattr(error, "diag", None)
    reason = getattr(diag, "message_primary", None) or str(error).strip().splitlines()[0]
    return TriageError(f"the server refused: {reason}")

Connect = Callable[[], Any]


class ServerChannel:
    """The server connection of one replica, and the pulls that keep the replica current."""

    def __init__(self, *, url: ServerUrl, connect: Connect, pull_db: sqlite_utils.Database):
        self.url = url
        self.schema = url.schema
        self.host = url.host
        self._connect = connect
        self.pull_db = pull_db            # the link's own connection to the replica file
        self._conn: Any = None
        self._lock = threading.RLock()    # one thread at a time on the server connection
        self.on_news: Callable[[], None] | None = None  # after a pull brought new labels
        self.role: str | None = None
        self.is_lead = False
        self.stale = False                # a write was acknowledged but not pulled yet

    # -- connection --------------------------------------------------------------------

    def unavailable(self, error: BaseException | None = None) -> ServerUnavailable:
        """The plain message for a server that does not answer."""
        detail = f" ({str(error).strip().splitlines()[0]})" if error and str(error).strip() else ""
        return ServerUnavailable(
            f"the team server at {self.host} is not answering{detail}; nothing was lost "
            "and nothing is sent twice: trying again")

    def adopt(self, conn: Any) -> None:
        """Use an already open connection (the one that checked the project) as ours."""
        with self._lock:
            self.drop()
            conn.autocommit = True
            self._conn = conn

    def _connection(self) -> Any:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            self._conn = None
            try:
                conn = self._connect()
            except ServerUnavailable as error:
                raise self.unavailable(error.__cause__ or error) from error
            except psycopg.OperationalError as error:
                raise self.unavailable(error) from error
            # One statement is one round trip; several go in an explicit transaction.
            conn.autocommit = True
            self._conn = conn
        if self.role is None:
            with conn.transaction(), conn.cursor() as cur:
                cur.execute(q.call(self.schema, "is_lead", 0))
                self.is_lead = bool(cur.fetchone()[0])
                cur.execute("SELECT session_user")
                self.role = str(cur.fetchone()[0])
        return conn

    @contextmanager
    def transaction(self, atomic: bool = True, pipeline: bool = False) -> Iterator[Any]:
        """A server cursor, in one transaction when ``atomic`` (else each statement commits).

        With ``pipeline`` the statements are sent without waiting for each answer (results
        arrive when first read). Connection loss becomes ServerUnavailable; the next call
        reconnects.
        """
        with self._lock:
            conn = self._connection()
            try:
                if pipeline:
                    with conn.pipeline(), conn.transaction(), conn.cursor() as cur:
                        yield cur
                elif atomic:
                    with conn.transaction(), conn.cursor() as cur:
                        yield cur
                else:
                    with conn.cursor() as cur:
                        yield cur
            except WAITS as error:
                raise waiting(error) from error
            except psycopg.OperationalError as error:
                self.drop()
                raise self.unavailable(error) from error
            except REFUSALS as error:
                raise refused(error) from error

    def drop(self) -> None:
        """Forget the server connection (the next call reconnects)."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with suppress(psycopg.Error):
                conn.close()

    def close(self) -> None:
        """Close the server connection and the link's replica connection."""
        with self._lock:
            self.drop()
            self.pull_db.close()

    # -- pulling -----------------------------------------------------------------------

    def pull(self) -> None:
        """Bring the whole replica up to date with the server now (any thread)."""
        with self._lock:
            conn = self._connection()
            try:
                conn.autocommit = False   # pull_into reads in one REPEATABLE READ snapshot
                try:
                    pull_into(conn, self.pull_db, self.url)
                finally:
                    if not conn.broken:
                        conn.autocommit = True
            except psycopg.OperationalError as error:
                self.drop()
                raise self.unavailable(error) from error
            self.stale = False

    def pull_new(self, also: Any = None, write: tuple[bytes, list[Any]] | None = None,
                 follow: bool = True) -> Any:
        """Bring new labels, undo marks and sessions into the replica (one round trip).

        With ``write`` (a label or an undo) that statement goes first, in the same round
        trip. Returns (the rows of ``also``, the first row of ``write``). When anything new
        came and ``follow``, ``on_news`` runs (the project follows it at once; a listener
        thread passes False, the project is not its to touch).
        """
        with self._lock:
            conn = self._connection()
            try:
                news, rows, written = pull_new(conn, self.pull_db, self.url, also, write)
            except WAITS as error:
                raise waiting(error) from error
            except psycopg.OperationalError as error:
                self.drop()
                raise self.unavailable(error) from error
            except REFUSALS as error:
                raise refused(error) from error
            self.stale = False
        if news and follow and self.on_news is not None:
            self.on_news()
        return rows, written

    def _after_write(self, full: bool = False) -> None:
        """Pull after an acknowledged write; a failure here loses nothing (pulled later).

        ``full`` after the lead's writes to the small tables (settings, plan …); label
        writes need only the quick pull of new labels.
        """
        try:
            if self.stale or full:
                self.pull()
            else:
                self.pull_new()
        except ServerUnavailable:
            self.stale = True
            log.warning("label acknowledged by %s but not yet pulled into the replica",
                        self.host)

    def _lead_only(self, what: str) -> None:
        """TriageError unless this login role is a lead of the project."""
        self._connection_checked()
        if not self.is_lead:
            raise TriageError(f"only the lead (role {q.lead_role(self.schema)}) may {what}")

    def _connection_checked(self) -> None:
        with self._lock:
            self._connection()
