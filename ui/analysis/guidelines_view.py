"""The lead writes the labelling guidelines (Markdown) and the desk's highlight words.

Saving stores a new guideline version when the text changed; every label given afterwards
records that version, so the Agreement tab can compare agreement before and after.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from triage.base.errors import TriageError
from triage.views.reading import guidelines_caption, parse_words
from ui.analysis._text import plain_label
from ui.desk_drawer import markdown_browser, show_markdown
from ui.palette import CAPTION, ERROR

SaveCallback = Callable[[str, tuple[str, ...]], object]


class GuidelinesView(QWidget):
    """Editor, live preview, highlight words and Save; ``on_save(text, words)`` stores them."""

    def __init__(self, parent: QWidget | None = None, *,
                 on_save: SaveCallback | None = None) -> None:
        super().__init__(parent)
        self.on_save = on_save
        self.caption = plain_label()
        self.editor = QPlainTextEdit(self)
        self.editor.setAccessibleName("Guidelines text (Markdown)")
        self.editor.setPlaceholderText(
            "# Labelling guidelines\n\nWrite what counts as a positive, with examples of "
            "borderline cases. Markdown: # headings, *emphasis*, - lists.")
        self.editor.setTabChangesFocus(True)  # Tab leaves the editor
        self.preview = markdown_browser(self)
        self.preview.setAccessibleName("Guidelines preview")
        self.editor.textChanged.connect(self._preview)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.editor)
        split.addWidget(self.preview)
        split.setChildrenCollapsible(False)
        self.words = QLineEdit(self)
        self.words.setAccessibleName("Highlight words")
        self.words.setPlaceholderText("words to highlight on the desk, comma-separated")
        words_label = QLabel("&Highlight words:", self)
        words_label.setBuddy(self.words)
        self.save_button = QPushButton("&Save guidelines", self)
        self.save_button.clicked.connect(self.save)
        self.message = plain_label()
        self.message.setStyleSheet(f"color:{CAPTION};")
        row = QHBoxLayout()
        row.addWidget(words_label)
        row.addWidget(self.words, 1)
        row.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.caption)
        layout.addWidget(split, 1)
        layout.addLayout(row)
        layout.addWidget(self.message)
        self.version = 0
        self._saved: tuple[str, str] = ("", "")   # (text, words) as last loaded or saved

    def has_draft(self) -> bool:
        """Is there an edit (text or highlight words) that is not saved?"""
        return (self.editor.toPlainText(), self.words.text()) != self._saved

    def ask_about_draft(self) -> QMessageBox.StandardButton:
        """Save, Discard or Cancel for an unsaved draft (tests replace this)."""
        buttons = (QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                   | QMessageBox.StandardButton.Cancel)
        return QMessageBox.question(self, "Unsaved guidelines",
                                    "The guidelines have changes that are not saved.",
                                    buttons, QMessageBox.StandardButton.Save)

    def confirm_leave(self) -> bool:
        """May the window close? Asks about an unsaved draft; a draft is never just lost."""
        if not self.has_draft():
            return True
        answer = self.ask_about_draft()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()   # a failed save keeps the window and the draft
        if answer == QMessageBox.StandardButton.Discard:
            self.editor.setPlainText(self._saved[0])
            self.words.setText(self._saved[1])
            return True
        return False

    def show_guidelines(self, guidelines, words: tuple[str, ...]) -> None:
        """Load the guidelines in force (``Guidelines``) and the project's highlight words."""
        self.version = guidelines.version
        caption = guidelines_caption(guidelines.version, guidelines.author, guidelines.saved_at)
        self.caption.setText(caption.rstrip(".") + ". Each saved change gets the next version "
                             "number; every label records the version in force.")
        draft = self.has_draft()
        self._saved = (guidelines.text, ", ".join(words))
        if draft:
            return   # a refresh never overwrites what the lead is writing
        if self.editor.toPlainText() != guidelines.text:
            self.editor.setPlainText(guidelines.text)
        self.words.setText(self._saved[1])

    def save(self) -> bool:
        """Store the text and words through ``on_save``; the message says what happened."""
        if self.on_save is None:
            return False
        try:
            result = self.on_save(self.editor.toPlainText(), parse_words(self.words.text()))
        except TriageError as error:  # a bad text, or the file busy: say so, keep the text
            self.message.setStyleSheet(f"color:{ERROR};")
            self.message.setText(f"Not saved: {error}")
            return False
        self.message.setStyleSheet(f"color:{CAPTION};")
        self.message.setText(str(result))
        self._saved = (self.editor.toPlainText(), self.words.text())
        return True

    def _preview(self) -> None:
        show_markdown(self.preview, self.editor.toPlainText(), from_top=False)
