"""The analysis views' colours, state roles and plain-text labels: no matplotlib here, so
the desk's advice banner loads without the charting library."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from triage.views.palette import (  # noqa: F401 - the chart colours, re-exported
    BLUE,
    GREEN,
    GREY,
    LIGHT,
    ORANGE,
    PURPLE,
    SKY,
    VERMILLION,
    YELLOW,
)
from ui.palette import ROLE_TEXT

# Background, border and text colour of a state ("role"); the word and symbol that go with
# each state are always shown too, so colour is never the only cue.
ROLE_COLOURS = {role: (bg, border, ROLE_TEXT[role][1]) for role, (bg, border) in {
    "go": (ROLE_TEXT["go"][0], GREEN), "stop": (ROLE_TEXT["stop"][0], VERMILLION),
    "pause": (ROLE_TEXT["pause"][0], ORANGE), "none": (ROLE_TEXT["none"][0], GREY),
}.items()}


def role_style(role: str) -> str:
    bg, border, fg = ROLE_COLOURS.get(role, ROLE_COLOURS["none"])
    return f"background:{bg}; border:1px solid {border}; border-radius:4px; color:{fg};"


def plain_label(text: str = "", *, wrap: bool = True, parent: QWidget | None = None) -> QLabel:
    """A QLabel that never interprets its text as rich text."""
    label = QLabel(parent)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(wrap)
    label.setText(text)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label
