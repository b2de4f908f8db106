"""The desk's buttons: one per label of the scheme, then skip, undo and note.

Every button sends the same :class:`triage.views.desk.KeyAction` its key would, so a click
and a key press are one path through the desk.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QPushButton

from triage.views.desk import KeyAction, button_caption


def desk_button(caption: str, slot: Callable[..., None]) -> QPushButton:
    """A desk button: Tab reaches it (keyboard users), a click never takes the focus."""
    button = QPushButton(caption)
    # A click that took the focus would keep the next key press from the desk.
    button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
    button.clicked.connect(slot)
    return button


class DeskButtons:
    """The label row (rebuilt when the scheme changes) and the tool row."""

    def __init__(self, act: Callable[[KeyAction], None]) -> None:
        self.act = act
        self.label_row = QHBoxLayout()
        self.tool_row = QHBoxLayout()
        self.labels: dict[str, QPushButton] = {}
        self.skip = desk_button("skip  [s]", lambda: act(KeyAction("skip")))
        self.undo = desk_button("undo  [u]", lambda: act(KeyAction("undo")))
        self.note = desk_button("note  [n]", lambda: act(KeyAction("note")))
        for button in (self.skip, self.undo, self.note):
            self.tool_row.addWidget(button)

    def rebuild(self, options: Sequence) -> None:
        """One button per label option (``triage.store.settings`` label options)."""
        while self.label_row.count():
            item = self.label_row.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.labels = {}
        for option in options:
            button = desk_button(button_caption(option),
                                 lambda _=False, v=option.value: self.act(KeyAction("label", v)))
            button.setMinimumHeight(44)
            self.label_row.addWidget(button)
            self.labels[option.value] = button

    def enable_decisions(self, enabled: bool) -> None:
        """Whether the label and skip buttons may be pressed (a candidate is on screen)."""
        for button in (*self.labels.values(), self.skip):
            button.setEnabled(enabled)
