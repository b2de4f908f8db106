"""The team import's server transaction, begun on another thread while the command loads.

``triage new postgresql://… FILE`` spends its first second importing Python modules; the
server would sit idle meanwhile. :func:`begin` connects and makes the project's schema
(``ensure_project``) on a thread of its own, inside the transaction the import then
continues in (:meth:`Ahead.take`), so the server's schema work overlaps the client's
start-up. Nothing is committed until the whole import is; :meth:`Ahead.close` rolls the
transaction back when the import never took it.
"""

from __future__ import annotations

import contextlib
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any

from triage.base.jobs import start
from triage.store.pg.url import ServerUrl

if TYPE_CHECKING:
    import psycopg


class Ahead:
    """A connection opened on another thread, its transaction holding the project's schema."""

    def __init__(self, url: ServerUrl):
        self.url = url
        self._taken = False
        self._future: Future = start(self._open, "pg-import-connect")

    def _open(self) -> psycopg.Connection[Any]:
        import psycopg

        from triage.store.pg.connect import connect, translate
        from triage.store.pg.schema import ensure_project

        conn = connect(self.url)
        try:
            ensure_project(conn, self.url, audit=False)
            from triage.store.pg.copy import refuse_if_published

            refuse_if_published(conn, self.url)
        except psycopg.Error as error:
            conn.close()
            raise translate(error, self.url) from error
        except BaseException:
            conn.close()
            raise
        return conn

    def take(self) -> psycopg.Connection[Any] | None:
        """The connection, its transaction open, the first time; None after that."""
        if self._taken:
            return None
        self._taken = True
        return self._future.result()

    def close(self) -> None:
        """Roll back and close the connection if nobody took it."""
        if self._taken:
            return
        self._taken = True
        with contextlib.suppress(Exception):
            self._future.result().close()


def begin(url: ServerUrl) -> Ahead:
    """Start connecting to ``url`` and making its project's schema, on another thread."""
    return Ahead(url)


__all__ = ["Ahead", "begin"]
