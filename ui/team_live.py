"""Live updates for a project on a team server: the listener thread and its hand-off.

A project on a server (its ``server``, :class:`~triage.project.types.ServerSide`; a project
file has none) offers a LISTEN loop that pulls every change into the local replica on its
own thread. Its news reach the GUI thread as a queued Qt signal, where the window does what it does
when its periodic look finds another desk's label in the file: the project follows the
replica (its data_version changed) and the panels, drawer and advice are refreshed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from triage.project.types import ServerSide

if TYPE_CHECKING:
    from triage.project import Project


class TeamLive(QObject):
    """Follows a team project's server; ``changed`` fires on the GUI thread per burst."""

    changed = Signal()

    def __init__(self, server: ServerSide, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # Emitting from the listener's thread is safe: the connection is queued to ours.
        self._listener = server.listener(lambda _tables: self.changed.emit())

    def start(self) -> None:
        """Start listening (returns at once)."""
        self._listener.start()

    def stop(self) -> None:
        """Stop listening (waits briefly for the thread)."""
        self._listener.stop()


def _server(project: Project | None) -> ServerSide | None:
    """What ``project`` offers on a server (None: a project file, or none open)."""
    return project.server if project is not None else None


def start_team_live(parent: QObject, project: Project | None,
                    on_change: Callable[[], None]) -> TeamLive | None:
    """Start live updates when ``project`` is on a server; None for a project file."""
    server = _server(project)
    if server is None:
        return None
    live = TeamLive(server, parent)
    live.changed.connect(on_change)
    live.start()
    return live


def server_problems(project: Project | None) -> str | None:
    """"N rows from the server could not be used: …" when the replica set rows aside."""
    server = _server(project)
    return server.server_problems if server is not None else None


def team_annotator(project: Project | None, name: str) -> str:
    """On a server the annotator is the login role, whatever name was typed."""
    server = _server(project)
    return server.role if server is not None and server.role else name


def project_title(project: Project | None, fallback: str) -> str:
    """What the window title names: the server address, else the file name."""
    server = _server(project)
    return server.address if server is not None else fallback
