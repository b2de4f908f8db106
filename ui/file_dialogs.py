"""File dialogs that start somewhere sensible and add the extension the user left off.

Every file dialog of the application comes from here, and none of them opens a file it
lists. Qt's icon provider asks ``QMimeDatabase`` what each file is, and for a name it does
not know (``p.triage``, ``p.triage-wal``) that reads the file's first bytes: an ``open()``
and ``close()`` of the project file inside the desk's process, which drops every POSIX
lock SQLite holds on it (see docs/formats.md, "One engine per process"). So the dialogs
are Qt's own (a platform's native dialog may run in this process and sniff files too) with
:class:`NameOnlyIcons`, which decides icons and types from names and ``stat`` alone.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileInfo, Qt
from PySide6.QtGui import QAbstractFileIconProvider, QIcon, QKeyEvent
from PySide6.QtWidgets import QFileDialog, QFileIconProvider, QLineEdit, QWidget


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


class NameOnlyIcons(QFileIconProvider):
    """Icons and type names from a file's name and kind, never from its content."""

    def icon(self, what: QFileInfo | QAbstractFileIconProvider.IconType) -> QIcon:  # noqa: D102 - Qt override
        if isinstance(what, QFileInfo):
            kind = (QAbstractFileIconProvider.IconType.Folder if what.isDir()
                    else QAbstractFileIconProvider.IconType.File)
            return super().icon(kind)
        return super().icon(what)  # an IconType: no file involved

    def type(self, info: QFileInfo) -> str:  # noqa: D102 - Qt override
        if info.isDir():
            return "Folder"
        suffix = info.suffix()
        return f"{suffix.upper()} file" if suffix else "File"


def file_dialog(parent: QWidget | None, title: str, start: str, filters: str,
                saving: bool) -> QFileDialog:
    """Qt's own file dialog that never reads the files it lists (see the module's note)."""
    dialog = QFileDialog(parent, title, start, filters)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setIconProvider(NameOnlyIcons())
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave if saving
                         else QFileDialog.AcceptMode.AcceptOpen)
    dialog.setFileMode(QFileDialog.FileMode.AnyFile if saving
                       else QFileDialog.FileMode.ExistingFile)
    if saving:
        start_path = Path(start)
        if not start_path.is_dir():
            dialog.selectFile(start_path.name)
    return dialog


def ask_path(parent: QWidget | None, title: str, start: str, filters: str,
             saving: bool) -> tuple[str, str]:
    """(chosen path or '', chosen filter), like ``QFileDialog.getSaveFileName``."""
    dialog = file_dialog(parent, title, start, filters, saving)
    try:
        if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
            return "", ""
        return dialog.selectedFiles()[0], dialog.selectedNameFilter()
    finally:
        dialog.deleteLater()


def save_file(parent: QWidget | None, title: str, suggested: Path, filters: str,
              allowed: tuple[str, ...], default: str) -> Path | None:
    """Ask where to save, starting at ``suggested``; the extension is added if missing."""
    path, chosen = ask_path(parent, title, str(suggested), filters, saving=True)
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
    path, _ = ask_path(parent, title, str(folder), filters, saving=False)
    return Path(path) if path else None
