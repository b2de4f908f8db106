"""One candidate's record in the data manager: its text or picture, what the viewer may see
of its scores and labels (each with its note), its history, and the relabel and ruling
buttons. It draws a :class:`triage.views.data_manager.RecordView` and reports clicks."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from triage.views.data_manager import RecordView

PICTURE_SIDE = 220


class RecordPane(QWidget):
    """The record of the candidate chosen in the table; relabel and rule buttons below."""

    relabel = Signal(str)     # a label value: change the viewer's own decision
    rule = Signal(str)        # a label value: the lead's ruling

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("Choose a candidate to see its record.", self)
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        self.picture = QLabel(self)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.hide()
        self.body = QPlainTextEdit(self)
        self.body.setReadOnly(True)
        self.body.setAccessibleName("Candidate record")
        self.buttons = QGridLayout()
        self.relabel_buttons: dict[str, QPushButton] = {}
        self.rule_buttons: dict[str, QPushButton] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.picture)
        layout.addWidget(self.body, 1)
        layout.addLayout(self.buttons)

    def set_choices(self, values: Sequence[str], lead: bool) -> None:
        """One relabel button per label value, and (the lead) one ruling button each."""
        for button in (*self.relabel_buttons.values(), *self.rule_buttons.values()):
            self.buttons.removeWidget(button)
            button.deleteLater()
        self.relabel_buttons, self.rule_buttons = {}, {}
        for col, value in enumerate(values):
            button = QPushButton(f"My label: {value}", self)
            button.setToolTip(f"Record {value!r} as your decision (a change, undoable)")
            button.clicked.connect(lambda _=False, v=value: self.relabel.emit(v))
            self.buttons.addWidget(button, 0, col)
            self.relabel_buttons[value] = button
            if lead:
                ruling = QPushButton(f"Rule: {value}", self)
                ruling.setToolTip(f"Make {value!r} the final label (adjudication)")
                ruling.clicked.connect(lambda _=False, v=value: self.rule.emit(v))
                self.buttons.addWidget(ruling, 1, col)
                self.rule_buttons[value] = ruling
        self.set_enabled(False)

    def set_enabled(self, on: bool) -> None:
        """Buttons work only while a candidate is shown."""
        for button in (*self.relabel_buttons.values(), *self.rule_buttons.values()):
            button.setEnabled(on)

    def show_record(self, view: RecordView | None) -> None:
        """Draw one record (None: nothing chosen)."""
        if view is None:
            self.title.setText("Choose a candidate to see its record.")
            self.body.setPlainText("")
            self.picture.hide()
            self.set_enabled(False)
            return
        mine = f"   (your label: {view.mine})" if view.mine else ""
        self.title.setText(f"{view.title}{mine}")
        self._show_picture(view.picture)
        parts = [view.text, ""]
        parts += view.facts
        parts += ["", "Labels:"] + (view.labels or ["(none)"])
        parts += ["", "History:"] + (view.history or ["(none)"])
        self.body.setPlainText("\n".join(parts))
        self.set_enabled(True)
        for value, button in self.relabel_buttons.items():
            button.setEnabled(value != view.mine)

    def _show_picture(self, path: str | None) -> None:
        pixmap = QPixmap(path) if path else QPixmap()
        if pixmap.isNull():
            self.picture.hide()
            return
        self.picture.setPixmap(pixmap.scaled(PICTURE_SIDE, PICTURE_SIDE,
                                             Qt.AspectRatioMode.KeepAspectRatio,
                                             Qt.TransformationMode.SmoothTransformation))
        self.picture.show()
