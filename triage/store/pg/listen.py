"""Follow a server project live: ``LISTEN`` on its channel, call back on every change.

The server's triggers ``pg_notify('triage_<name>', '<table>')`` on each label, undo,
setting, plan or session change. :class:`Listener` keeps its own connection (a listening
connection must not run the desk's transactions), waits for notifications on a worker
thread and calls ``on_change`` with the set of tables named by a burst of notifications
(coalesced: eight desks labelling at once make one pull, not eight). After connecting or
reconnecting it calls back once with ``{"*"}``, since whatever happened while it was not
listening was not announced.

The callback runs on the listener's thread; front ends hand the news to their own thread.

**A notification is only a hint.** PostgreSQL lets any role that can connect ``NOTIFY``
any channel, and no privilege stops it, so a notification carries no data a client
trusts: it only says "pull now", and the pull reads what the caller may read from the
server, incrementally and idempotently (a pull that finds nothing new writes nothing).
A hostile ``NOTIFY`` therefore costs a refresh, and a flood at most one refresh per
:data:`MIN_GAP_S`.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import psycopg
from psycopg import sql

from triage.base.jobs import start

log = logging.getLogger(__name__)

WAIT_S = 0.5          # how long one wait lasts (how quickly stop() is noticed)
COALESCE_S = 0.05     # after a notification, how long to gather the rest of the burst
MIN_GAP_S = 0.25      # at most one callback per this long, however many notifications
RECONNECT_S = 1.0     # pause between attempts while the server does not answer


def channel_of(schema: str) -> str:
    """The notification channel of a project schema (named like the schema)."""
    return schema


class Listener:
    """A LISTEN loop on a worker thread, calling ``on_change(tables)`` for each burst."""

    def __init__(self, connect: Callable[[], Any], channel: str,
                 on_change: Callable[[set[str]], None]):
        self._connect = connect
        self.channel = channel
        self.on_change = on_change
        self._stop = threading.Event()
        self._running: Future | None = None
        self.connected = threading.Event()

    def start(self) -> None:
        """Start listening on a thread of the shared pool (triage.base.jobs)."""
        self._running = start(self.run, f"listen-{self.channel}", loop=True)

    def stop(self, timeout: float = 2.0) -> None:
        """Stop listening and wait (briefly) for the thread to end."""
        self._stop.set()
        if self._running is not None:
            with contextlib.suppress(FutureTimeout):
                self._running.exception(timeout)

    def run(self) -> None:
        """The loop: connect, LISTEN, wait; reconnect after a lost connection."""
        while not self._stop.is_set():
            try:
                self._listen_once()
            except psycopg.Error as error:
                self.connected.clear()
                log.info("listening on %s stopped (%s); reconnecting", self.channel, error)
                self._stop.wait(RECONNECT_S)
            except Exception:   # a failing callback must not end live updates for good
                log.exception("live update failed")
                self._stop.wait(RECONNECT_S)

    def _listen_once(self) -> None:
        conn = self._connect()
        try:
            conn.autocommit = True   # LISTEN takes effect at once; nothing else runs here
            conn.execute(sql.SQL("LISTEN {}").format(sql.Identifier(self.channel)))
            self.connected.set()
            self.on_change({"*"})
            while not self._stop.is_set():
                tables = {n.payload for n in conn.notifies(timeout=WAIT_S, stop_after=1)}
                if not tables:
                    continue
                tables |= {n.payload for n in conn.notifies(timeout=COALESCE_S)}
                started = time.monotonic()
                self.on_change(tables)
                # A flood (from anyone: any role may NOTIFY any channel) costs at most one
                # refresh per gap; what arrives meanwhile is gathered into the next one.
                rest = MIN_GAP_S - (time.monotonic() - started)
                if rest > 0:
                    self._stop.wait(rest)
        finally:
            self.connected.clear()
            conn.close()
