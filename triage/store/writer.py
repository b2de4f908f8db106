"""The one write path of a project: :class:`ProjectWriter`, and its project-file implementation.

Every write of an open project goes through the writer the project holds. There are two:
:class:`FileWriter` writes the project file with the plain store functions, and
:class:`triage.store.teamwriter.TeamWriter` writes a team project on its server first and
then follows the change back into the local replica. Both check their arguments with the
same functions (:mod:`triage.store.checks`), so a value refused on one is refused on the
other.

The claim protocol's two reads (:meth:`ProjectWriter.live_claims`,
:meth:`ProjectWriter.active_label_kinds`) belong here too: claims are judged where they
are written (the file, or the server's leases), never in a replica.

An import (a pool, later models' scores, another tool's labels) writes many tables in one
transaction; :meth:`ProjectWriter.import_target` hands the file to it, and a team
project refuses (its pool lives on the server; ``triage new URL`` and ``triage push`` put
it there).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Protocol

import numpy as np
import sqlite_utils

from triage.store import calsnap, certification, claims, connection, curation, logwatch, records
from triage.store.calsnap import CalSnapshot
from triage.store.settings import Settings


class ProjectWriter(Protocol):
    """Every write an open project makes, on a project file or a team server."""

    # -- annotators and sessions --------------------------------------------------------

    def ensure_annotator(self, name: str) -> int:
        """The id of annotator ``name``, created on first use."""
        ...

    def start_session(self, annotator_id: int) -> int:
        """Open a session for the annotator; its id."""
        ...

    def end_session(self, session_id: int) -> None:
        """Close a session and release its claim."""
        ...

    # -- labels ---------------------------------------------------------------------------

    def insert_label(self, *, candidate_id: int, annotator_id: int, session_id: int,
                     value: str | None, kind: str, seconds: float, note: str | None,
                     served_by: str | None = None) -> int:
        """Append one label event, durably, and release the desk's claim; its id."""
        ...

    def mark_undone(self, label_id: int, session_id: int | None = None) -> None:
        """Mark a label event undone (and release the session's claim)."""
        ...

    def set_note(self, label_id: int, note: str) -> None:
        """Replace the note of a label event."""
        ...

    # -- claims (judged where they are written) ------------------------------------------

    def live_claims(self, now: float) -> list[tuple[int, int]]:
        """(candidate, session) of every claim not expired at ``now``."""
        ...

    def claim(self, session_id: int, candidate_id: int, now: float, expires_at: float,
              still_needed: Callable[[], bool]) -> bool:
        """Claim a candidate unless another desk holds it or ``still_needed()`` says no."""
        ...

    def active_label_kinds(self, candidate_id: int) -> list[tuple[str, str]]:
        """(annotator, kind) of the candidate's active label events, where claims are judged."""
        ...

    # -- the lead's writes ---------------------------------------------------------------

    def save_settings(self, settings: Settings) -> None:
        """Store every setting."""
        ...

    def set_project_info(self, key: str, value: str) -> None:
        """Set one fact about the project."""
        ...

    def set_hourly_rate(self, name: str, rate: float | None) -> None:
        """Set (None: clear) an annotator's hourly rate."""
        ...

    def replace_overlap_plan(self, ids: Iterable[int]) -> None:
        """Store the overlap plan in place of the old one."""
        ...

    def start_certification(self, *, target: float, confidence: float, found: int,
                            order: np.ndarray, planned: int | None, labels_at: int) -> int:
        """Store a running certification sample (or find the one running); its id."""
        ...

    def end_certification(self, cert_id: int, *, outcome: str, p_value: float | None,
                          sample_n: int, sample_k: int) -> None:
        """Close a running certification sample with its outcome."""
        ...

    def add_guidelines(self, text: str, author: str | None) -> int:
        """Store a new version of the guidelines; its number."""
        ...

    def add_cal_snapshot(self, snapshot: CalSnapshot) -> int:
        """Store a snapshot of the cal ranking for every desk to serve; its id."""
        ...

    # -- imports -----------------------------------------------------------------------

    def import_target(self, what: str) -> sqlite_utils.Database:
        """The project file an all-or-nothing import writes; refused on a server.

        ``what`` completes "cannot … a project on a server" in the refusal.
        """
        ...


