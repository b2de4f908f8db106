"""Opening the project on a thread while Qt loads, so the first candidate is drawn sooner.

Before its first candidate the desk must import Qt and build its window (Python work)
and open the project: read its label events, its ranking and its
overlap plan (much of it SQLite and numpy work that lets go of the interpreter lock). The
two overlap: :class:`EarlyOpen` opens and warms the project on a thread started before Qt
is imported; the window takes the project from it when it needs it. Qt is not imported
here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from triage.base.jobs import start


class EarlyOpen:
    """``EarlyOpen(path)`` opens ``path`` on a thread of the shared pool (:mod:`triage.base.jobs`);
    ``take()`` waits and returns it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._project: Any = None
        self._error: BaseException | None = None
        self._opened = start(self._run, "triage-open")

    def _run(self) -> None:
        from triage.base.errors import TriageError
        from triage.project import open_project

        try:
            self._project = open_project(self.path)
        except BaseException as error:  # noqa: BLE001 - handed to the thread that takes it
            self._error = error
            return
        try:
            # What the first next_candidate would build: the label events followed, the
            # ranking read and the dispatcher (with its overlap plan) made. A project
            # without candidates fails here; the desk says so when it asks for one.
            self._project.refresh()
            _ = self._project.dispatcher
        except TriageError:
            pass

    def take(self) -> Any:
        """The opened project (raises what opening it raised)."""
        self._opened.result()
        if self._error is not None:
            raise self._error
        project, self._project = self._project, None
        return project

    def discard(self) -> None:
        """Close the project unused (the user cancelled)."""
        self._opened.result()
        if self._project is not None:
            self._project.close()
            self._project = None
