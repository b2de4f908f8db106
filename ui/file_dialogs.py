"""File dialogs that start somewhere sensible and add the extension the user left off."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFileDialog, QLineEdit, QWidget


class PathField(QLineEdit):
    """A line for a file's path where Enter means "read this file" and stops there.

    In a plain QLineEdit the Enter key also reaches the dialog, which presses its default
    button: typing a path and pressing Enter would create a project from guesses the user
    has not seen yet.
    """

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        super().keyPressEvent(event)   # emits returnPressed and editingFinished
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()


def start_folder(*hints: str | Path | None) -> Path:
    """The first hint that is (or lies in) an existing folder, else the home folder.

    Never the process's working directory: a desk started from a menu has ``/`` there.
    """
    for hint in hints:
        if not hint:
            continue
        path = Path(hint).expanduser()
        folder = path if path.is_dir() else path.parent
        if str(folder) not in ("", ".") and folder.is_dir():
            return folder.resolve()
    return Path.home()


def with_extension(path: str | Path, allowed: tuple[str, ...], default: str) -> Path:
    """``path`` with ``default`` appended when its extension is not one of ``allowed``.

    ``allowed`` and ``default`` are lower-case suffixes with the dot (``.csv``).
    """
    path = Path(path)
    return path if path.suffix.lower() in allowed else path.with_name(path.name + default)


def save_file(parent: QWidget | None, title: str, suggested: Path, filters: str,
              allowed: tuple[str, ...], default: str) -> Path | None:
    """Ask where to save, starting at ``suggested``; the extension is added if missing."""
    path, chosen = QFileDialog.getSaveFileName(parent, title, str(suggested), filters)
    if not path:
        return None
    # The filter the user picked decides the extension when the name has none.
    for ext in allowed:
        if f"*{ext}" in (chosen or ""):
            default = ext
            break
    return with_extension(path, allowed, default)


def open_file(parent: QWidget | None, title: str, folder: Path, filters: str) -> Path | None:
    """Ask for an existing file, starting in ``folder``."""
    path, _ = QFileDialog.getOpenFileName(parent, title, str(folder), filters)
    return Path(path) if path else None
