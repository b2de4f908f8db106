"""The team server's writer: a :class:`~triage.store.writer.ProjectWriter` over a replica's link.

Each write is committed on the server first, through
:class:`triage.store.pg.link.TeamLink` (the server's SECURITY DEFINER functions judge it
again there), and then pulled back into the local replica, so the replica never holds a
row the server lacks. The arguments are checked here with the same functions as the
project file's writer, so both refuse the same values with the same words. Imports are
refused: a team project's pool and labels are the server's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np
import sqlite_utils

from triage.base.errors import TriageError
from triage.store.calsnap import CalSnapshot
from triage.store.checks import annotator_name, hourly_rate, label_fields
from triage.store.settings import Settings

if TYPE_CHECKING:
    from triage.store.pg.link import TeamLink


class TeamWriter:
    """Writes of a team project: on the server first, then followed into the replica."""

    def __init__(self, link: TeamLink) -> None:
        self.link = link

    def ensure_annotator(self, name: str) -> int:
        """The server id of annotator ``name`` (on a server, a login role's name)."""
        name = annotator_name(name)
        return self.link.ensure_annotator(name)

    def start_session(self, annotator_id: int) -> int:
        """Open a session for this login role; the server's session id."""
        return self.link.start_session(annotator_id)

    def end_session(self, session_id: int) -> None:
        """Close a session and release its lease."""
        self.link.end_session(session_id)

    def insert_label(self, *, candidate_id: int, annotator_id: int, session_id: int,
                     value: str | None, kind: str, seconds: float, note: str | None,
                     served_by: str | None = None) -> int:
        """Commit one label on the server (idempotent across retries), pull; its id."""
        seconds = label_fields(kind, seconds)
        return self.link.insert_label(
            candidate_id=candidate_id, annotator_id=annotator_id, session_id=session_id,
            value=value, kind=kind, seconds=seconds, note=note, served_by=served_by)

    def mark_undone(self, label_id: int, session_id: int | None = None) -> None:
        """Mark a label undone on the server (and release the session's lease)."""
        self.link.mark_undone(label_id, session_id)

    def set_note(self, label_id: int, note: str) -> None:
        """Replace the note of one of this role's labels."""
        self.link.set_note(label_id, note)

    def live_claims(self, now: float) -> list[tuple[int, int]]:
        """(candidate, session) of the server's leases not expired by its clock."""
        return self.link.live_claims(now)

    def claim(self, session_id: int, candidate_id: int, now: float, expires_at: float,
              still_needed: Callable[[], bool]) -> bool:
        """Lease a candidate on the server unless taken or ``still_needed()`` says no."""
        return self.link.claim(session_id, candidate_id, now, expires_at, still_needed)

    def active_label_kinds(self, candidate_id: int) -> list[tuple[str, str]]:
        """(annotator, kind) of the candidate's active labels, as the server knows them."""
        return self.link.active_label_kinds(candidate_id)

    def save_settings(self, settings: Settings) -> None:
        """Store every setting on the server (lead only)."""
        self.link.save_settings(settings)

    def set_project_info(self, key: str, value: str) -> None:
        """Set one fact about the project on the server (lead only)."""
        self.link.set_project_info(key, value)

    def set_hourly_rate(self, name: str, rate: float | None) -> None:
        """Set an annotator's hourly rate on the server (lead only)."""
        name, rate = annotator_name(name), hourly_rate(rate)
        self.link.set_hourly_rate(name, rate)

    def replace_overlap_plan(self, ids: Iterable[int]) -> None:
        """Store the overlap plan on the server (the lead's; a no-op for an annotator)."""
        self.link.replace_overlap_plan(ids)

    def start_certification(self, *, target: float, confidence: float, found: int,
                            order: np.ndarray, planned: int | None, labels_at: int) -> int:
        """Store a running certification sample on the server (lead only); its id."""
        return self.link.start_certification(target=target, confidence=confidence,
                                             found=found, order=order, planned=planned,
                                             labels_at=labels_at)

    def end_certification(self, cert_id: int, *, outcome: str, p_value: float | None,
                          sample_n: int, sample_k: int) -> None:
        """Close a certification sample (lead only; an annotator's desk leaves it running)."""
        self.link.end_certification(cert_id, outcome=outcome, p_value=p_value,
                                    sample_n=sample_n, sample_k=sample_k)

    def add_guidelines(self, text: str, author: str | None) -> int:
        """Store a new version of the guidelines on the server (lead only)."""
        return self.link.add_guidelines(text, author)

    def add_cal_snapshot(self, snapshot: CalSnapshot) -> int:
        """Store a snapshot of the cal ranking on the server (lead only); every desk pulls it."""
        return self.link.add_cal_snapshot(snapshot)

    def import_target(self, what: str) -> sqlite_utils.Database:
        """Refused: a team project's pool and labels are imported on the server."""
        raise TriageError(
            f"cannot {what} a project on a server from a desk; import into a project file "
            "and publish it with `triage push FILE URL`, or create the team project with "
            "`triage new URL SOURCE …`")
