"""The candidate's text on the desk: plain, wrapping, scrollable, with optional highlights.

Candidate text is untrusted. It goes into a read-only ``QPlainTextEdit`` as plain text and
is never parsed as HTML; highlighted words are coloured by a ``QSyntaxHighlighter`` with
character formats, so nothing is built from the text but positions. Hidden characters
(direction overrides, zero-width, controls) are shown as ``⟨U+…⟩`` markers.

A huge text (a 1 MB line, 100,000 lines) is shown lazily: the first screens at once, the
rest a chunk at a time as the reader scrolls near the end, so the next candidate appears
as fast after a giant text as after a short one.
"""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextOption
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QWidget,
)

from triage.views.reading import highlight_spans
from triage.views.text import chunk_end, has_hidden, reveal
from ui.palette import HIGHLIGHT_BG, HIGHLIGHT_FG


def plain_label(object_name: str, *, wrap: bool = True) -> QLabel:
    """A QLabel that can never interpret its text as HTML (candidate text is untrusted)."""
    label = QLabel()
    label.setObjectName(object_name)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
    return label


def tinted_label(object_name: str, colour: str, *, centred: bool = False) -> QLabel:
    """A plain-text label in ``colour`` (the desk's secondary lines), centred or not."""
    label = plain_label(object_name)
    label.setStyleSheet(f"color: {colour};")
    if centred:
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    return label


def scrolling(label: QLabel) -> QScrollArea:
    """``label`` in a frameless scroll area that shows one line at least and scrolls the
    rest when space is short (the desk's fields under the text: the keys keep their place)."""
    area = QScrollArea()
    area.setObjectName(f"{label.objectName()}Area")
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(label)
    area.viewport().setAutoFillBackground(False)
    label.setAutoFillBackground(False)
    area.setStyleSheet("QScrollArea { background: transparent; }")
    area.setMinimumHeight(label.fontMetrics().lineSpacing() + 4)
    area.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
    return area


class KeywordHighlighter(QSyntaxHighlighter):
    """Marks the lead's keywords (whole words, any case) in the document it is attached to."""

    def __init__(self, document) -> None:
        super().__init__(document)
        self.words: tuple[str, ...] = ()
        self.mark = QTextCharFormat()   # not `format`: that is QSyntaxHighlighter's method
        self.mark.setBackground(QColor(HIGHLIGHT_BG))
        self.mark.setForeground(QColor(HIGHLIGHT_FG))
        self.mark.setFontWeight(QFont.Weight.Bold)

    def set_words(self, words: Iterable[str]) -> None:
        """Highlight these words from now on (an empty list turns highlighting off)."""
        words = tuple(words)
        if words != self.words:
            self.words = words
            self.rehighlight()

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        for start, length in highlight_spans(text, self.words):
            self.setFormat(start, length, self.mark)


class CandidateText(QPlainTextEdit):
    """Read-only, word-wrapped, scrollable plain text. ``text()`` as on a QLabel."""

    def __init__(self, parent: QWidget | None = None, *, object_name: str = "candidate") -> None:
        super().__init__(parent)
        self.setObjectName(object_name)
        self.setReadOnly(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        # The keys belong to the desk; the text scrolls with the wheel, the scroll bar and
        # the desk's Up/Down/Page keys, and can be selected with the mouse to copy.
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setAccessibleName("Candidate text")
        # Centred like a flash card; long texts wrap and scroll. The window's colour behind
        # it, so a short candidate does not sit in an empty white box.
        option = self.document().defaultTextOption()
        option.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.document().setDefaultTextOption(option)
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QPlainTextEdit { background: transparent; }")
        self.highlighter = KeywordHighlighter(self.document())
        self._raw = ""
        self._loaded = 0             # characters of _raw in the document (lazy display)
        self.has_hidden = False      # the text shown so far held hidden characters
        self.verticalScrollBar().valueChanged.connect(self._near_end)

    def setText(self, text: str) -> None:  # noqa: N802 - QLabel's name, for the callers
        """Show ``text`` as plain text (hidden characters as markers), scrolled to the top.

        Only the first chunk is looked at now (a 1 MB text costs what 16 KB cost); each
        later chunk is checked for hidden characters when scrolling brings it in.
        """
        self._raw = text
        self._loaded = chunk_end(text, 0) if text else 0
        first = text[: self._loaded]
        self.has_hidden = has_hidden(first)
        self.setPlainText(reveal(first))
        self.verticalScrollBar().setValue(0)
        self._near_end()

    def text(self) -> str:
        """The whole text as shown (markers included), loaded or not yet."""
        return reveal(self._raw)

    def _near_end(self, _value: int = 0) -> None:
        """Within two pages of the end: add the next chunk of a lazily shown text."""
        bar = self.verticalScrollBar()
        if self._loaded < len(self._raw) and \
                bar.value() >= bar.maximum() - 2 * max(1, bar.pageStep()):
            end = chunk_end(self._raw, self._loaded)
            chunk = self._raw[self._loaded:end]
            self._loaded = end
            self.has_hidden = self.has_hidden or has_hidden(chunk)
            cursor = self.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            cursor.insertText(reveal(chunk))

    def set_words(self, words: Iterable[str]) -> None:
        self.highlighter.set_words(words)

    def scroll_by(self, pages: float) -> None:
        """Scroll by a share of the visible height (1 = a page, 0.1 = a few lines)."""
        bar = self.verticalScrollBar()
        bar.setValue(bar.value() + int(round(pages * max(1, bar.pageStep()))))

    def highlighted_words(self) -> list[str]:
        """The highlighted stretches of the text as shown (tests, accessibility)."""
        text = self.text()
        return [text[s:s + n] for s, n in highlight_spans(text, self.highlighter.words)]
