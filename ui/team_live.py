"""Live updates for a project on a team server: the listener thread and its hand-off.

A :class:`~triage.project.team.TeamProject` offers a LISTEN loop that pulls every change
into the local replica on its own thread. Here that loop runs on a Python daemon thread
and its news reach the GUI thread as a queued Qt signal, where the window does what it does
when its periodic look finds another desk's label in the file: the project follows the
replica (its data_version changed) and the panels, drawer and advice are refreshed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from triage.project.team import TeamProject


class TeamLive(QObject):
    """Follows a team project's server; ``changed`` fires on the GUI thread per burst."""

    changed = Signal()

    def __init__(self, project: TeamProject, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Emitting from the listener's thread is safe: the connection is queued to ours.
        self._listener = project.listener(lambda _tables: self.changed.emit())

    def start(self) -> None:
        """Start listening (returns at once)."""
        self._listener.start()

    def stop(self) -> None:
        """Stop listening (waits briefly for the thread)."""
        self._listener.stop()


def start_team_live(parent: QObject, project: object,
                    on_change: Callable[[], None]) -> TeamLive | None:
    """Start live updates when ``project`` is on a server; None for a project file."""
    if not isinstance(project, TeamProject):
        return None
    live = TeamLive(project, parent)
    live.changed.connect(on_change)
    live.start()
    return live


def server_problems(project: object) -> str | None:
    """"N rows from the server could not be used: …" when the replica set rows aside."""
    return project.server_problems if isinstance(project, TeamProject) else None


def team_annotator(project: object, name: str) -> str:
    """On a server the annotator is the login role, whatever name was typed."""
    if isinstance(project, TeamProject) and project.link.role:
        return project.link.role
    return name


def project_title(project: object, fallback: str) -> str:
    """What the window title names: the server address, else the file name."""
    return project.address if isinstance(project, TeamProject) else fallback
