"""The main window's share of the one advice state: ask for it, poll for outside changes,
hand every result to every surface, and start or cancel a certification sample."""

from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMessageBox

from triage.base.errors import TriageError

ADVICE_POLL_MS = 5000  # how often to look for changes made by other programs
# After labels, the advice is recomputed when the annotator pauses: a computation takes
# seconds of CPU beside the desk, and the Python work in it competes with the desk for the
# interpreter. In an unbroken burst it is recomputed at least every ADVICE_MAX_DEFER_S; the
# banner always says at how many labels it was computed.
ADVICE_PAUSE_MS = 1000
ADVICE_MAX_DEFER_S = 30.0


class AdviceMixin:
    """Mixed into :class:`ui.main_window.MainWindow` (uses its project, desk, banner, feed)."""

    def _start_advice_poll(self) -> None:
        """Changes made by other programs (another desk, an import or merge from the command
        line) are caught by a cheap look at the file's version now and then."""
        self._advice_version: tuple | None = None
        self._advice_poll = QTimer(self)  # type: ignore[arg-type]
        self._advice_poll.setInterval(ADVICE_POLL_MS)
        self._advice_poll.timeout.connect(self._poll_advice)
        self._advice_poll.start()
        self._advice_timer = QTimer(self)  # type: ignore[arg-type]
        self._advice_timer.setSingleShot(True)
        self._advice_timer.setInterval(ADVICE_PAUSE_MS)
        self._advice_timer.timeout.connect(self.request_advice)
        self._advice_dirty_since: float | None = None

    def schedule_advice(self) -> None:
        """Recompute the advice once the annotator pauses (debounced; see request_advice)."""
        now = time.monotonic()
        if self._advice_dirty_since is None:
            self._advice_dirty_since = now
        if (now - self._advice_dirty_since < ADVICE_MAX_DEFER_S
                or not self._advice_timer.isActive()):
            self._advice_timer.start()

    def request_advice(self) -> None:
        """Recompute the advice state off the GUI thread (coalesced)."""
        self._advice_dirty_since = None
        self._advice_timer.stop()
        if self.project is not None and self.project.models:
            from triage.project.advice import state_version

            self._advice_version = state_version(self.project)
            self.advice_feed.request(self.project.path)

    def _poll_advice(self) -> None:
        if self.project is None or not self.project.models:
            return
        from triage.project.advice import state_version

        if state_version(self.project) != self._advice_version:
            self.project.refresh()
            self.request_advice()
            self.schedule_refresh()

    def _advice_arrived(self, state) -> None:
        """Hand the same state to every surface: banner, Advice tab, band, agreement."""
        self.advice_banner.show_advice(state)
        if self.lead_view is not None:
            self.lead_view.show_advice_state(state)

    def certify(self, start: bool) -> None:
        """Start (after stating its cost) or cancel the one-off certification sample."""
        if self.project is None:
            return
        from triage.project.certify import cancel_certification, start_certification
        from triage.views.advice import certification_text

        try:
            if start:
                state = self.advice_feed.latest
                cost = certification_text(state.to_json()) if state is not None else ""
                answer = QMessageBox.question(
                    self, "Certify recall now", f"{cost}\n\nStart the certification sample?")
                if answer != QMessageBox.StandardButton.Yes:
                    return
                plan = ((state.advice.get("certification") or {}).get("plan") or {}
                        if state is not None else {})
                start_certification(self.project, planned=plan.get("items"))
            else:
                cancel_certification(self.project)
        except TriageError as error:
            QMessageBox.warning(self, "Certification", str(error))
            return
        self.request_advice()