class FileWriter:
    """The project file's writer: the store's plain functions on one connection.

    The writes a desk acknowledges (sessions, labels, undo, notes) are checked before and
    after against :class:`~triage.store.logwatch.LogWatch`: a write that went into a log
    deleted under this process raises :class:`~triage.base.errors.LogLost` instead of
    returning, so nothing is acknowledged that lives only in a deleted file.
    """

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db
        path = None if connection.read_only(db) else connection.database_path(db)
        self.log = logwatch.LogWatch(path) if path is not None else None
        # Claim expiry by this process's monotonic clock, never the wall clock (see
        # ClaimWatch); time.monotonic is looked up at call time so tests can step it.
        self.claim_watch = claims.ClaimWatch(claims.CLAIM_HOLD_SECONDS,
                                             clock=lambda: time.monotonic())

    def ensure_annotator(self, name: str) -> int:
        """The id of annotator ``name``, created on first use."""
        return records.ensure_annotator(self.db, name)

    def _check(self) -> None:
        if self.log is not None:
            self.log.check()

    def start_session(self, annotator_id: int) -> int:
        """Open a session for the annotator; its id."""
        self._check()
        session_id = records.start_session(self.db, annotator_id)
        self._check()
        return session_id

    def end_session(self, session_id: int) -> None:
        """Close a session and release its claim."""
        records.end_session(self.db, session_id)

    def insert_label(self, *, candidate_id: int, annotator_id: int, session_id: int,
                     value: str | None, kind: str, seconds: float, note: str | None,
                     served_by: str | None = None) -> int:
        """Append one label event, durably, and release the desk's claim; its id."""
        self._check()
        label_id = records.insert_label(
            self.db, candidate_id=candidate_id, annotator_id=annotator_id,
            session_id=session_id, value=value, kind=kind,
            seconds=seconds, note=note, served_by=served_by)
        self._check()
        return label_id

    def mark_undone(self, label_id: int, session_id: int | None = None) -> None:
        """Mark a label event undone (and release the session's claim)."""
        self._check()
        records.mark_undone(self.db, label_id, session_id)
        self._check()

    def set_note(self, label_id: int, note: str) -> None:
        """Replace the note of a label event."""
        self._check()
        records.set_note(self.db, label_id, note)
        self._check()

    def live_claims(self, now: float) -> list[tuple[int, int]]:
        """(candidate, session) of every claim not expired at ``now``."""
        return claims.live_claims(self.db, now, self.claim_watch)

    def claim(self, session_id: int, candidate_id: int, now: float, expires_at: float,
              still_needed: Callable[[], bool]) -> bool:
        """Claim a candidate unless another desk holds it or ``still_needed()`` says no."""
        return claims.claim(self.db, session_id, candidate_id, now, expires_at, still_needed,
                            self.claim_watch)

    def active_label_kinds(self, candidate_id: int) -> list[tuple[str, str]]:
        """(annotator, kind) of the candidate's active label events."""
        return claims.active_label_kinds(self.db, candidate_id)

    def save_settings(self, settings: Settings) -> None:
        """Store every setting."""
        records.save_settings(self.db, settings)

    def set_project_info(self, key: str, value: str) -> None:
        """Set one fact about the project."""
        records.set_project_info(self.db, key, value)

    def set_hourly_rate(self, name: str, rate: float | None) -> None:
        """Set (None: clear) an annotator's hourly rate, creating the annotator if new."""
        records.set_hourly_rate(self.db, name, rate)

    def replace_overlap_plan(self, ids: Iterable[int]) -> None:
        """Store the overlap plan in place of the old one."""
        claims.replace_overlap_plan(self.db, ids)

    def start_certification(self, *, target: float, confidence: float, found: int,
                            order: np.ndarray, planned: int | None, labels_at: int) -> int:
        """Store a running certification sample (or find the one running); its id."""
        return certification.start_certification(
            self.db, target=target, confidence=confidence, found=found, order=order,
            planned=planned, labels_at=labels_at)

    def end_certification(self, cert_id: int, *, outcome: str, p_value: float | None,
                          sample_n: int, sample_k: int) -> None:
        """Close a running certification sample with its outcome."""
        certification.end_certification(self.db, cert_id, outcome=outcome, p_value=p_value,
                                        sample_n=sample_n, sample_k=sample_k)

    def add_guidelines(self, text: str, author: str | None) -> int:
        """Store a new version of the guidelines; its number."""
        return curation.add_guidelines(self.db, text, author)

    def add_cal_snapshot(self, snapshot: CalSnapshot) -> int:
        """Store a snapshot of the cal ranking for every desk to serve; its id."""
        return calsnap.add_snapshot(self.db, snapshot)

    def import_target(self, what: str) -> sqlite_utils.Database:
        """The project file itself: imports write it in one transaction of their own."""
        return self.db


def write_new_project(writer: ProjectWriter, settings: Settings) -> None:
    """What a new project holds before its pool: the application's facts and the settings."""
    writer.set_project_info("application", "triage")
    writer.set_project_info("created_at", records.now_iso())
    writer.save_settings(settings.validate())
