"""The annotation desk: one candidate, large and plain; one key per decision.

Every decision is committed to the project file before the next candidate appears. If the
file is busy (another program holds the write lock past SQLite's busy timeout) the desk
keeps the decision in memory, says so in the status line and retries on a timer.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont, QKeyEvent
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from triage.base.errors import (
    AlreadyRecorded,
    BusyError,
    LogLost,
    ServerUnavailable,
    TriageError,
    WriteFailed,
)
from triage.project import Candidate, Project, Session
from triage.project.checkup import start_session_backup
from triage.project.history import Decision, change_decision
from triage.views.desk import (
    KeyAction,
    SessionStats,
    action_for,
    desk_meta,
    key_map,
    log_recovered_text,
    position_text,
    score_text,
    spent_seconds,
    status_text,
)
from triage.views.text import feedback_excerpt, unexpected_fault
from ui.candidate_text import CandidateText, scrolling, tinted_label
from ui.desk_buttons import DeskButtons
from ui.desk_notes import NoteRow
from ui.desk_pictures import DeskPictures
from ui.palette import META, SCORE, SECONDARY

RETRY_MS = 500
FAULT_RETRY_MS = 3000   # a full or read-only disk is fixed by a person: retry less often
BASE_POINT_SIZE = 26.0
ZOOM_STEP = 1.15

SCROLL_KEYS = {Qt.Key.Key_Down: 0.15, Qt.Key.Key_Up: -0.15, Qt.Key.Key_PageDown: 0.9,
               Qt.Key.Key_PageUp: -0.9}
Step = Callable[[], "Step | None"]


class Desk(QWidget):
    """Shows the current candidate and turns key presses into committed labels."""

    changed = Signal()  # a label, skip or undo was committed: live figures moved
    statusChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.project: Project | None = None
        self.session: Session | None = None
        self.stats: SessionStats | None = None
        self.current: Candidate | None = None
        self.show_score = False
        self.zoom_steps = 0
        self.retry_ms = RETRY_MS
        self.fault_retry_ms = FAULT_RETRY_MS
        self.busy = False
        self.offline = False       # busy because the team server is not answering
        self._keys: dict[str, KeyAction] = {}
        self._shown_at = time.monotonic()
        self._pending: Step | None = None
        self._decided: dict[int, str] = {}   # label id -> its candidate, for the note line
        self._recovered = ""   # what to say once a lost write-ahead log was recovered
        self.load_error: str | None = None   # why the next candidate could not be shown
        self._build()
        self._clock = QTimer(self)
        self._clock.setInterval(1000)
        self._clock.timeout.connect(self._emit_status)
        self._clock.start()

    # -- layout ----------------------------------------------------------------------
    def _build(self) -> None:
        self.position = tinted_label("position", SECONDARY)
        self.score = tinted_label("score", SCORE)
        self.score.setVisible(False)
        self.text = CandidateText(self)
        self.pictures = DeskPictures(self.text, lambda: self.project)
        self.text.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.text.setMinimumHeight(56)   # a line of text at least; it scrolls, the keys stay
        self.meta = tinted_label("meta", META, centred=True)
        self.message = tinted_label("message", SECONDARY, centred=True)
        self.meta_area = scrolling(self.meta)   # many fields scroll; the keys stay put
        self.buttons = DeskButtons(self._act)
        self.skip_button, self.undo_button = self.buttons.skip, self.buttons.undo
        self.note_button = self.buttons.note

        self.note_row = NoteRow()
        self.note_edit = self.note_row.edit
        self.note_row.saved.connect(self._save_note)
        self.note_row.closed.connect(self.setFocus)
        layout = QVBoxLayout(self)
        layout.addWidget(self.position)
        layout.addWidget(self.score)
        layout.addWidget(self.text, 5)
        layout.addSpacing(8)
        layout.addWidget(self.meta_area)
        layout.addLayout(self.buttons.label_row)
        layout.addLayout(self.buttons.tool_row)
        layout.addWidget(self.note_row)
        layout.addWidget(self.message)
        self.set_zoom(0)

    # -- project ---------------------------------------------------------------------
    def start(self, project: Project, annotator: str) -> None:
        """Begin a session for ``annotator`` on ``project`` and show its first candidate."""
        self.project = project
        self.pictures.start(project, self.layout())  # a pool of pictures: the picture pane
        try:
            self.session = project.start_session(annotator)
        except WriteFailed as error:  # a read-only file or folder, a full disk
            self.settings_changed()
            self._show(None)
            self.text.setText(f"This desk cannot record labels: {error}")
            return
        self.stats = SessionStats(self.session.annotator, time.monotonic())
        self.settings_changed()
        if Path(project.location).is_file():
            start_session_backup(project.location)  # FILE.backup, at most once a day
        self.show_next()

    def stop(self) -> None:
        """End the session (the project stays open; the caller closes it)."""
        if self.project is not None and self.session is not None:
            # On failure only the end time is lost; the labels are already committed.
            with contextlib.suppress(TriageError):
                self.project.end_session(self.session)
        self.session = None
        self.project = None
        self._pending = None
        self._decided.clear()
        self.note_row.close_row()
        self.message.setText("")   # not the last project's last decision
        # Nothing of the old project stays on screen (a busy or failed open of the next one
        # must not leave its candidate looking labelable).
        self._show(None)
        self.text.setText("No project open.")

    def settings_changed(self) -> None:
        """The project's settings changed: new keys, buttons and score visibility."""
        if self.project is None:
            return
        self._keys = key_map(self.project.settings)
        self.buttons.rebuild(self.project.settings.labels)
        self.text.set_words(self.project.settings.highlight_words)
        self.set_show_score(self.project.settings.show_score)

    def set_show_score(self, show: bool) -> None:
        self.show_score = bool(show)
        self.score.setVisible(self.show_score and self.current is not None)

    def set_zoom(self, steps: int) -> None:
        before, self.zoom_steps = self.zoom_steps, max(-6, min(12, int(steps)))
        self.pictures.zoom(self.zoom_steps, before)
        font = QFont(self.font())
        font.setPointSizeF(BASE_POINT_SIZE * ZOOM_STEP ** self.zoom_steps)
        self.text.setFont(font)
        small = QFont(self.font())
        small.setPointSizeF(max(8.0, 11.0 * ZOOM_STEP ** (self.zoom_steps / 2)))
        self.meta.setFont(small)
        self.meta_area.setMinimumHeight(self.meta.fontMetrics().lineSpacing() + 4)

    # -- showing ---------------------------------------------------------------------
    def show_next(self) -> None:
        """Show the next candidate; if it cannot be loaded, the error takes its place (a
        labelled candidate never stays on screen: a key must not label it again)."""
        if self.project is None or self.session is None:
            return
        self.load_error = None
        try:
            item = self.project.next_candidate(self.session)
        except BusyError:
            raise
        except TriageError as error:
            self._show_error(str(error))
            return
        except Exception as error:  # noqa: BLE001 - any fault: say it, never re-show
            self._show_error(unexpected_fault(error, self.project.location))
            return
        self._show(item)

    def _retire_current(self) -> None:  # labelled: no key may label it again
        self.current = None
        self.buttons.enable_decisions(False)

    def _show_error(self, message: str) -> None:
        """The next candidate could not be loaded: the reason, in place of a candidate."""
        self._show(None)
        self.load_error = message
        self.text.setText(f"The next candidate could not be shown: {message}\n\n"
                          "Your decisions so far are saved. Press any label key to try again.")
        self.message.setText(feedback_excerpt(message))

    def _show(self, item: Candidate | None) -> None:
        self.current = item
        self.buttons.enable_decisions(item is not None)
        if item is None:
            self.text.setText("Every candidate has been labeled." if self.project
                              and self.project.pool else "This project has no candidates yet.")
            self.meta.setText("")
            self.position.setText("")
            self.score.setVisible(False)
        else:
            self.text.setText(item.text)
            fields = self.project.settings.public_fields if self.project else None
            self.meta.setText(desk_meta(item.meta, fields, self.text.has_hidden))
            self.position.setText(position_text(item.rank, item.pool, item.decile))
            self.score.setText(score_text(item.score, item.model))
            self.score.setVisible(self.show_score)
        self.pictures.show(item)
        self._shown_at = time.monotonic()
        self._emit_status()

    def status_text(self) -> str:
        if self.stats is None:
            return "no project open"
        return status_text(self.stats, time.monotonic(), busy=self.busy, offline=self.offline)

    def _emit_status(self) -> None:
        self.statusChanged.emit(self.status_text())

    # -- keys ------------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        if not self.handle_key(event):
            super().keyPressEvent(event)

    def handle_key(self, event: QKeyEvent) -> bool:
        """Act on a key press (also forwarded by the main window); True when handled."""
        mods = event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
        scroll = SCROLL_KEYS.get(Qt.Key(event.key()))
        if scroll is not None and not mods:
            self.text.scroll_by(scroll)  # a long text reads on without the mouse
            return True
        if event.key() == Qt.Key.Key_Z and mods == Qt.KeyboardModifier.ControlModifier:
            self._act(KeyAction("undo"))
            return True
        if mods & ~Qt.KeyboardModifier.ShiftModifier:
            return False
        action = action_for(event.text(), self._keys)
        if action is None:
            return False
        if not event.isAutoRepeat():  # a held key must not label a run of candidates
            self._act(action)
        event.accept()
        return True

    # -- actions ---------------------------------------------------------------------
    def _act(self, action: KeyAction) -> None:
        if self.project is None or self.session is None:
            return
        if self._pending is not None:
            self.message.setText("Still saving the last decision…")
            return
        if action.kind == "note":
            label_id = self.stats.last_label_id if self.stats else None
            if label_id is None:
                self.message.setText("Label something first: a note goes with your last label.")
            else:
                self.note_row.open_for(label_id, self._decided.get(label_id, ""))
            return
        if action.kind == "undo":
            self._pending = self._commit_undo
        else:
            if self.current is None:
                if self.load_error is not None:
                    self._pending = self._after_commit  # try loading again; nothing to label
                    self._attempt()
                return
            seconds = spent_seconds(self._shown_at, time.monotonic())
            candidate_id = self.current.candidate_id
            value = action.value if action.kind == "label" else None
            kind = self.current.kind  # triage, overlap, audit or re-test: the queue decides
            self._pending = lambda: self._commit_label(candidate_id, value, seconds, kind)
        self._attempt()

    def _save_note(self, label_id: int, note: str) -> None:
        """Write a note from the note row as a pending step (kept and retried like a label)."""
        project = self.project
        if project is None or self._pending is not None:
            return

        def step() -> None:
            project.add_note(label_id, note)
            self.message.setText("Note saved.")

        self._pending = step
        self._attempt()

    def _attempt(self) -> None:
        """Run the pending steps; on a busy file keep them and try again later."""
        while self._pending is not None:
            step = self._pending
            try:
                self._pending = step()
            except BusyError as error:
                self.offline = isinstance(error, ServerUnavailable)
                if self.offline:
                    # Say plainly why; the label stays on screen and is sent on a retry.
                    self.message.setText(str(error))
                self._set_busy(True)
                QTimer.singleShot(self.retry_ms, self._attempt)
                return
            except LogLost:  # written into a log deleted under us: write it again
                self._pending = self._reopened(step)
            except WriteFailed as error:
                # A full or read-only disk: the decision stays pending and is written on a
                # retry, as for a busy file; the sentence says what to fix.
                self.message.setText(f"{feedback_excerpt(str(error), 240)} Your last "
                                     "decision is kept and will be saved.")
                self._set_busy(True)
                QTimer.singleShot(self.fault_retry_ms, self._attempt)
                return
            except TriageError as error:
                self._pending = None
                self._set_busy(False)
                self.message.setText(feedback_excerpt(str(error), 240))
                return
            except BaseException:
                self._pending = None
                self._set_busy(False)
                raise
        self._set_busy(False)
        self.message.setText(self._recovered or self.message.text())  # a recovery: say so
        self._recovered = ""

    def _reopened(self, step: Step) -> Step:
        assert self.project is not None  # a step ran: a session is open
        reopen: Callable[[], object] = self.project.reopen
        self._recovered = log_recovered_text(self.project.location)
        return lambda: (reopen(), step)[1]

    def _set_busy(self, busy: bool) -> None:
        if busy != self.busy:
            self.busy = busy
            self._emit_status()

    def _commit_label(self, candidate_id: int, value: str | None, seconds: float,
                      kind: str) -> Step:
        assert self.project and self.session and self.stats  # set while a session runs
        try:
            label_id = self.project.record_label(self.session, candidate_id, value,
                                                 seconds=seconds, kind=kind)
        except AlreadyRecorded as done:
            # An earlier try committed before failing: that label is this decision.
            label_id = done.label_id
        self.stats.record(label_id, value is None)
        shown = self.current.text if self.current else ""
        self._decided[label_id] = feedback_excerpt(f"“{shown}” ({value or 'skipped'})", 60)
        # A short, single-line excerpt: the whole candidate here would push the desk apart.
        self.message.setText(feedback_excerpt(f"{'skipped' if value is None else value}: {shown}"))
        self._retire_current()  # committed: done, whatever loading the next one does
        return self._after_commit

    def _commit_undo(self) -> Step | None:
        assert self.project and self.session and self.stats  # set while a session runs
        candidate_id = self.project.undo(self.session)
        if candidate_id is None:
            self.message.setText("Nothing to undo.")
            return None
        self.stats.undo()
        self.message.setText("Undone: the candidate is back.")
        return self._after_commit

    def change_from_history(self, decision: Decision, value: str | None) -> None:
        """Record a new label for an earlier decision (undo takes it back like any other)."""
        if self.project is None or self.session is None or self._pending is not None:
            return

        def step() -> None:
            assert self.project and self.session and self.stats  # checked above, still open
            label_id = change_decision(self.project, self.session, decision, value)
            self.stats.correct(label_id, value is None, decision.label_id)
            self.message.setText(f"changed {decision.key}: {decision.value or 'skipped'} → "
                                 f"{value or 'skipped'}")
            self.changed.emit()

        self._pending = step
        self._attempt()

    def _after_commit(self) -> None:
        self.show_next()
        self.changed.emit()
