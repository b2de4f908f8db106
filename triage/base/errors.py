"""Exceptions the core raises; the CLI and the GUI turn them into messages.

Every error a user can cause derives from :class:`TriageError`, so front ends catch one
type and show ``str(error)``, which is already a complete sentence naming what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass


class TriageError(Exception):
    """A problem the user can fix: bad input, wrong file, impossible request."""


class ProjectError(TriageError):
    """The project file cannot be opened or used (not a project, too new, locked)."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input file, located as precisely as we can."""

    file: str
    line: int | None
    column: str | int | None
    reason: str

    def __str__(self) -> str:
        where = self.file
        if self.line is not None:
            where += f":{self.line}"
        if self.column is not None and self.column != "":
            where += f": column {self.column}"
        return f"{where}: {self.reason}"


class InputError(TriageError):
    """Input that failed validation. Lists the first problems, then a count of the rest."""

    SHOWN = 20

    def __init__(self, problems: list[Problem], total: int | None = None):
        self.problems = list(problems)
        self.total = total if total is not None else len(self.problems)
        super().__init__(self._message())

    def _message(self) -> str:
        shown = self.problems[: self.SHOWN]
        lines = [str(p) for p in shown]
        hidden = self.total - len(shown)
        if hidden > 0:
            lines.append(f"... and {hidden} more problem{'s' if hidden != 1 else ''}")
        head = f"{self.total} problem{'s' if self.total != 1 else ''} found; nothing was imported"
        return head + ":\n" + "\n".join(lines)


class BusyError(TriageError):
    """The project file stayed locked by another process past the busy timeout.

    Nothing was written; the caller may retry the same action safely.
    """


class ServerUnavailable(BusyError):
    """The team's PostgreSQL server did not answer (down, unreachable, connection lost).

    A :class:`BusyError`, so every front end's "busy, retry" path applies unchanged: the
    write was not acknowledged and retrying it is safe (label writes are idempotent).
    """


class WriteFailed(TriageError):
    """A write could not reach the project file (a full disk, a read-only file, an I/O error).

    Nothing was written; the same write may be retried once the cause is fixed, so front
    ends keep the pending label and try again (as for :class:`BusyError`).
    """


class LogLost(WriteFailed):
    """The write-ahead log this process wrote to was deleted under it (its locks were lost).

    What was written since lives only in the deleted file: front ends keep the pending
    write, reopen the project (``Project.reopen``) and write it again.
    """


class DamagedProject(ProjectError):
    """The project file fails SQLite's integrity check, or a killed import left it half-written."""


class AlreadyRecorded(TriageError):
    """The annotator already has a current decision on this candidate (one label per decision).

    ``label_id`` is that decision's event: a desk that retried a write which had in fact
    committed carries on from it instead of recording a second label.
    """

    def __init__(self, message: str, label_id: int):
        super().__init__(message)
        self.label_id = label_id
