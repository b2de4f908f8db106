"""The adjudication queue: candidates whose annotators disagree, and a button per label
to rule on the selected one. In a pool of pictures the selected candidate's picture shows
beside the table, small and fitted (or a placeholder that says why it cannot be shown)."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any, cast

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from triage.base.errors import TriageError
from triage.views.analysis import AdjudicationData, adjudication_data
from ui.analysis._text import plain_label
from ui.palette import CAPTION, ERROR
from ui.thumbnails import SmallPicture

RuleCallback = Callable[[int, str], Any]


# Combined once, not per cell: each "|" of two Qt flags goes through Python's enum machinery,
# and a table of a few hundred rows has thousands of cells.
READ_ONLY = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsEnabled
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def _item(text: str, *, align_right: bool = False) -> QTableWidgetItem:
    """A read-only plain-text cell (table items never interpret rich text)."""
    item = QTableWidgetItem(text)
    item.setFlags(READ_ONLY)
    if align_right:
        item.setTextAlignment(RIGHT)
    return item


class AdjudicationView(QWidget):
    """``show_items(disagreements(project), project.settings.labels)``; a ruling calls
    ``on_rule(candidate_id, value)`` (and emits ``ruled``); the host records it with
    ``adjudicate(project, session, candidate_id, value)`` and calls ``show_items`` again."""

    ruled = Signal(int, str)

    def __init__(self, parent: QWidget | None = None, *,
                 on_rule: RuleCallback | None = None,
                 on_undo: Callable[[], Any] | None = None,
                 project_of: Callable[[], Any] | None = None) -> None:
        super().__init__(parent)
        self.on_rule = on_rule
        self.on_undo = on_undo
        self._project_of = project_of or (lambda: None)   # for the selected one's picture
        self.picture = SmallPicture(self)
        self.curator = QLineEdit(self)
        self.curator.setMaxLength(80)
        self.curator.setPlaceholderText("your name: each ruling records who made it")
        self.curator.setAccessibleName("Curator name")
        self.undo_button = QPushButton("&Undo last ruling", self)
        self.undo_button.setToolTip("Take back your last ruling (Ctrl+Z in the table)")
        self.undo_button.clicked.connect(self.undo)
        self.data: AdjudicationData = adjudication_data([], [])
        self.summary = plain_label()
        self.table = QTableWidget(0, 0, self)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(True)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table
        self.table.setAccessibleName("Disagreements awaiting a ruling")
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        # Columns fit the first 100 rows, not all of them: measuring every row of a large
        # project's disagreements held the GUI thread (keys and votes are short and alike).
        self.table.horizontalHeader().setResizeContentsPrecision(100)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        # A label's key rules on the selected row (before the table's type-ahead search
        # would take the letter).
        self.table.installEventFilter(self)
        self._keys: dict[str, str] = {}
        self.hint = plain_label("Select a candidate, then press the label it should have "
                                "(or its key).")
        self.hint.setStyleSheet(f"color:{CAPTION};")
        self.message = plain_label()
        self.message.setStyleSheet(f"color:{ERROR};")
        self.message.hide()
        self.button_row = QHBoxLayout()
        self.button_row.addWidget(plain_label("Rule:", wrap=False))
        self.button_row.addStretch(1)
        self.buttons: dict[str, QPushButton] = {}
        self._lay_out()

    def _lay_out(self) -> None:
        who = QHBoxLayout()
        curator_label = QLabel("&Curator:", self)
        curator_label.setBuddy(self.curator)
        who.addWidget(curator_label)
        who.addWidget(self.curator, 1)
        who.addWidget(self.undo_button)
        layout = QVBoxLayout(self)
        layout.addLayout(who)
        layout.addWidget(self.summary)
        table_row = QHBoxLayout()
        table_row.addWidget(self.table, 1)
        table_row.addWidget(self.picture)
        layout.addLayout(table_row, 1)
        layout.addLayout(self.button_row)
        layout.addWidget(self.hint)
        layout.addWidget(self.message)

    # -- interface -----------------------------------------------------------------------
    def show_items(self, items: Iterable[Any], scheme: Iterable[Any]) -> None:
        """Show the disagreements (``triage.project.adjudication.Disagreement`` objects or dicts with
        the same fields) and one button per label of ``scheme`` (``LabelOption``s)."""
        keep = self.selected_candidate()
        keep_row = max(self.table.currentRow(), 0)
        self.data = adjudication_data(items, scheme)
        d = self.data
        self.summary.setText(d.summary)
        headers = ["Rank", "Key", "Text", *d.annotators, "Status"]
        # Sizing columns to their contents after every cell measures every row again for
        # each cell (quadratic in the rows), on the GUI thread: fill first, then size once.
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.table.setUpdatesEnabled(False)
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(headers)
        self.table.setRowCount(len(d.rows))
        for r, row in enumerate(d.rows):
            cells = [_item(str(row.rank), align_right=True), _item(row.key), _item(row.text),
                     *(_item(v or "–") for v in row.votes), _item(row.status)]
            # Tooltips render rich text when it looks like HTML: escape the untrusted text.
            cells[2].setToolTip(f"<p style='white-space:pre-wrap'>{html.escape(row.text)}</p>")
            for c, cell in enumerate(cells):
                self.table.setItem(r, c, cell)
        self.table.setUpdatesEnabled(True)
        for c in range(len(headers)):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self._make_buttons(d.labels)
        self.message.hide()
        # Keep the lead's place: the same candidate if still there, else the next row.
        ids = [row.candidate_id for row in d.rows]
        if ids:
            self.table.selectRow(ids.index(keep) if keep in ids else min(keep_row, len(ids) - 1))
        self._update_buttons()

    def selected_candidate(self) -> int | None:
        rows = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        if not rows or rows[0].row() >= len(self.data.rows):
            return None
        return self.data.rows[rows[0].row()].candidate_id

    def rule(self, value: str) -> bool:
        """Rule that the selected candidate is ``value``; False when nothing is selected."""
        candidate = self.selected_candidate()
        if candidate is None:
            return False
        try:
            if self.on_rule is not None:
                self.on_rule(candidate, value)
        except TriageError as error:
            self.message.setText(f"The ruling was not recorded: {error}")
            self.message.show()
            return False
        self.ruled.emit(candidate, value)
        return True

    def curator_name(self) -> str:
        return self.curator.text().strip()

    def undo(self) -> bool:
        """Take back the curator's last ruling through ``on_undo``; False if there was none."""
        try:
            candidate = self.on_undo() if self.on_undo is not None else None
        except TriageError as error:
            self.message.setText(f"Nothing was undone: {error}")
            self.message.show()
            return False
        if candidate is None:
            self.message.setText("No ruling of yours to undo.")
            self.message.show()
            return False
        return True

    def panel_data(self) -> dict:
        """What the table shows (for tests)."""
        return {
            "annotators": list(self.data.annotators),
            "rows": [{"candidate_id": r.candidate_id, "rank": r.rank, "key": r.key,
                      "text": r.text, "votes": list(r.votes), "status": r.status}
                     for r in self.data.rows],
            "labels": [v for v, _ in self.data.labels],
        }

    # -- internals -----------------------------------------------------------------------
    def _make_buttons(self, labels: tuple[tuple[str, str], ...]) -> None:
        if tuple(self.buttons) == tuple(v for v, _ in labels):
            return
        for button in self.buttons.values():
            self.button_row.removeWidget(button)
            button.deleteLater()
        self.buttons = {}
        self._keys = {key: value for value, key in labels}
        at = self.button_row.count() - 1  # before the stretch
        for value, key in labels:
            button = QPushButton(f"{value}   [{key}]", self)
            button.setToolTip(f"Rule that the selected candidate is {value!r} (key {key})")
            button.clicked.connect(lambda _=False, v=value: self.rule(v))
            self.button_row.insertWidget(at, button)
            at += 1
            self.buttons[value] = button

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.table and event.type() == QEvent.Type.KeyPress:
            key = cast(QKeyEvent, event)  # a KeyPress event is a QKeyEvent
            if (key.key() == Qt.Key.Key_Z
                    and key.modifiers() == Qt.KeyboardModifier.ControlModifier):
                self.undo()
                return True
            if (not key.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
                    and key.text() in self._keys):
                self.rule(self._keys[key.text()])
                return True
        return super().eventFilter(watched, event)

    def _update_buttons(self) -> None:
        candidate = self.selected_candidate()
        for button in self.buttons.values():
            button.setEnabled(candidate is not None)
        self._show_picture(candidate)

    def _show_picture(self, candidate: int | None) -> None:
        """The selected candidate's picture (hidden when the pool has none)."""
        from triage.views.gallery import picture_of

        project = self._project_of()
        if project is None:
            self.picture.show_picture(None)
        elif candidate is None:
            self.picture.clear()   # nothing selected: an empty box, if shown at all
        else:
            self.picture.show_picture(picture_of(project, candidate))
