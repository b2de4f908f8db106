"""A replica's link to its project on a PostgreSQL server: every write goes through here.

A team project's writer (:class:`triage.store.teamwriter.TeamWriter`) hands its writes to
:class:`TeamLink`. Each write is one transaction on the server,
committed with ``synchronous_commit=on`` (that commit is the acknowledgement), and then
the replica **pulls** from the server, so the new row arrives with the server's id and the
replica never holds a row the server lacks.

The pull writes through the link's own SQLite connection, not the project's: the
project's ``data_version`` check then sees the change exactly as it sees another desk's
label on one file. A lost connection becomes :class:`ServerUnavailable` (a BusyError: the
desk keeps the label on screen and retries); the next attempt reconnects. A label keeps
the ``uid`` it was first sent with until the server acknowledges it, so a retry after a
lost acknowledgement never makes a second row.
"""

from __future__ import annotations

import random
import socket
import time
from collections.abc import Callable, Iterable

import numpy as np
import sqlite_utils

from triage import __version__
from triage.base.errors import TriageError
from triage.store.calsnap import CalSnapshot, snapshot_values
from triage.store.pg import serving_sql as q
from triage.store.pg.audit import server_seed, store_audit_order
from triage.store.pg.channel import Connect, ServerChannel
from triage.store.pg.pull import refresh_labels
from triage.store.pg.url import ServerUrl
from triage.store.records import new_uid, now_iso
from triage.store.settings import Settings

CONTENDED_S = 2.0          # how long a candidate another desk was claiming counts as taken
CONTENDED_SESSION = -1     # the session id such a candidate is reported under


def _no_nul(*texts: str | None) -> None:
    """TriageError for text PostgreSQL cannot store (a NUL character)."""
    if any(t is not None and "\x00" in t for t in texts):
        raise TriageError("a note or label cannot contain a NUL character (\\0)")


class _Refused(Exception):
    """Rolls a claim's transaction back: the candidate is not ours."""


