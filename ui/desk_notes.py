"""The desk's note row: a note on the annotator's last label (key ``n``)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget


class NoteRow(QWidget):
    """A line for a note on one label event: Enter emits :attr:`saved`, Esc cancels.

    The desk opens it with the label's id and turns :attr:`saved` into one of its pending
    steps (so a note waits for a busy file like a label does); :attr:`closed` hands the
    keyboard back to the desk.
    """

    saved = Signal(int, str)   # (label event id, note)
    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label_id: int | None = None
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel("Note on the last label:")
        self.caption.setTextFormat(Qt.TextFormat.PlainText)   # candidate text: never HTML
        layout.addWidget(self.caption)
        self.edit = QLineEdit()
        self.edit.setAccessibleName("Note on the last label")
        self.edit.setPlaceholderText("type, Enter to save, Esc to cancel")
        self.edit.returnPressed.connect(self._save)
        self.edit.installEventFilter(self)
        layout.addWidget(self.edit)
        self.setVisible(False)

    def open_for(self, label_id: int, what: str = "") -> None:
        """Show an empty note line for label event ``label_id`` (``what``: that decision and
        its candidate, in short, so the annotator sees what the note attaches to)."""
        self.label_id = label_id
        self.caption.setText(f"Note on {what}:" if what else "Note on the last label:")
        self.edit.setAccessibleName(self.caption.text().rstrip(":"))
        self.edit.clear()
        self.setVisible(True)
        self.edit.setFocus()

    def close_row(self) -> None:
        """Hide the line without saving."""
        self.setVisible(False)
        self.label_id = None
        self.closed.emit()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if (watched is self.edit and event.type() == QEvent.Type.KeyPress
                and event.key() == Qt.Key.Key_Escape):  # type: ignore[attr-defined]
            self.close_row()
            return True
        return super().eventFilter(watched, event)

    def _save(self) -> None:
        label_id, note = self.label_id, self.edit.text().strip()
        self.close_row()
        if label_id is not None and note:
            self.saved.emit(label_id, note)
