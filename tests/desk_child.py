"""A desk in its own process, driven line by line on stdin (for tests that SIGKILL it).

    python -m tests.desk_child PROJECT

Commands, one per line; each answers one line on stdout when it is done:

- ``label``: press the first label's key at the desk; answers ``ack LABEL_ID`` once the
  desk acknowledged it (showed the next candidate), or ``nack MESSAGE``.
- ``dialog NAME``: open one of the dialogs (see :data:`DIALOGS`) and use it as a person
  would: it lists the project's folder, a file is chosen or typed, and it is accepted or
  cancelled; answers ``done NAME`` when it is closed and its work is finished.
- ``drop``: open and close the project file in this process, as a content sniffer did,
  which drops SQLite's locks (to provoke what the desk must detect); answers ``dropped``.
- ``say``: answers ``say MESSAGE`` (the desk's message line).

The dialogs are Qt's own (``DontUseNativeDialog`` is Qt's default on the offscreen and xcb
platforms without a desktop theme): real widgets listing real folders, as a person sees.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QApplication,
    QDialogButtonBox,
    QFileDialog,
    QLineEdit,
    QListView,
    QPushButton,
    QWidget,
)


def wait(app: QApplication, done: Callable[[], bool], timeout: float = 60.0) -> bool:
    """Run the event loop until ``done()`` (True) or ``timeout`` seconds (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        app.processEvents()
        if done():
            return True
        time.sleep(0.005)
    return done()


def modal(app: QApplication, kind: type) -> QWidget | None:
    """The visible top-level widget of ``kind`` (a dialog that is open), if any."""
    for widget in app.topLevelWidgets():
        if isinstance(widget, kind) and widget.isVisible():
            return widget
    return None


def _file_dialog_lists(app: QApplication, dialog: QFileDialog, folder: Path) -> None:
    """Wait until the dialog shows ``folder``'s files (it reads the folder in a thread)."""
    wanted = {p.name for p in folder.iterdir() if not p.name.startswith(".")}
    view = dialog.findChild(QListView, "listView")

    def listed() -> bool:
        if view is None or view.model() is None:
            return True
        model = view.model()
        root = view.rootIndex()
        names = {model.index(r, 0, root).data() for r in range(model.rowCount(root))}
        return bool(names & wanted) or not wanted
    wait(app, listed, 30)


def use_file_dialog(app: QApplication, name: str | None, folder: Path) -> Callable[[], None]:
    """A step that finds the open QFileDialog, goes to ``folder`` and lets it list the
    files there, then types ``name`` and accepts (``None``: cancels)."""
    def step() -> None:
        wait(app, lambda: modal(app, QFileDialog) is not None, 30)
        dialog = modal(app, QFileDialog)
        assert isinstance(dialog, QFileDialog), "no file dialog opened"
        dialog.setDirectory(str(folder))   # where a person would go: the project's folder
        _file_dialog_lists(app, dialog, folder)
        for view in dialog.findChildren(QListView):
            view.grab()   # every row painted: icons and types asked for
        wait(app, lambda: False, 0.3)
        if name is None:
            dialog.reject()
            return
        field = dialog.findChild(QLineEdit, "fileNameEdit")
        assert field is not None
        field.setText(name)
        QTest.keyClick(field, Qt.Key.Key_Return)
    return step


def later(app: QApplication, step: Callable[[], None]) -> None:
    """Run ``step`` once the event loop turns (inside a modal dialog's own loop)."""
    QTimer.singleShot(50, step)


class Driver:
    """The main window on a project, and the commands the test sends."""

    def __init__(self, app: QApplication, path: Path) -> None:
        from ui.main_window import MainWindow
        from ui.prefs import Prefs

        self.app = app
        self.path = path
        self.window = MainWindow(Prefs())
        self.window.open_project(path, "ada")
        self.window.show()
        wait(app, lambda: self.window.info is not None and not self.window.live_pending())

    @property
    def desk(self):  # noqa: ANN201 - the desk widget
        """The desk widget."""
        return self.window.desk

    def label(self) -> str:
        """Press the first label key; ``ack ID`` once acknowledged."""
        desk = self.desk
        before = desk.stats.last_label_id if desk.stats else None
        key = next(iter(desk.buttons.labels))  # the first label's value
        shortcut = desk.buttons.labels[key].text().split("[")[-1].rstrip("]")
        QTest.keyClicks(desk, shortcut)
        wait(self.app, lambda: not desk.busy, 60)
        after = desk.stats.last_label_id if desk.stats else None
        if after is None or after == before:
            return f"nack {desk.message.text()}"
        return f"ack {after}"

    def dialog(self, name: str) -> str:
        """Open the dialog ``name`` and use it; ``done NAME`` when closed."""
        DIALOGS[name](self)
        wait(self.app, lambda: QApplication.activeModalWidget() is None, 30)
        return f"done {name}"


def _report(driver: Driver) -> None:
    app, window = driver.app, driver.window
    window.show_lead_view()
    lead = window.lead_view
    out = driver.path.parent / "report.html"
    later(app, use_file_dialog(app, out.name, driver.path.parent))
    lead.report_button.click()
    assert wait(app, lambda: out.exists() and "report written" in lead.status.text(), 300), \
        lead.status.text()
    lead.close()


def _button(dialog: QWidget, text: str) -> QPushButton:
    return next(b for b in dialog.findChildren(QPushButton) if b.text() == text)


def _export(driver: Driver) -> None:
    from ui.export_dialog import ExportDialog

    app, window, folder = driver.app, driver.window, driver.path.parent
    out = folder / "labels.csv"
    window.export_dialog()
    wait(app, lambda: modal(app, ExportDialog) is not None, 30)
    dialog = modal(app, ExportDialog)
    later(app, use_file_dialog(app, out.name, folder))
    _button(dialog, "Browse…").click()
    _ok(dialog)
    assert wait(app, lambda: out.exists() and window.last_export == out, 120)


def _ok(dialog: QWidget) -> None:
    buttons = dialog.findChild(QDialogButtonBox)
    buttons.button(QDialogButtonBox.StandardButton.Ok).click()


def _open(driver: Driver) -> None:
    later(driver.app, use_file_dialog(driver.app, None, driver.path.parent))
    driver.window.open_dialog()


def _new(driver: Driver) -> None:
    from ui.dialogs.new_project import NewProjectDialog

    app, folder = driver.app, driver.path.parent
    driver.window.new_project()
    wait(app, lambda: modal(app, NewProjectDialog) is not None, 30)
    dialog = modal(app, NewProjectDialog)
    later(app, use_file_dialog(app, None, folder))
    _button(dialog, "Browse…").click()
    later(app, use_file_dialog(app, None, folder))
    _button(dialog, "Save as…").click()
    dialog.reject()


def _settings(driver: Driver) -> None:
    from ui.dialogs.settings import SettingsDialog

    app = driver.app
    driver.window.open_settings()
    wait(app, lambda: modal(app, SettingsDialog) is not None, 30)
    _ok(modal(app, SettingsDialog))


def _guidelines(driver: Driver) -> None:
    window = driver.window
    window.show_lead_view()
    lead = window.lead_view
    lead.tabs.setCurrentWidget(lead.guidelines)
    lead.guidelines.editor.setFocus()
    QTest.keyClicks(lead.guidelines.editor, "Count a fixed phrase as an idiom.")
    lead.guidelines.save_button.click()
    assert wait(driver.app, lambda: not lead.guidelines.has_draft(), 30)
    lead.close()


def _history(driver: Driver) -> None:
    driver.window.focus_history()
    wait(driver.app, lambda: False, 0.5)


def _chart(driver: Driver) -> None:
    app, window = driver.app, driver.window
    wait(app, lambda: bool(window.panels), 30)
    later(app, use_file_dialog(app, "gain.png", driver.path.parent))
    window.panels[0].save_dialog()
    assert wait(app, lambda: (driver.path.parent / "gain.png").exists(), 30)


DIALOGS: dict[str, Callable[[Driver], None]] = {
    "report": _report, "export": _export, "open": _open, "new": _new,
    "settings": _settings, "guidelines": _guidelines, "history": _history, "chart": _chart,
}


def main(argv: list[str]) -> int:
    """Drive a desk on ``argv[0]`` by the commands on stdin."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    driver = Driver(app, Path(argv[0]))
    print("ready", flush=True)
    for line in sys.stdin:
        command, _, arg = line.strip().partition(" ")
        if command == "label":
            print(driver.label(), flush=True)
        elif command == "dialog":
            print(driver.dialog(arg), flush=True)
        elif command == "drop":   # provoke it: what a content sniffer did
            with open(driver.path, "rb") as handle:
                handle.read(16)
            print("dropped", flush=True)
        elif command == "say":
            print(f"say {driver.desk.message.text()}", flush=True)
        elif command == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
