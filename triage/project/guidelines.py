"""The labelling guidelines: written by the lead, versioned, shown on every desk.

Each saved change gets the next version number; every label records the version in force
when it was given (the store does it on insert), so agreement can be compared across
versions: annotate, compare, revise the guidelines, annotate again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from triage import store
from triage.base.errors import TriageError

MAX_GUIDELINES = 200_000  # characters


if TYPE_CHECKING:
    from triage.project.core import Project


@dataclass(frozen=True)
class Guidelines:
    """The guidelines in force: version 0 and empty text before the lead writes any."""

    version: int
    text: str
    author: str | None
    saved_at: str | None


def current_guidelines(project: Project) -> Guidelines:
    """The guidelines in force (version 0, empty, when none were written yet)."""
    row = store.latest_guidelines(project.db)
    if row is None:
        return Guidelines(0, "", None, None)
    return Guidelines(row.version, row.text, row.author, row.created_at)


def guideline_history(project: Project) -> list[Guidelines]:
    """Every saved version, oldest first."""
    return [Guidelines(r.version, r.text, r.author, r.created_at)
            for r in store.guideline_versions(project.db)]


def save_guidelines(project: Project, text: str, author: str | None = None) -> Guidelines:
    """Save ``text`` as a new version (unchanged text keeps the current version)."""
    text = text.replace("\r\n", "\n").rstrip()
    if len(text) > MAX_GUIDELINES:
        raise TriageError(f"the guidelines are too long ({len(text):,} characters; "
                          f"{MAX_GUIDELINES:,} at most)")
    current = current_guidelines(project)
    if text == current.text and current.version:
        return current
    project.writer.add_guidelines(text, (author or "").strip() or None)
    return current_guidelines(project)
