"""Builders shared by the GUI tests."""

from __future__ import annotations

from pathlib import Path

from ui.main_window import MainWindow
from ui.prefs import Prefs


def open_main_window(qtbot, project_path: Path, annotator: str) -> MainWindow:
    """The main window on ``project_path``, shown, with its panels loaded (they come after
    the first candidate, so a test that reads them must wait for them)."""
    window = MainWindow(Prefs())
    qtbot.addWidget(window)
    window.open_project(project_path, annotator)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    # The panels and their live state arrive on later turns of the event loop (the offline
    # curves later still, from the helper process: see wait_for_background).
    qtbot.waitUntil(lambda: window.info is not None and not window.live_pending(),
                    timeout=10000)
    return window


def wait_for_background(qtbot, window: MainWindow) -> None:
    """Wait until every background read of the panels (offline curves included) is in."""
    qtbot.waitUntil(lambda: not window.live_panels.busy(), timeout=30000)


def read_source(qtbot, dialog, path) -> bool:
    """Choose ``path`` in the new-project dialog, wait until it is read; True if it was."""
    if not dialog.set_source(path):
        return False
    qtbot.waitUntil(lambda: dialog.reader is None, timeout=30000)
    return dialog.errors.isHidden()
