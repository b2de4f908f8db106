"""The main window's reading actions: the guidelines and history pane, help, text size."""

from __future__ import annotations

from triage.base.errors import TriageError
from triage.project.guidelines import current_guidelines
from triage.project.history import recent_decisions


class ReadingActions:
    """Mixed into ``MainWindow`` (which owns ``desk``, ``drawer``, ``prefs``, ``project``)."""

    def refresh_drawer(self, force: bool = False) -> None:
        """Reload the guidelines and the history when the pane shows them (or ``force``)."""
        project, session = self.project, self.desk.session
        if project is None or session is None:
            return
        if not (force or self.drawer.isVisible()):
            return
        try:
            guidelines = current_guidelines(project)
            if force or guidelines.version != self.drawer.guidelines.version:
                self.drawer.guidelines.show_guidelines(guidelines)
            if force or self.drawer.currentWidget() is self.drawer.history:
                self.drawer.history.show_decisions(recent_decisions(project, session))
        except TriageError as error:  # a busy file: the next label refreshes it
            self.statusBar().showMessage(str(error), 4000)

    def toggle_drawer(self, checked: bool) -> None:
        """Show or hide the guidelines and history pane (remembered)."""
        self.drawer.setVisible(bool(checked))
        self.prefs.set_drawer_hidden(not checked)
        if checked:
            self.refresh_drawer(force=True)
        self.desk.setFocus()

    def focus_history(self) -> None:
        """Open the history tab and put the keyboard in it (Esc goes back to the desk)."""
        if not self.drawer.isVisible():
            self.drawer_action.setChecked(True)
            self.toggle_drawer(True)
        self.drawer.setCurrentWidget(self.drawer.history)
        self.refresh_drawer(force=True)
        table = self.drawer.history.table
        table.setFocus()
        if table.rowCount() and not table.selectionModel().selectedRows():
            table.selectRow(0)

    def show_help(self) -> None:
        """F1: the project's guidelines and the keyboard shortcuts, in one window."""
        from ui.help_dialog import HelpDialog

        guidelines = current_guidelines(self.project) if self.project is not None else None
        settings = self.project.settings if self.project is not None else None
        self.help_dialog = HelpDialog(self, guidelines, settings)
        self.help_dialog.show()
        self.help_dialog.raise_()

    def _guidelines_saved(self) -> None:
        """The lead saved guidelines or keywords: the desk follows at once."""
        if self.project is not None:
            self.desk.settings_changed()  # the lead window updated the shared project
        self.refresh_drawer(force=True)

    def zoom(self, step: int | None) -> None:
        """Change the candidate's text size by ``step`` (None: back to normal); remembered."""
        steps = 0 if step is None else self.desk.zoom_steps + step
        self.desk.set_zoom(steps)
        self.prefs.set_font_zoom(self.desk.zoom_steps)
