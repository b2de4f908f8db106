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
    # The panels, their live state and the offline curves arrive on later turns of the
    # event loop (and from worker threads): wait for all of them.
    qtbot.waitUntil(lambda: window.info is not None and not window._background, timeout=10000)
    return window
