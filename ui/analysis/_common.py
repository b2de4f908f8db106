"""Shared pieces of the analysis views: a chart canvas with "Save chart…", plain-text
labels, the colour-blind-safe palette and quiet axes."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

from ui.palette import ROLE_TEXT
from ui.save_chart import save_chart_dialog

# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
GREY, LIGHT = "#777777", "#E6E6E6"
MODEL_COLOURS = (BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
FS = 9.0  # base font size of the charts, in points

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


def chart_text(text: str) -> str:
    """A user-given name as literal chart text: matplotlib would read "$...$" as maths."""
    return str(text).replace("$", r"\$")


def model_colour(i: int) -> str:
    return MODEL_COLOURS[i % len(MODEL_COLOURS)]


def style_axes(ax, fs: float = FS) -> None:
    """No top/right spines, a light grid, chart-sized fonts."""
    ax.tick_params(labelsize=fs - 1, length=2.5, pad=2)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.grid(True, color=LIGHT, linewidth=0.6)
    ax.set_axisbelow(True)


def save_figure(figure: Figure, path: str | Path) -> Path:
    """Save ``figure`` as PNG or SVG, chosen by the extension."""
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in ("png", "svg"):
        raise ValueError(f"save a chart as .png or .svg, not {path.suffix or 'no extension'}")
    figure.savefig(path, format=fmt, dpi=150 if fmt == "png" else 100, facecolor="white")
    return path


class ChartCanvas(FigureCanvasQTAgg):
    """A constrained-layout Figure in a canvas with a "Save chart…" context action."""

    def __init__(self, title: str, figsize=(7.0, 4.0), parent: QWidget | None = None) -> None:
        self.figure = Figure(figsize=figsize, dpi=100, layout="constrained")
        super().__init__(self.figure)
        self.setParent(parent)
        self.title = title
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(360, 240)
        action = QAction("Save chart…", self)
        action.triggered.connect(self.save_dialog)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.addAction(action)

    def save_dialog(self) -> None:
        save_chart_dialog(self, self.title, lambda path: save_figure(self.figure, path))
