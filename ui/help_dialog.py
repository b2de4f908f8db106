"""F1: the project's guidelines and a keyboard sheet made from the real key bindings."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QDialog, QPlainTextEdit, QTabWidget, QVBoxLayout, QWidget

from triage.views.reading import desk_shortcuts, guidelines_caption, shortcut_sheet
from ui.candidate_text import plain_label
from ui.desk_drawer import markdown_browser, show_markdown
from ui.window_state import size_window

DESK_EXTRA = (("Up / Down", "scroll a long candidate text"),
              ("Page Up / Page Down", "scroll a long candidate text by a page"),
              ("Esc", "leave the history list (back to the desk)"))


def key_text(sequence: QKeySequence) -> str:
    return sequence.toString(QKeySequence.SequenceFormat.NativeText)


def action_shortcuts(widget: QWidget) -> list[tuple[str, str]]:
    """(keys, what) for every action and shortcut with a key binding in ``widget``."""
    rows = []
    for action in widget.findChildren(QAction):
        keys = [key_text(k) for k in action.shortcuts() if not k.isEmpty()]
        if keys and action.text():
            rows.append((" or ".join(keys), action.text().replace("&", "").rstrip("…")))
    for shortcut in widget.findChildren(QShortcut):
        if not shortcut.key().isEmpty() and shortcut.whatsThis():
            rows.append((key_text(shortcut.key()), shortcut.whatsThis()))
    return sorted(set(rows), key=lambda r: r[1].lower())


def sheet_for(window: QWidget | None, settings) -> str:
    """The plain-text shortcut sheet: the desk's keys, the menus' and the lead window's."""
    from ui.lead_window import LEAD_KEYS

    desk = (desk_shortcuts(settings) if settings is not None else []) + list(DESK_EXTRA)
    menus = action_shortcuts(window) if window is not None else []
    return shortcut_sheet([("At the desk", desk), ("Menus (any time)", menus),
                           ("Lead window", list(LEAD_KEYS))])


class HelpDialog(QDialog):
    """Two tabs: Guidelines (rendered Markdown, no HTML) and Keyboard (plain text)."""

    def __init__(self, parent: QWidget | None, guidelines, settings) -> None:
        super().__init__(parent)
        self.setWindowTitle("Triage — help")
        self.tabs = QTabWidget(self)
        self.tabs.tabBar().setAccessibleName("Help sections")
        page = QWidget(self)
        box = QVBoxLayout(page)
        version = guidelines.version if guidelines else 0
        self.caption = plain_label("helpGuidelinesCaption")
        self.caption.setText(guidelines_caption(version, getattr(guidelines, "author", None),
                                                getattr(guidelines, "saved_at", None)))
        self.guidelines = markdown_browser(page)
        self.guidelines.setAccessibleName("Labelling guidelines")
        show_markdown(self.guidelines, guidelines.text if guidelines else "")
        box.addWidget(self.caption)
        box.addWidget(self.guidelines, 1)
        self.sheet = QPlainTextEdit(self)
        self.sheet.setReadOnly(True)
        self.sheet.setAccessibleName("Keyboard shortcuts")
        text = sheet_for(parent, settings)
        self.sheet.setPlainText(text)
        # The descriptions start at one tab stop, past the widest key in this font.
        metrics = self.sheet.fontMetrics()
        keys = [line.split("\t")[0] for line in text.splitlines() if "\t" in line]
        widest = max((metrics.horizontalAdvance(k) for k in keys), default=0)
        self.sheet.setTabStopDistance(widest + 3 * metrics.horizontalAdvance(" "))
        self.tabs.addTab(page, "Guidelines")
        self.tabs.addTab(self.sheet, "Keyboard")
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        size_window(self, QSize(640, 520))   # less on a small or scaled-up screen
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, False)