class TeamLink(ServerChannel):
    """Writes of one replica, performed on the server first and then pulled back."""

    def __init__(self, *, url: ServerUrl, connect: Connect, pull_db: sqlite_utils.Database):
        super().__init__(url=url, connect=connect, pull_db=pull_db)
        self._unsent: tuple[tuple, str] | None = None   # (label's fields, its uid)
        self._kinds: tuple[int, list[tuple[str, str]]] | None = None
        self._contended: dict[int, float] = {}   # candidate -> until (monotonic clock)
        self._losses = 0                          # claims lost in a row
        self.sessions: set[int] = set()           # sessions this link opened

    # -- annotators and sessions ---------------------------------------------------------

    def ensure_annotator(self, name: str) -> int:
        """The server id of annotator ``name``: on a server that is a login role's name."""
        name = name.strip()
        self._connection_checked()
        with self.transaction(atomic=False) as cur:
            if name == self.role:
                cur.execute(q.call(self.schema, "ensure_annotator", 0))
            elif not self.is_lead:
                raise TriageError(
                    f"on a team server you label as your database role ({self.role}), "
                    f"not as {name!r}")
            else:
                cur.execute(q.ensure_annotator(self.schema), [name, now_iso(), name])
            annotator_id = int(cur.fetchone()[0])
        self._after_write()
        return annotator_id

    def start_session(self, annotator_id: int) -> int:
        """Open a session for this login role; returns the server's session id."""
        with self.transaction(atomic=False) as cur:
            cur.execute(q.call(self.schema, "start_session", 2),
                        [socket.gethostname()[:255], __version__[:64]])
            session_id = int(cur.fetchone()[0])
        self.sessions.add(session_id)
        self._after_write()
        return session_id

    def end_session(self, session_id: int) -> None:
        """Close a session and release its lease."""
        with self.transaction() as cur:
            cur.execute(q.call(self.schema, "end_session", 1), [session_id])
        self.sessions.discard(session_id)
        self._after_write()

    def release_sessions(self) -> None:
        """Free the leases of the sessions this link opened (the project is closing).

        The sessions stay open (the desk may come back to them), but the candidates on
        their screens go back to the team at once instead of when the lease runs out.
        """
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            return   # no reconnecting to say goodbye: the lease ends by itself
        for session_id in sorted(self.sessions):
            try:
                with self.transaction(atomic=False) as cur:
                    cur.execute(q.call(self.schema, "release", 1), [session_id])
            except TriageError:   # the server is away: the lease ends by itself
                return

    # -- labels --------------------------------------------------------------------------

    def insert_label(self, *, candidate_id: int, annotator_id: int, session_id: int,
                     value: str | None, kind: str, seconds: float, note: str | None,
                     served_by: str | None = None) -> int:
        """Commit one label on the server (idempotent by uid), pull, return its id."""
        _no_nul(note, value, served_by)
        fields = (candidate_id, session_id, value, kind, note, served_by)
        if self._unsent is None or self._unsent[0] != fields:
            self._unsent = (fields, new_uid())
        uid = self._unsent[1]
        if self.stale:
            self.pull()
        # The label and the pull that brings it back: one round trip.
        _rows, row = self.pull_new(write=(
            q.call(self.schema, "add_label", 8),
            [uid, candidate_id, session_id, value, kind, float(seconds), note, served_by]))
        self._unsent = None
        return int(row[0])

    def mark_undone(self, label_id: int, session_id: int | None = None) -> None:
        """Mark a label undone on the server (and release the session's lease)."""
        if self.stale:
            self.pull()
        self.pull_new(write=(q.call(self.schema, "undo", 2), [label_id, session_id]))

    def set_note(self, label_id: int, note: str) -> None:
        """Replace the note of one of this role's labels."""
        _no_nul(note)
        with self.transaction(atomic=False) as cur:
            cur.execute(q.call(self.schema, "set_note", 2), [label_id, note])
        with self.transaction(atomic=False) as cur:
            refresh_labels(cur.connection, self.pull_db, self.url, [label_id])

    # -- leases --------------------------------------------------------------------------

    def live_claims(self, now: float) -> list[tuple[int, int]]:
        """(candidate, session) of the leases not expired by the server's clock.

        Candidates another desk was deciding about when we tried them (locked, lease not
        yet committed) count as taken for a moment, so the next choice moves on instead of
        racing for the same one again.
        """
        if self.stale:
            self.pull()
        # New labels and the leases in one snapshot: a candidate labelled since our last
        # pull is either known as labelled or still leased, never seen as free. (Reusing
        # the leases read with our own label's write instead saves a round trip but loses
        # more races to other desks than it saves: measured, twice as slow with 8 desks.)
        leases = self.pull_new(q.leases(self.schema))[0]
        rows = [(int(c), int(s)) for c, s in leases]
        clock = time.monotonic()
        self._contended = {c: t for c, t in self._contended.items() if t > clock}
        return rows + [(c, CONTENDED_SESSION) for c in self._contended]

    def claim(self, session_id: int, candidate_id: int, now: float, expires_at: float,
              still_needed: Callable[[], bool]) -> bool:
        """Lease a candidate unless another desk holds it or ``still_needed()`` says no.

        The server locks the candidate's row (``FOR UPDATE SKIP LOCKED``) and leases it;
        then its active (annotator, kind) pairs are read and ``still_needed`` runs on them
        inside the same transaction: a False rolls the lease back.
        """
        seconds = max(1.0, expires_at - now)   # the server's lease length caps it
        try:
            with self.transaction(pipeline=True) as cur:
                conn = cur.connection
                # A lease needs no durability (losing one only frees a candidate), so its
                # commit does not wait for the server's disk; labels' commits do.
                conn.execute("SET LOCAL synchronous_commit TO off")
                leased = conn.execute(q.call(self.schema, "claim", 3),
                                      [candidate_id, session_id, seconds])
                # A statement of its own: it sees every label committed before the lock.
                kinds = conn.execute(q.active_kinds(self.schema), [candidate_id])
                if not leased.fetchone()[0]:
                    self._lost(candidate_id)
                    return False   # nothing new to learn from the server
                self._kinds = (candidate_id, [(str(a), str(k)) for a, k in kinds.fetchall()])
                try:
                    if not still_needed():
                        raise _Refused
                finally:
                    self._kinds = None
            self._losses = 0
            return True
        except _Refused:
            # Another desk has labelled it: catch up, so the dispatcher's next choice is
            # made on what the server knows.
            self._lost(candidate_id)
            self._after_write()
            return False

    def _lost(self, candidate_id: int) -> None:
        """After a lost race: skip the candidate a moment, and back off a little.

        Desks that keep choosing the same head of the queue at the same instant keep
        colliding; a short random pause, growing with the losses in a row, spreads them.
        """
        self._contended[candidate_id] = time.monotonic() + CONTENDED_S
        self._losses += 1
        time.sleep(random.uniform(0.0, 0.002 * min(self._losses, 10)))  # noqa: S311

    def active_label_kinds(self, candidate_id: int) -> list[tuple[str, str]]:
        """(annotator, kind) of the active labels on a candidate, as the server knows them."""
        if self._kinds is not None and self._kinds[0] == candidate_id:
            return list(self._kinds[1])
        with self.transaction(atomic=False) as cur:
            cur.execute(q.active_kinds(self.schema), [candidate_id])
            return [(str(a), str(k)) for a, k in cur.fetchall()]

    # -- the lead's writes ---------------------------------------------------------------

    def save_settings(self, settings: Settings) -> None:
        """Store every setting on the server (lead only)."""
        self._lead_only("change settings")
        with self.transaction() as cur:
            reseeded = server_seed(cur.connection, self.url) != settings.seed
            cur.executemany(q.upsert(self.schema, "settings", "key", ("key", "value")),
                            settings.to_rows())
            if reseeded:   # the audit sample is another shuffle now: the server's too
                store_audit_order(cur.connection, self.url)
        self._after_write(full=True)

    def set_project_info(self, key: str, value: str) -> None:
        """Set one fact about the project on the server (lead only)."""
        self._lead_only("change the project's details")
        with self.transaction() as cur:
            cur.execute(q.upsert(self.schema, "project", "key", ("key", "value")), [key, value])
        self._after_write(full=True)

    def set_hourly_rate(self, name: str, rate: float | None) -> None:
        """Set an annotator's hourly rate (lead only)."""
        if rate is not None and rate < 0:
            raise TriageError("hourly rate must not be negative")
        self._lead_only("set hourly rates")
        annotator_id = self.ensure_annotator(name)
        with self.transaction() as cur:
            cur.execute(q.set_rate(self.schema), [rate, annotator_id])
        self._after_write(full=True)

    def replace_overlap_plan(self, ids: Iterable[int]) -> None:
        """Store the overlap plan on the server (the lead's; a no-op for an annotator).

        The plan is a seeded draw, so an annotator's desk that finds none stored (a lead
        who has not opened the project since changing the overlap rate) computes the same
        plan the lead's window will store.
        """
        self._connection_checked()
        if not self.is_lead:
            return
        with self.transaction() as cur:
            for statement, params in q.replace_plan(self.schema, [int(i) for i in ids]):
                cur.execute(statement, params)
        self._after_write(full=True)

    def start_certification(self, *, target: float, confidence: float, found: int,
                            order: np.ndarray, planned: int | None, labels_at: int) -> int:
        """Store a running certification sample on the server (lead only); its id."""
        self._lead_only("start a certification sample")
        with self.transaction() as cur:
            cur.execute(q.running_certification(self.schema))
            row = cur.fetchone()
            if row is None:
                cur.execute(q.insert_certification(self.schema), [
                    new_uid(), now_iso(), float(target), float(confidence), int(found),
                    int(order.size), planned, int(labels_at),
                    np.asarray(order, dtype="<i8").tobytes()])
                row = cur.fetchone()
        self._after_write(full=True)
        return int(row[0])

    def end_certification(self, cert_id: int, *, outcome: str, p_value: float | None,
                          sample_n: int, sample_k: int) -> None:
        """Close a certification sample (lead only; an annotator's desk leaves it running).

        An annotator's replica does not hold the other annotators' values, so only the
        lead's window can judge the sample.
        """
        if not self.is_lead:
            return
        with self.transaction() as cur:
            cur.execute(q.end_certification(self.schema), [
                now_iso(), outcome, p_value, int(sample_n), int(sample_k), int(cert_id)])
        self._after_write(full=True)

    def add_guidelines(self, text: str, author: str | None) -> int:
        """Store a new version of the guidelines on the server (lead only)."""
        self._lead_only("change the guidelines")
        with self.transaction() as cur:
            cur.execute(q.add_guidelines(self.schema), [text, author, now_iso()])
            version = int(cur.fetchone()[0])
        self._after_write(full=True)
        return version

    def add_cal_snapshot(self, snapshot: CalSnapshot) -> int:
        """Store a snapshot of the cal ranking on the server (lead only); its id."""
        self._lead_only("store a cal ranking")
        with self.transaction() as cur:
            cur.execute(q.add_cal_snapshot(self.schema), snapshot_values(snapshot))
            row = cur.fetchone()
            if row is None:  # the same snapshot stored before (a retry)
                cur.execute(q.cal_snapshot_id(self.schema), [snapshot.uid])
                row = cur.fetchone()
        self._after_write(full=True)
        return int(row[0])
