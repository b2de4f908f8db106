"""The data manager's controls: the search box, the filters, the sort, and the status line.

An annotator gets only what the blind rules allow: no annotator, decile, disagreement or
ruling filter, and the key as the only order (the rank would leak the model's scores).
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QWidget,
)

from triage.project.datamgr import ADJUDICATION_STATES, KINDS, LABEL_STATES, SORTS, Query, Viewer

ANY = "any"
DISAGREE = "annotators disagree"


def _combo(parent: QWidget, name: str) -> QComboBox:
    combo = QComboBox(parent)
    combo.setAccessibleName(name)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    return combo


def _fill(combo: QComboBox, items: Sequence[str]) -> None:
    current = combo.currentText()
    combo.blockSignals(True)
    combo.clear()
    combo.addItems(list(items))
    combo.setCurrentIndex(max(0, combo.findText(current)))
    combo.blockSignals(False)


class FilterBar(QWidget):
    """Search words, filters and sort; ``changed`` on any edit; ``query()`` reads them."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.search = QLineEdit(self)
        self.search.setPlaceholderText("Search the text (every word; the last may be a prefix)")
        self.search.setAccessibleName("Search the text")
        self.search.setClearButtonEnabled(True)
        for button in self.search.findChildren(QToolButton):   # the clear button
            button.setAccessibleName("Clear the search")
        self.note = QLineEdit(self)
        self.note.setPlaceholderText("words of a note")
        self.note.setAccessibleName("Search the notes")
        self.label, self.annotator = _combo(self, "Label"), _combo(self, "Annotator")
        self.decile, self.kind = _combo(self, "Decile"), _combo(self, "Kind")
        self.state, self.sort = _combo(self, "Adjudication state"), _combo(self, "Sort by")
        self.descending = QCheckBox("descending", self)
        self.export = QPushButton("Export selection…", self)
        self.export.setToolTip("Write the selected rows with the columns of triage export")
        self.status = QLabel("", self)
        self.status.setTextFormat(Qt.TextFormat.PlainText)
        self.status.setAccessibleName("Data manager status")
        self.status.setWordWrap(True)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.search, 0, 0, 1, 6)
        grid.addWidget(self.note, 0, 6, 1, 2)
        self._labelled: list[tuple[QLabel, QWidget]] = []
        for col, (title, widget) in enumerate((
                ("Label", self.label), ("Annotator", self.annotator), ("Decile", self.decile),
                ("Kind", self.kind), ("State", self.state), ("Sort", self.sort))):
            caption = QLabel(title, self)
            caption.setBuddy(widget)
            grid.addWidget(caption, 1, col, alignment=Qt.AlignmentFlag.AlignBottom)
            grid.addWidget(widget, 2, col)
            self._labelled.append((caption, widget))
        grid.addWidget(self.descending, 2, 6)
        grid.addWidget(self.export, 2, 7)
        grid.addWidget(self.status, 3, 0, 1, 8)
        for line in (self.search, self.note):
            line.textChanged.connect(self.changed)
        for combo in (self.label, self.annotator, self.decile, self.kind, self.state, self.sort):
            combo.currentIndexChanged.connect(self.changed)
        self.descending.toggled.connect(self.changed)
        self.lead = True

    def configure(self, settings, viewer: Viewer) -> None:
        """The choices of this project's scheme, and what this viewer may filter by."""
        self.lead = viewer.lead
        _fill(self.label, [ANY, *LABEL_STATES, *(o.value for o in settings.labels)])
        _fill(self.kind, [ANY, *KINDS])
        _fill(self.decile, [ANY, *(str(d) for d in range(1, 11))])
        _fill(self.state, [ANY, DISAGREE, *ADJUDICATION_STATES])
        _fill(self.sort, list(SORTS) if viewer.lead else ["key"])
        if self.annotator.count() == 0:
            _fill(self.annotator, [ANY])
        for caption, widget in self._labelled:
            lead_only = widget in (self.annotator, self.decile, self.state)
            caption.setVisible(viewer.lead or not lead_only)
            widget.setVisible(viewer.lead or not lead_only)
        self.export.setVisible(viewer.lead)

    def set_annotators(self, names: Sequence[str]) -> None:
        """The annotators to filter by (the lead only)."""
        _fill(self.annotator, [ANY, *names])

    def query(self) -> Query:
        """The question these controls ask."""
        def pick(combo: QComboBox) -> str:
            text = combo.currentText()
            return "" if text == ANY else text

        state = pick(self.state) if self.lead else ""
        return Query(
            text=self.search.text().strip(), label=pick(self.label),
            annotator=pick(self.annotator) if self.lead else "",
            decile=int(pick(self.decile) or 0) if self.lead else 0, kind=pick(self.kind),
            disagreement=state == DISAGREE, note=self.note.text().strip(),
            adjudication=state if state in ADJUDICATION_STATES else "",
            sort=pick(self.sort) or "key", descending=self.descending.isChecked())
