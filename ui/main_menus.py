"""The main window's menus and their actions, built from the callables they trigger.

The window hands over what each entry does (explicit methods of its own and of its
controllers); the menus hold the actions whose state the window sets (checked, enabled).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu

Slot = Callable[..., object]


@dataclass(frozen=True)
class MenuSlots:
    """What every menu entry does."""

    new_project: Slot
    open_dialog: Slot
    open_recent: Callable[[str], object]
    recent_projects: Callable[[], list[str]]
    export: Slot
    quit: Slot
    lead_view: Slot
    zoom: Callable[[int | None], object]
    toggle_drawer: Slot
    focus_history: Slot
    toggle_score: Slot
    settings: Slot
    switch_annotator: Slot
    help: Slot


class MainMenus:
    """File, View, Project and Help; the checkable actions the window keeps in step."""

    def __init__(self, window: QMainWindow, slots: MenuSlots) -> None:
        self._window, self._slots = window, slots
        bar = window.menuBar()
        file = bar.addMenu("&File")
        self._action(file, "New project…", slots.new_project, QKeySequence.StandardKey.New)
        self._action(file, "Open…", slots.open_dialog, QKeySequence.StandardKey.Open)
        demo = file.addMenu("New demo project")
        self._action(demo, "Text (idioms)", lambda: self._open_demo("text"))
        self._action(demo, "Pictures (handwritten digits)", lambda: self._open_demo("pictures"))
        self.recent_menu = file.addMenu("Recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        self.export_action = self._action(file, "Export…", slots.export)
        file.addSeparator()
        self._action(file, "Quit", slots.quit, QKeySequence.StandardKey.Quit)
        view = bar.addMenu("&View")
        self._action(view, "Lead view", slots.lead_view, "Ctrl+L")
        view.addSeparator()
        zoom_in = self._action(view, "Larger text", lambda: slots.zoom(+1), "Ctrl+=")
        zoom_in.setShortcuts([QKeySequence("Ctrl+="), QKeySequence("Ctrl++")])
        self._action(view, "Smaller text", lambda: slots.zoom(-1), "Ctrl+-")
        self._action(view, "Reset text size", lambda: slots.zoom(None), "Ctrl+0")
        view.addSeparator()
        self.drawer_action = self._action(view, "Guidelines and history", slots.toggle_drawer,
                                          "Ctrl+G", checkable=True)
        self._action(view, "History", slots.focus_history, "Ctrl+H")
        self._action(view, "Find…", self._find, QKeySequence.StandardKey.Find)
        view.addSeparator()
        self.show_score_action = self._action(view, "Show score", slots.toggle_score,
                                              checkable=True)
        project = bar.addMenu("&Project")
        self._action(project, "Settings…", slots.settings, "Ctrl+,")
        self._action(project, "Switch annotator…", slots.switch_annotator)
        help_menu = bar.addMenu("&Help")
        self._action(help_menu, "Guidelines and keyboard shortcuts", slots.help, "F1")

    def _open_demo(self, kind: str) -> None:
        """Open (creating it on first use) the text or the picture demo project."""
        from triage.project.demo import ensure_demo, ensure_picture_demo
        from ui.prefs import data_dir

        make = ensure_picture_demo if kind == "pictures" else ensure_demo
        self._slots.open_recent(str(make(data_dir())))

    def _find(self) -> None:
        """The annotator's data manager: find any candidate, see and change one's decision."""
        from ui.data_manager import open_find

        open_find(self._window)

    def _action(self, menu: QMenu, text: str, slot: Slot,
                shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
                checkable: bool = False) -> QAction:
        action = QAction(text, self._window)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        for path in self._slots.recent_projects():
            action = self.recent_menu.addAction(path)
            action.triggered.connect(lambda _=False, p=path: self._slots.open_recent(p))
        if not self.recent_menu.actions():
            self.recent_menu.addAction("(none)").setEnabled(False)
