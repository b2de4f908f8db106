"""The main window's reading controller: the guidelines and history pane, help, text size.

It is given the desk, the pane, the preferences and a way to read the open project; it
says what the window should show through its signals (never a window attribute).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from triage.base.errors import TriageError
from triage.project.guidelines import current_guidelines
from triage.project.history import recent_decisions
from triage.views.gallery import pictures_of
from ui.desk import Desk
from ui.desk_drawer import DeskDrawer
from ui.prefs import Prefs

if TYPE_CHECKING:
    from triage.project import Project
    from ui.help_dialog import HelpDialog


class ReadingController(QObject):
    """``drawerShown(bool)`` when the pane opens or closes; ``message(text, ms)`` for the
    status bar."""

    drawerShown = Signal(bool)
    message = Signal(str, int)

    def __init__(self, parent: QWidget, desk: Desk, drawer: DeskDrawer, prefs: Prefs,
                 project_of: Callable[[], Project | None]) -> None:
        super().__init__(parent)
        self._parent, self._desk, self._drawer = parent, desk, drawer
        self._prefs, self._project_of = prefs, project_of
        self.help_dialog: HelpDialog | None = None

    def refresh_drawer(self, force: bool = False) -> None:
        """Reload the guidelines and the history when the pane shows them (or ``force``)."""
        project, session, drawer = self._project_of(), self._desk.session, self._drawer
        if project is None or session is None:
            return
        if not (force or drawer.isVisible()):
            return
        try:
            guidelines = current_guidelines(project)
            if force or guidelines.version != drawer.guidelines.version:
                drawer.guidelines.show_guidelines(guidelines)
            if force or drawer.currentWidget() is drawer.history:
                decisions = recent_decisions(project, session)
                drawer.history.show_decisions(decisions, pictures_of(
                    project, [d.candidate_id for d in decisions]))
        except TriageError as error:  # a busy file: the next label refreshes it
            self.message.emit(str(error), 4000)

    def toggle_drawer(self, checked: bool) -> None:
        """Show or hide the guidelines and history pane (remembered)."""
        self._drawer.setVisible(bool(checked))
        self._prefs.set_drawer_hidden(not checked)
        self.drawerShown.emit(bool(checked))
        if checked:
            self.refresh_drawer(force=True)
        self._desk.setFocus()

    def focus_history(self) -> None:
        """Open the history tab and put the keyboard in it (Esc goes back to the desk)."""
        if not self._drawer.isVisible():
            self.toggle_drawer(True)
        self._drawer.setCurrentWidget(self._drawer.history)
        self.refresh_drawer(force=True)
        table = self._drawer.history.table
        table.setFocus()
        if table.rowCount() and not table.selectionModel().selectedRows():
            table.selectRow(0)

    def show_help(self) -> HelpDialog:
        """F1: the project's guidelines and the keyboard shortcuts, in one window."""
        from ui.help_dialog import HelpDialog

        project = self._project_of()
        guidelines = current_guidelines(project) if project is not None else None
        settings = project.settings if project is not None else None
        self.help_dialog = HelpDialog(self._parent, guidelines, settings)
        self.help_dialog.show()
        self.help_dialog.raise_()
        return self.help_dialog

    def guidelines_saved(self) -> None:
        """The lead saved guidelines or keywords: the desk follows at once."""
        if self._project_of() is not None:
            self._desk.settings_changed()  # the lead window updated the shared project
        self.refresh_drawer(force=True)

    def zoom(self, step: int | None) -> None:
        """Change the candidate's text size by ``step`` (None: back to normal); remembered."""
        steps = 0 if step is None else self._desk.zoom_steps + step
        self._desk.set_zoom(steps)
        self._prefs.set_font_zoom(self._desk.zoom_steps)
