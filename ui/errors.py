"""Unexpected errors: written to the log file and shown in a dialog; the app keeps running.

PySide6 reports exceptions raised in slots and event handlers through ``sys.excepthook``,
so one hook covers the whole GUI. The dialog is non-modal (``show``), so a test or a
screenshot run never blocks on it, and an error storm shows one dialog, not hundreds.
"""

from __future__ import annotations

import datetime as dt
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from triage.base.errors import TriageError


class ErrorHook:
    """Installable ``sys.excepthook``: log, then show (at most one dialog at a time)."""

    def __init__(self, log_file: Path, parent: Callable[[], QWidget | None] = lambda: None):
        self.log_file = Path(log_file)
        self.parent = parent
        self.dialog: QMessageBox | None = None
        self.count = 0
        self._previous: Callable[[type[BaseException], BaseException, TracebackType | None],
                                 Any] | None = None

    def install(self) -> ErrorHook:
        self._previous = sys.excepthook
        sys.excepthook = self
        return self

    def uninstall(self) -> None:
        if sys.excepthook is self:
            sys.excepthook = self._previous or sys.__excepthook__

    def __call__(self, exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        self.count += 1
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        self._write(text)
        try:
            self._show(exc_type, exc)
        except Exception:  # noqa: BLE001 - the hook must never raise itself
            _to_stderr(text)

    def _write(self, text: str) -> None:
        try:
            self.log_file.parent.mkdir(parents=True, exist_ok=True)
            stamp = dt.datetime.now().isoformat(timespec="seconds")
            with self.log_file.open("a", encoding="utf-8") as log:
                log.write(f"--- {stamp}\n{text}\n")
        except OSError:
            _to_stderr(text)

    def _show(self, exc_type, exc) -> None:
        if QApplication.instance() is None:
            return
        if isinstance(exc, TriageError):
            message = str(exc)
        else:
            message = (f"Something went wrong: {exc_type.__name__}: {exc}\n\n"
                       "Your labels up to the last one shown are saved. "
                       f"The details were written to {self.log_file}.")
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.setInformativeText(f"{self.count} errors so far; see the log.")
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "Triage — unexpected error", message,
                          QMessageBox.StandardButton.Ok, self.parent())
        box.setModal(False)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.show()
        self.dialog = box


def _to_stderr(text: str) -> None:
    """Write to the process's own standard error, if it has one (a desktop launch may not)."""
    if sys.__stderr__ is not None:
        sys.__stderr__.write(text)
