"""Who is annotating: asked when a project opens and on "Switch annotator…"."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

MAX_NAME = 80


class AnnotatorDialog(QDialog):
    """A name field, prefilled with the name last used on this project."""

    def __init__(self, project_name: str, default: str = "", parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Who is annotating?")
        prompt = QLabel(f"Your name for the labels you give in {project_name}:")
        prompt.setTextFormat(Qt.TextFormat.PlainText)
        self.name_edit = QLineEdit(default)
        self.name_edit.setMaxLength(MAX_NAME)
        self.name_edit.selectAll()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.name_edit.textChanged.connect(self._validate)
        layout = QVBoxLayout(self)
        layout.addWidget(prompt)
        layout.addWidget(self.name_edit)
        layout.addWidget(self.buttons)
        self._validate()

    def _validate(self) -> None:
        ok = bool(self.name_edit.text().strip())
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(ok)

    def name(self) -> str:
        return self.name_edit.text().strip()


def ask_annotator(parent: QWidget | None, project_name: str, default: str = "") -> str | None:
    """Ask modally; the name, or None when cancelled."""
    dialog = AnnotatorDialog(project_name, default, parent)
    if dialog.exec() == QDialog.DialogCode.Accepted and dialog.name():
        return dialog.name()
    return None
