"""The main window: the desk beside the three live panels, menus, and the status line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from triage.base.errors import TriageError
from triage.project import Project, open_project
from ui.advice_control import AdviceMixin
from ui.annotator_dialog import ask_annotator
from ui.desk import Desk
from ui.desk_drawer import DeskDrawer
from ui.file_dialogs import open_file, start_folder
from ui.palette import FOCUS_STYLE, apply_app_palette
from ui.panel_control import REFRESH_MS, PanelMixin
from ui.prefs import Prefs
from ui.reading_actions import ReadingActions
from ui.team_live import TeamLive, project_title, start_team_live, team_annotator
from ui.window_state import restore_geometry, restore_splitter, size_window

if TYPE_CHECKING:  # loaded with the panels, after the first candidate is on screen
    from triage.views.panels import PanelInfo


class MainWindow(PanelMixin, AdviceMixin, ReadingActions, QMainWindow):
    """Owns the open project and the annotator's session; panels only draw snapshots."""

    def __init__(self, prefs: Prefs | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.prefs = prefs or Prefs()
        self.project: Project | None = None
        self.info: PanelInfo | None = None
        self.lead_view = None
        self._team_live: TeamLive | None = None
        self.settings_dialog = self.new_project_dialog = None
        self.refreshes = 0
        self._init_panel_state()
        self.setWindowTitle("Triage")
        self.desk = Desk()
        from ui.advice_feed import AdviceFeed
        from ui.analysis.advice_banner import AdviceBanner

        self.advice_banner = AdviceBanner()
        self.advice_feed = AdviceFeed(self._advice_arrived)
        desk_top = QWidget()
        desk_layout = QVBoxLayout(desk_top)
        desk_layout.setContentsMargins(0, 0, 0, 0)
        desk_layout.addWidget(self.advice_banner)
        desk_layout.addWidget(self.desk, 1)
        self.drawer = DeskDrawer(on_show=self.refresh_drawer)
        self.drawer.history.changeRequested.connect(self.desk.change_from_history)
        self.drawer.history.leave.connect(self.desk.setFocus)
        desk_side = self.desk_split = QSplitter(Qt.Orientation.Vertical)
        desk_side.addWidget(desk_top)
        desk_side.addWidget(self.drawer)
        desk_side.setStretchFactor(0, 3)
        desk_side.setStretchFactor(1, 1)
        self.panels: tuple = ()
        self.panel_split = QSplitter(Qt.Orientation.Vertical)
        self.panel_split.setMinimumWidth(420)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.addWidget(desk_side)
        self.split.addWidget(self.panel_split)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.setCentralWidget(self.split)
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addWidget(self.status_label, 1)
        self.desk.statusChanged.connect(self.status_label.setText)
        self.desk.changed.connect(self.schedule_refresh)
        self.desk.changed.connect(self.refresh_drawer)
        self.desk.changed.connect(self.schedule_advice)  # label, undo, skip
        # Changes made by other programs (another desk, an import or merge from the command
        # line) are caught by a cheap look at the file's version now and then.
        self._start_advice_poll()
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(REFRESH_MS)
        self._refresh_timer.timeout.connect(self.refresh_panels)
        self._dirty_since: float | None = None
        self._build_menus()
        self.desk.set_zoom(self.prefs.font_zoom())
        apply_app_palette()
        self.setStyleSheet(FOCUS_STYLE)
        size_window(self, QSize(1360, 820))  # less on a small or scaled-up screen
        self._restore_layout()

    # -- menus -----------------------------------------------------------------------
    def _action(self, menu, text: str, slot, shortcut=None, checkable=False) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file = bar.addMenu("&File")
        self._action(file, "New project…", self.new_project, QKeySequence.StandardKey.New)
        self._action(file, "Open…", self.open_dialog, QKeySequence.StandardKey.Open)
        self.recent_menu = file.addMenu("Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.export_action = self._action(file, "Export…", self.export_dialog)
        file.addSeparator()
        self._action(file, "Quit", self.close, QKeySequence.StandardKey.Quit)
        view = bar.addMenu("&View")
        self._action(view, "Lead view", self.show_lead_view, "Ctrl+L")
        view.addSeparator()
        zoom_in = self._action(view, "Larger text", lambda: self.zoom(+1), "Ctrl+=")
        zoom_in.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self._action(view, "Smaller text", lambda: self.zoom(-1), "Ctrl+-")
        self._action(view, "Reset text size", lambda: self.zoom(None), "Ctrl+0")
        view.addSeparator()
        self.drawer_action = self._action(view, "Guidelines and history", self.toggle_drawer,
                                          "Ctrl+G", checkable=True)
        self._action(view, "History", self.focus_history, "Ctrl+H")
        view.addSeparator()
        self.show_score_action = self._action(view, "Show score", self.toggle_score,
                                              checkable=True)
        project = bar.addMenu("&Project")
        self._action(project, "Settings…", self.open_settings, "Ctrl+,")
        self._action(project, "Switch annotator…", self.switch_annotator)
        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "Guidelines and keyboard shortcuts", self.show_help, "F1")

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self.prefs.recent_projects():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self.open_interactive(p))
        if not self.recent_menu.actions():
            self.recent_menu.addAction("(none)").setEnabled(False)

    # -- project ---------------------------------------------------------------------
    def open_project(self, path: str | Path, annotator: str,
                     project: Project | None = None) -> None:
        """Open ``path`` (closing any open project) and start ``annotator``'s session;
        ``project``: ``path`` already opened (see :mod:`ui.early_open`)."""
        project = project if project is not None else open_project(path)
        annotator = team_annotator(project, annotator)
        # Wait briefly for another desk's lock, then say "busy, retrying" rather than freeze.
        project.set_busy_timeout(0.5)
        self.close_project()
        self.project = project
        self.prefs.add_recent(path)
        self.prefs.set_last_annotator(path, annotator)
        self.setWindowTitle(f"Triage — {project_title(project, Path(path).name)}")
        self.desk.start(project, annotator)
        # On a team server, other desks' labels arrive as notifications (within a second),
        # not only at the periodic look.
        self._team_live = start_team_live(self, project, self._poll_advice)
        # The advice (computed in the helper process) after the first candidate is drawn.
        QTimer.singleShot(0, self.request_advice)
        self.show_score_action.setChecked(project.settings.show_score)
        self.drawer.history.set_labels(project.settings.labels)
        self.refresh_drawer(force=True)
        self.desk.setFocus()
        # Panels and offline curves (a scan of the whole pool) after the first candidate
        # is on screen.
        QTimer.singleShot(50, self._load_panel_info)

    def close_project(self) -> None:
        if self._team_live is not None:
            self._team_live.stop()
            self._team_live = None
        self.desk.stop()
        self.advice_feed.clear()
        if self.project is not None:
            self.project.close()
        self.project = None
        self.info = None
        self._checkpointed_at = None

    # -- user actions ----------------------------------------------------------------
    def open_interactive(self, path: str | Path) -> bool:
        """Open a project the user picked, asking who is annotating."""
        default = self.prefs.last_annotator(path) or (
            self.desk.stats.annotator if self.desk.stats else "")
        name = ask_annotator(self, Path(path).name, default)
        if name is None:
            return False
        try:
            self.open_project(path, name)
        except TriageError as error:
            QMessageBox.warning(self, "Cannot open project", str(error))
            return False
        return True

    def open_dialog(self) -> None:
        folder = start_folder(self.project.path if self.project else None,
                              self.prefs.last_project())
        path = open_file(self, "Open project", folder, "Triage projects (*.triage);;All files (*)")
        if path:
            self.open_interactive(path)

    def new_project(self) -> None:
        from PySide6.QtCore import QThreadPool

        from ui.dialogs.new_project import NewProjectDialog

        dialog = NewProjectDialog(self, thread_pool=QThreadPool.globalInstance())
        dialog.accepted.connect(lambda: self.open_interactive(dialog.project_path))
        self.new_project_dialog = dialog
        dialog.open()

    def export_dialog(self) -> None:
        """Ask what to export and where (beside the project by default), then export."""
        if self.project is None:
            return
        from ui.export_dialog import ExportDialog

        dialog = ExportDialog(self.project.path, self)
        dialog.accepted.connect(lambda: self.export_to(*dialog.choice()))
        self.export_options = dialog
        dialog.open()

    def export_to(self, out: Path, labeled_only: bool = False) -> None:
        """Export in the background with progress and cancel; the desk stays usable."""
        from ui.export_dialog import run_export

        run_export(self, out, labeled_only)

    def open_settings(self) -> None:
        if self.project is None:
            return
        from ui.dialogs.settings import SettingsDialog

        dialog = SettingsDialog(self.project.settings, [m.name for m in self.project.models], self)
        dialog.accepted.connect(lambda: self.apply_settings(dialog.changes()))
        self.settings_dialog = dialog
        dialog.open()

    def apply_settings(self, changes: dict[str, Any]) -> bool:
        """Store settings changes; desk and panels follow at once."""
        if self.project is None or not changes:
            return False
        old_model = self.project.settings.active_model
        try:
            self.project.update_settings(**changes)
        except TriageError as error:
            QMessageBox.warning(self, "Settings not saved", str(error))
            return False
        self.desk.settings_changed()
        self.request_advice()
        self.show_score_action.setChecked(self.project.settings.show_score)
        if self.project.settings.active_model != old_model:
            self.desk.show_next()  # the queue follows another ranking now
            self._load_panel_info()
        else:
            self._settings_info()
            self.refresh_panels()
        return True

    def toggle_score(self, checked: bool) -> None:
        if self.project is not None and checked != self.project.settings.show_score:
            self.apply_settings({"show_score": bool(checked)})

    def switch_annotator(self) -> None:
        if self.project is None or self.desk.stats is None:
            return
        name = ask_annotator(self, self.project.path.name, self.desk.stats.annotator)
        if name is None:
            return
        project = self.project
        self.desk.stop()
        self.prefs.set_last_annotator(project.path, name)
        self.desk.start(project, name)
        self.refresh_drawer(force=True)
        self.desk.setFocus()
        self.refresh_panels()

    def show_lead_view(self) -> None:
        from ui.lead_window import LeadWindow

        if self.lead_view is None:
            self.lead_view = LeadWindow(lambda: self.project, self.prefs,
                                        request_advice=self.request_advice,
                                        certify=self.certify,
                                        curves_of=lambda: self.info and self.info.offline_curves
                                        or None)
            self.lead_view.guidelinesSaved.connect(self._guidelines_saved)
            if self.advice_feed.latest is not None:
                self.lead_view.show_advice_state(self.advice_feed.latest)
        self.lead_view.show()
        self.lead_view.raise_()
        self.refresh_panels()
        self.lead_view.refresh_analysis()

    # -- Qt overrides ----------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        # Keys typed while a panel or the splitter has focus still reach the desk.
        if not self.desk.handle_key(event):
            super().keyPressEvent(event)

    def _restore_layout(self) -> None:
        """Size, position and splitters as the user left them, if they fit this screen."""
        restore_geometry(self, self.prefs.layout("geometry"))
        saved = self.prefs.layout("state")
        if saved is not None:
            self.restoreState(saved)
        restore_splitter(self.split, self.prefs.layout("split"), weights=[3, 2])
        restore_splitter(self.desk_split, self.prefs.layout("desk_split"), weights=[3, 1])
        self.drawer_action.setChecked(not self.prefs.drawer_hidden())
        self.drawer.setVisible(self.drawer_action.isChecked())

    def save_layout(self) -> None:
        self.prefs.set_layout("geometry", self.saveGeometry())
        self.prefs.set_layout("state", self.saveState())
        self.prefs.set_layout("split", self.split.saveState())
        self.prefs.set_layout("desk_split", self.desk_split.saveState())
        self.prefs.set_drawer_hidden(not self.drawer_action.isChecked())
        if self.panels:
            self.prefs.set_layout("panel_split", self.panel_split.saveState())

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.save_layout()
        self.close_project()
        if self.lead_view is not None:
            self.lead_view.close()
        super().closeEvent(event)
