"""The desk's note row: a note on the annotator's last label (key ``n``)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QWidget


class DeskNotes:
    """Mixed into :class:`ui.desk.Desk`: builds the note row and saves notes as pending steps."""

    # Provided by the desk.
    note_row: QWidget
    note_edit: QLineEdit
    _note_label_id: int | None
    project: Any
    stats: Any
    message: Any
    _pending: Any

    def _build_note_row(self) -> QWidget:
        row = QWidget()
        note_layout = QHBoxLayout(row)
        note_layout.setContentsMargins(0, 0, 0, 0)
        note_layout.addWidget(QLabel("Note on the last label:"))
        self.note_edit = QLineEdit()
        self.note_edit.setAccessibleName("Note on the last label")
        self.note_edit.setPlaceholderText("type, Enter to save, Esc to cancel")
        self.note_edit.returnPressed.connect(self._save_note)
        note_layout.addWidget(self.note_edit)
        row.setVisible(False)
        self.note_edit.installEventFilter(self)  # type: ignore[arg-type]
        return row

    def eventFilter(self, watched: QObject, event: Any) -> bool:  # noqa: N802 - Qt override
        if (watched is self.note_edit and event.type() == event.Type.KeyPress
                and event.key() == Qt.Key.Key_Escape):
            self._close_note()
            return True
        return super().eventFilter(watched, event)  # type: ignore[misc]

    def _open_note(self) -> None:
        label_id = self.stats.last_label_id if self.stats else None
        if label_id is None:
            self.message.setText("Label something first: a note goes with your last label.")
            return
        self._note_label_id = label_id
        self.note_edit.clear()
        self.note_row.setVisible(True)
        self.note_edit.setFocus()

    def _save_note(self) -> None:
        label_id, note = self._note_label_id, self.note_edit.text().strip()
        self._close_note()
        if label_id is None or not note or self.project is None:
            return

        def step() -> None:
            self.project.add_note(label_id, note)
            self.message.setText("Note saved.")

        if self._pending is None:
            self._pending = step
            self._attempt()

    def _attempt(self) -> None:  # the desk's
        raise NotImplementedError

    def _close_note(self) -> None:
        self.note_row.setVisible(False)
        self._note_label_id = None
        self.setFocus()  # type: ignore[attr-defined]
