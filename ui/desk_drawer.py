"""Below the desk: the project's guidelines and the annotator's history, in a collapsible pane.

The guidelines are the lead's Markdown, rendered with HTML switched off (``MarkdownNoHTML``)
and links inert. The history lists the annotator's last 50 decisions; selecting one shows
its candidate, and a label key (or button) changes it: a new event, undoable like any other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from triage.project.history import Decision
from triage.views.reading import HISTORY_TIME_HEADING, guidelines_caption, history_rows
from ui.candidate_text import CandidateText, plain_label
from ui.palette import SECONDARY
from ui.tables import table_rows
from ui.thumbnails import SmallPicture

HISTORY_COLUMNS = (HISTORY_TIME_HEADING, "Key", "Label", "Candidate", "Note")


def markdown_browser(parent: QWidget | None = None) -> QTextBrowser:
    """A read-only browser for lead-written Markdown: no HTML, no link following."""
    browser = QTextBrowser(parent)
    browser.setOpenLinks(False)
    browser.setOpenExternalLinks(False)
    return browser


def show_markdown(browser: QTextBrowser, text: str, *, from_top: bool = True) -> None:
    """Render ``text`` as Markdown with raw HTML disabled (it shows as literal text).

    ``from_top``: show its beginning. The browser's cursor is left at the end of new text,
    so a pane laid out narrow first (as at start-up) scrolled to the end and, once wide,
    opened the guidelines below their title."""
    browser.document().setMarkdown(text, QTextDocument.MarkdownFeature.MarkdownNoHTML)
    if from_top:
        browser.moveCursor(QTextCursor.MoveOperation.Start)
        browser.verticalScrollBar().setValue(0)


class GuidelinesPane(QWidget):
    """The guidelines in force, with their version."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.caption = plain_label("guidelinesCaption")
        self.caption.setStyleSheet(f"color: {SECONDARY};")
        self.browser = markdown_browser(self)
        self.browser.setAccessibleName("Labelling guidelines")
        self.version = 0
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.caption)
        layout.addWidget(self.browser, 1)

    def show_guidelines(self, guidelines) -> None:
        """Show a ``triage.project.guidelines.Guidelines``."""
        self.version = guidelines.version
        self.caption.setText(guidelines_caption(guidelines.version, guidelines.author,
                                                guidelines.saved_at))
        show_markdown(self.browser, guidelines.text)


class HistoryPane(QWidget):
    """The annotator's recent decisions; ``changeRequested(decision, value)`` to change one."""

    changeRequested = Signal(object, object)  # Decision, new value (None = skip)
    leave = Signal()                          # Esc: back to the desk

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.decisions: list[Decision] = []
        self.pictures: dict[int, Any] | None = None   # candidate id -> PictureOf (pictures)
        self._keys: dict[str, str] = {}
        self.table = QTableWidget(0, len(HISTORY_COLUMNS), self)
        self.table.setHorizontalHeaderLabels(HISTORY_COLUMNS)
        self.table.setAccessibleName("Your last decisions")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table
        self.table.verticalHeader().setVisible(False)
        # One line per decision (no wrap): rows as tall as a line of text plus a little.
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        for c in range(3):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._selected)
        self.table.installEventFilter(self)
        self.detail = CandidateText(self, object_name="historyText")
        self.detail.setAccessibleName("Text of the selected decision")
        self.detail.setMinimumHeight(50)
        self.button_row = QHBoxLayout()
        self._hint = plain_label("historyHint", wrap=False)
        self._hint.setText("Change to:")
        self.button_row.addWidget(self._hint)
        self.buttons: dict[str, QPushButton] = {}
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        # The text beside the list, not under it: under it, the list got a quarter of an
        # already short pane and showed one row of 50.
        lists = QHBoxLayout()
        self.detail.setMinimumWidth(150)
        lists.addWidget(self.table, 3)
        lists.addWidget(self.detail, 2)
        self.picture = SmallPicture(self, side=240)
        lists.addWidget(self.picture)
        layout.addLayout(lists, 1)
        layout.addLayout(self.button_row)

    def set_labels(self, options: Sequence) -> None:
        """One button per label of the scheme (``LabelOption``s); keys work in the table."""
        for button in self.buttons.values():
            self.button_row.removeWidget(button)
            button.deleteLater()
        self.buttons = {}
        self._keys = {}
        for option in options:
            button = QPushButton(f"{option.value}  [{option.key}]", self)
            button.setAccessibleName(f"Change the selected decision to {option.value}")
            button.clicked.connect(lambda _=False, v=option.value: self.change(v))
            self.button_row.addWidget(button)
            self.buttons[option.value] = button
            self._keys[option.key.lower()] = self._keys[option.key] = option.value
        self._selected()

    def show_decisions(self, decisions: Sequence[Decision],
                       pictures: dict[int, Any] | None = None) -> None:
        """Fill the list (newest first), keeping the selected decision's candidate;
        ``pictures``: their ``triage.views.gallery.PictureOf`` by candidate (None: text)."""
        keep = self.selected()
        self.decisions = list(decisions)
        self.pictures = pictures
        rows = history_rows(self.decisions)
        self.table.setRowCount(len(rows))
        for r, (row, decision) in enumerate(zip(rows, self.decisions)):
            cells = (row.when, row.key, row.value, row.text, decision.note or "")
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))  # plain-text items
        ids = [d.candidate_id for d in self.decisions]
        if keep is not None and keep.candidate_id in ids:
            self.table.selectRow(ids.index(keep.candidate_id))
        self._selected()

    def selected(self) -> Decision | None:
        rows = self.table.selectionModel().selectedRows()
        if not rows or rows[0].row() >= len(self.decisions):
            return None
        return self.decisions[rows[0].row()]

    def change(self, value: str | None) -> bool:
        """Ask to change the selected decision to ``value``; False when none is selected."""
        decision = self.selected()
        if decision is None or decision.value == value:
            return False
        self.changeRequested.emit(decision, value)
        return True

    def rows_shown(self) -> list[list[str]]:
        """The table as shown (tests)."""
        return table_rows(self.table)

    def _selected(self) -> None:
        decision = self.selected()
        note = f"\n\nYour note: {decision.note}" if decision and decision.note else ""
        self.detail.setText(decision.text + note if decision
                            else "Select a decision to see it here.")
        if self.pictures is None:
            self.picture.show_picture(None)
        elif decision is None:
            self.picture.clear()
        else:
            self.picture.show_picture(self.pictures.get(decision.candidate_id))
        for value, button in self.buttons.items():
            button.setEnabled(decision is not None and decision.value != value)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.table and event.type() == QEvent.Type.KeyPress:
            key = cast(QKeyEvent, event)  # a KeyPress event is a QKeyEvent
            if key.key() == Qt.Key.Key_Escape:
                self.leave.emit()
                return True
            if (not key.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
                    and key.text() in self._keys):
                self.change(self._keys[key.text()])
                return True
        return super().eventFilter(watched, event)


class DeskDrawer(QTabWidget):
    """Guidelines and History, as tabs under the desk."""

    def __init__(self, parent: QWidget | None = None,
                 on_show: Callable[[], None] | None = None) -> None:
        super().__init__(parent)
        self.guidelines = GuidelinesPane(self)
        self.history = HistoryPane(self)
        self.addTab(self.guidelines, "Guidelines")
        self.addTab(self.history, "History")
        self.tabBar().setAccessibleName("Guidelines and history")
        self.setAccessibleName("Guidelines and history")
        self.setMinimumHeight(80)  # small screens: the desk keeps its room
        self._on_show = on_show
        self.currentChanged.connect(lambda _i: self._on_show and self._on_show())
