"""Shared pieces of the analysis views: a chart canvas with "Save chart…", plain-text
labels, the colour-blind-safe palette and quiet axes."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QSizePolicy, QWidget

from ui.analysis._text import (  # noqa: F401 - the colours and labels, re-exported
    BLUE,
    GREEN,
    GREY,
    LIGHT,
    MODEL_COLOURS,
    ORANGE,
    PURPLE,
    ROLE_COLOURS,
    SKY,
    VERMILLION,
    YELLOW,
    plain_label,
    role_style,
)
from ui.save_chart import save_chart_dialog

MARKERS = ("o", "s", "^", "D", "v", "P", "X")
FS = 9.0  # base font size of the charts, in points


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
