"""The main window's advice controller: ask for the one advice state, poll for outside
changes, hand every result on (a signal), and start or cancel a certification sample.

It holds no reference to the window: it is given the parent for its dialogs and a way to
read the open project, and says what happened through its signals.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from triage.base.errors import TriageError
from ui.advice_feed import AdviceFeed
from ui.cal_feed import CalFeed

if TYPE_CHECKING:
    from triage.project import Project
    from triage.project.cal import CalSnapshot

ADVICE_POLL_MS = 5000  # how often to look for changes made by other programs
# After labels, the advice is recomputed when the annotator pauses: a computation takes
# seconds of CPU beside the desk, and the Python work in it competes with the desk for the
# interpreter. In an unbroken burst it is recomputed at least every ADVICE_MAX_DEFER_S; the
# banner always says at how many labels it was computed.
ADVICE_PAUSE_MS = 1000
ADVICE_MAX_DEFER_S = 30.0


class AdviceController(QObject):
    """Keeps the advice state current; ``arrived(state)`` for every result, ``changedOutside``
    when another program changed the project (the panels should refresh)."""

    arrived = Signal(object)
    changedOutside = Signal()

    def __init__(self, dialog_parent: QWidget, project_of: Callable[[], Project | None]) -> None:
        super().__init__(dialog_parent)
        self._dialog_parent = dialog_parent
        self._project_of = project_of
        self.feed = AdviceFeed(self.arrived.emit)
        self.cal = CalFeed(self._cal_arrived)   # the learned ranking's fits, same rhythm
        self._version: tuple | None = None
        # Changes made by other programs (another desk, an import or merge from the command
        # line) are caught by a cheap look at the file's version now and then.
        self._poll = QTimer(self)
        self._poll.setInterval(ADVICE_POLL_MS)
        self._poll.timeout.connect(self.poll)
        self._poll.start()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(ADVICE_PAUSE_MS)
        self._timer.timeout.connect(self.request)
        self._dirty_since: float | None = None

    def schedule(self) -> None:
        """Recompute the advice once the annotator pauses (debounced; see request)."""
        now = time.monotonic()
        if self._dirty_since is None:
            self._dirty_since = now
        if now - self._dirty_since < ADVICE_MAX_DEFER_S or not self._timer.isActive():
            self._timer.start()

    def request(self) -> None:
        """Recompute the advice state off the GUI thread (coalesced)."""
        self._dirty_since = None
        self._timer.stop()
        project = self._project_of()
        if project is not None and project.models:
            from triage.project.advice import state_version

            self._version = state_version(project)
            self.feed.request(project.path)
            if project.trains_cal():
                self.cal.request(project.path)

    def _cal_arrived(self, snapshot: CalSnapshot) -> None:
        """A fit came back from the helper: store it; the desk serves it next."""
        project = self._project_of()
        if project is None:
            return
        # A read-only file or a team annotator cannot store it: the lead's snapshot serves.
        with contextlib.suppress(TriageError):
            project.store_cal_snapshot(snapshot)

    def poll(self) -> None:
        """Look at the project's version; recompute when another program changed it."""
        project = self._project_of()
        if project is None or not project.models:
            return
        from triage.project.advice import state_version

        if state_version(project) != self._version:
            project.refresh()
            self.request()
            self.changedOutside.emit()

    def clear(self) -> None:
        """The project closed: results still in flight are dropped."""
        self.feed.clear()
        self.cal.clear()

    def certify(self, start: bool) -> None:
        """Start (after stating its cost) or cancel the one-off certification sample."""
        project = self._project_of()
        if project is None:
            return
        from triage.project.certify import cancel_certification, start_certification
        from triage.views.advice import certification_plan_items, certification_text

        parent = self._dialog_parent
        try:
            if start:
                state = self.feed.latest
                cost = certification_text(state.to_json()) if state is not None else ""
                answer = QMessageBox.question(
                    parent, "Certify recall now", f"{cost}\n\nStart the certification sample?")
                if answer != QMessageBox.StandardButton.Yes:
                    return
                start_certification(project, planned=certification_plan_items(state))
            else:
                cancel_certification(project)
        except TriageError as error:
            QMessageBox.warning(parent, "Certification", str(error))
            return
        self.request()
