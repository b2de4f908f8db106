"""The main window: the desk beside the three live panels, menus, and the status line.

It composes objects that talk through explicit methods and signals, not shared attributes:
the menus (:mod:`ui.main_menus`), the live panels (:class:`ui.panel_control.PanelController`),
the advice (:class:`ui.advice_control.AdviceController`) and the reading pane, help and text
size (:class:`ui.reading_actions.ReadingController`). Each is given a way to read the open
project; the window owns the project and the annotator's session.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLabel, QMainWindow, QMessageBox, QWidget

from triage.base.errors import TriageError
from triage.project import Project, open_project
from triage.views.formatting import exported_text
from ui.advice_control import AdviceController
from ui.analysis.advice_banner import AdviceBanner
from ui.annotator_dialog import ask_annotator
from ui.desk import Desk
from ui.desk_drawer import DeskDrawer
from ui.desk_layout import CompactLayout, build_panes
from ui.file_dialogs import open_file, start_folder
from ui.main_menus import MainMenus, MenuSlots
from ui.palette import FOCUS_STYLE, apply_app_palette
from ui.panel_control import PanelController
from ui.prefs import Prefs
from ui.reading_actions import ReadingController
from ui.team_live import TeamLive, project_title, server_problems, start_team_live, team_annotator
from ui.window_state import restore_geometry, restore_splitter, size_window

if TYPE_CHECKING:  # loaded with the panels, after the first candidate is on screen
    from triage.views.panels import PanelInfo
    from ui.dialogs.new_project import NewProjectDialog
    from ui.dialogs.settings import SettingsDialog
    from ui.export_dialog import ExportDialog
    from ui.help_dialog import HelpDialog
    from ui.workers import Worker


class MainWindow(QMainWindow):
    """Owns the open project and the annotator's session; panels only draw snapshots."""

    def __init__(self, prefs: Prefs | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.prefs = prefs or Prefs()
        self.project: Project | None = None
        self.lead_view: Any = None
        self._team_live: TeamLive | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.new_project_dialog: NewProjectDialog | None = None
        self.help_dialog: HelpDialog | None = None
        self.last_export: Path | None = None   # the file the last export wrote
        self.export_worker: Worker | None = None
        self.export_options: ExportDialog | None = None
        self.setWindowTitle("Triage")
        self.desk = Desk()
        self.advice_banner = AdviceBanner()
        self.drawer = DeskDrawer(on_show=lambda: self.reading.refresh_drawer())
        self._build_layout()
        project_of = self.current_project
        self.live_panels = PanelController(self.panel_split, self.prefs, project_of)
        self.advice = AdviceController(self, project_of)
        self.advice_feed = self.advice.feed   # the last state: advice_feed.latest
        self.reading = ReadingController(self, self.desk, self.drawer, self.prefs, project_of)
        self.menus = MainMenus(self, self._menu_slots())
        self._connect()
        self.desk.set_zoom(self.prefs.font_zoom())
        apply_app_palette()
        self.setStyleSheet(FOCUS_STYLE)
        size_window(self, QSize(1360, 820))  # less on a small or scaled-up screen
        self._restore_layout()

    def _build_layout(self) -> None:
        self.split, self.desk_split, self.panel_split = build_panes(
            self.advice_banner, self.desk, self.drawer)
        self.setCentralWidget(self.split)
        self.compact = CompactLayout(self, self.split, self.panel_split, self.desk_split,
                                     self.drawer, on_change=self.advice_banner.set_compact)
        self.status_label = QLabel()
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addWidget(self.status_label, 1)
        self.server_note = QLabel()   # rows from a team server the replica set aside
        self.server_note.setTextFormat(Qt.TextFormat.PlainText)
        self.statusBar().addPermanentWidget(self.server_note)

    def _menu_slots(self) -> MenuSlots:
        reading = self.reading
        return MenuSlots(
            new_project=self.new_project, open_dialog=self.open_dialog,
            open_recent=self.open_interactive, recent_projects=self.prefs.recent_projects,
            export=self.export_dialog, quit=self.close, lead_view=self.show_lead_view,
            zoom=reading.zoom, toggle_drawer=reading.toggle_drawer,
            focus_history=reading.focus_history, toggle_score=self.toggle_score,
            settings=self.open_settings, switch_annotator=self.switch_annotator,
            help=self.show_help)

    def _connect(self) -> None:
        """Who tells whom what: every link between the parts, in one place."""
        self.drawer.history.changeRequested.connect(self.desk.change_from_history)
        self.drawer.history.leave.connect(self.desk.setFocus)
        self.desk.statusChanged.connect(self.status_label.setText)
        self.desk.changed.connect(self.live_panels.schedule_refresh)
        self.desk.changed.connect(self.reading.refresh_drawer)
        self.desk.changed.connect(self.advice.schedule)  # label, undo, skip
        self.live_panels.refreshed.connect(self._lead_overview)
        self.advice.arrived.connect(self._advice_arrived)
        self.advice.changedOutside.connect(self.live_panels.schedule_refresh)
        self.reading.drawerShown.connect(self.menus.drawer_action.setChecked)
        self.reading.message.connect(self.statusBar().showMessage)

    def current_project(self) -> Project | None:
        """The open project (None when none is)."""
        return self.project

    # -- what tests, scripts and the app read --------------------------------------------
    @property
    def info(self) -> PanelInfo | None:
        """What the panels know beside the snapshot (None until they are loaded)."""
        return self.live_panels.info

    @property
    def panels(self) -> tuple:
        return self.live_panels.panels

    @property
    def show_score_action(self):
        return self.menus.show_score_action

    @property
    def drawer_action(self):
        return self.menus.drawer_action

    @property
    def gain(self):
        return self.live_panels.gain

    @property
    def spend(self):
        return self.live_panels.spend

    @property
    def yield_(self):
        return self.live_panels.yield_

    @property
    def refreshes(self) -> int:
        """How many times the panels were handed a snapshot (tests check the coalescing)."""
        return self.live_panels.refreshes

    def live_pending(self) -> bool:
        """Is the open project's live state still being built off the GUI thread?"""
        return self.live_panels.live_pending()

    def refresh_panels(self) -> None:
        """Hand the current snapshot to the panels now."""
        self.live_panels.refresh_panels()

    def ensure_panels(self) -> None:
        """Create the live panels now."""
        self.live_panels.ensure_panels()

    def request_advice(self) -> None:
        """Recompute the advice state off the GUI thread."""
        self.advice.request()

    def zoom(self, step: int | None) -> None:
        """Change the candidate's text size (None: back to normal)."""
        self.reading.zoom(step)

    def focus_history(self) -> None:
        """Open the history tab with the keyboard in it."""
        self.reading.focus_history()

    def show_help(self) -> None:
        """F1: the guidelines and the keyboard shortcuts."""
        self.help_dialog = self.reading.show_help()

    def _lead_overview(self, snapshot) -> None:
        if self.lead_view is not None and self.lead_view.isVisible():
            self.lead_view.show_state(snapshot, self.live_panels.lead_info())

    def _advice_arrived(self, state) -> None:
        """Hand the same state to every surface: banner, Advice tab, band, agreement."""
        self.advice_banner.show_advice(state)
        if self.lead_view is not None:
            self.lead_view.show_advice_state(state)

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
        if self.lead_view is not None:
            self.lead_view.project_opened()
        # A team server's labels arrive as notifications too, not only at the periodic look.
        self._team_live = start_team_live(self, project, self.advice.poll)
        self.show_server_problems()
        if self._team_live is not None:
            self._team_live.changed.connect(self.show_server_problems)
        # The advice (computed in the helper process) after the first candidate is drawn.
        QTimer.singleShot(0, self.advice.request)
        self.menus.show_score_action.setChecked(project.settings.show_score)
        self.drawer.history.set_labels(project.settings.labels)
        self.reading.refresh_drawer(force=True)
        self.desk.setFocus()
        # Panels and offline curves (a scan of the pool) once the first candidate is shown.
        QTimer.singleShot(50, self.live_panels.load_panel_info)

    def show_server_problems(self) -> None:
        """Say (as the command line does) when rows from the team server were set aside."""
        problems = server_problems(self.project)
        self.server_note.setText(problems or "")
        self.server_note.setVisible(bool(problems))

    def close_project(self) -> None:
        if self._team_live is not None:
            self._team_live.stop()
            self._team_live = None
        self.desk.stop()
        self.advice.clear()
        if self.project is not None:
            self.project.close()
        self.project = None
        self.live_panels.closed()
        self.server_note.hide()

    # -- user actions ----------------------------------------------------------------
    def open_interactive(self, path: str | Path | None) -> bool:
        """Open a project the user picked (None: none was), asking who is annotating."""
        if path is None:
            return False
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
        dialog.accepted.connect(lambda: self.export_to(*dialog.choice(), tool=dialog.tool()))
        self.export_options = dialog
        dialog.open()

    def export_to(self, out: Path, labeled_only: bool = False, tool: str = "") -> None:
        """Export in the background with progress and cancel; the desk stays usable."""
        from ui.export_dialog import run_export

        if self.project is None:
            return
        self.export_worker = run_export(self, self.project.path, out, labeled_only,
                                        self._exported, tool)

    def _exported(self, out: Path, count: int) -> None:
        self.last_export = out
        self.statusBar().showMessage(exported_text(count, out), 8000)

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
        self.advice.request()
        self.menus.show_score_action.setChecked(self.project.settings.show_score)
        model_changed = self.project.settings.active_model != old_model
        if model_changed:
            self.desk.show_next()  # the queue follows another ranking now
        self.live_panels.settings_changed(model_changed)
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
        self.reading.refresh_drawer(force=True)
        self.desk.setFocus()
        self.live_panels.refresh_panels()

    def show_lead_view(self) -> None:
        from ui.lead_window import LeadWindow

        if self.lead_view is None:
            self.lead_view = LeadWindow(self.current_project, self.prefs,
                                        request_advice=self.advice.request,
                                        certify=self.advice.certify,
                                        curves_of=self.live_panels.curves)
            self.lead_view.guidelinesSaved.connect(self.reading.guidelines_saved)
            if self.advice.feed.latest is not None:
                self.lead_view.show_advice_state(self.advice.feed.latest)
        self.lead_view.bring_forward()   # shown, raised, with the keyboard focus
        self.live_panels.refresh_panels()
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
        restore_splitter(self.desk_split, self.prefs.layout("desk_split"), weights=[2, 1])
        self.menus.drawer_action.setChecked(not self.prefs.drawer_hidden())
        self.drawer.setVisible(self.menus.drawer_action.isChecked())

    def save_layout(self) -> None:
        self.prefs.set_layout("geometry", self.saveGeometry())
        self.prefs.set_layout("state", self.saveState())
        self.prefs.set_drawer_hidden(not self.menus.drawer_action.isChecked())
        if self.compact.compact:
            return   # the splitters hold the stacked panes no more: keep their wide sizes
        self.prefs.set_layout("split", self.split.saveState())
        self.prefs.set_layout("desk_split", self.desk_split.saveState())
        if self.live_panels.panels:
            self.prefs.set_layout("panel_split", self.panel_split.saveState())

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self.lead_view is not None and not self.lead_view.close():
            event.ignore()   # the lead kept an unsaved guidelines draft (Cancel)
            return
        self.save_layout()
        self.close_project()
        if self.lead_view is not None:
            self.lead_view.close()
        super().closeEvent(event)
