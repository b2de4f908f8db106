"""The shared machinery of a chart panel: a matplotlib Figure in a Qt canvas, coalesced
redraws, "Save chart…" and the data-for-tests hook.

Subclasses implement ``_prepare(snapshot, info)`` (Qt-free data from ``triage.views.panels``)
and ``_draw(data)`` (update the kept artists), and build their artists in ``_build()``.
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from triage.views.panels import LiveSnapshot, PanelInfo
from ui.save_chart import save_chart_dialog

# Okabe–Ito: distinguishable with the common colour-vision deficiencies.
BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY, YELLOW = (
    "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
GREY, LIGHT, HIGHLIGHT = "#666666", "#E6E6E6", "#FFF6D5"
MODEL_COLOURS = (ORANGE, GREEN, PURPLE, VERMILLION, SKY, "#000000")
REDRAW_MS = 50


class ChartPanel(QWidget):
    """Base for the live panels: ``show_state`` is cheap, drawing happens ≤ once per 50 ms."""

    title = "Chart"

    def __init__(self, parent: QWidget | None = None, *, large: bool = False) -> None:
        super().__init__(parent)
        self.large = large
        self.fs = 10.0 if large else 7.0  # base font size in points
        self.figure = Figure(figsize=(7.0, 4.4) if large else (3.6, 2.3), dpi=100)
        # Constrained layout costs about as much as drawing; run it only when the size or
        # the width of the axis labels changes, not on every redraw.
        self._engine = ConstrainedLayoutEngine(w_pad=0.02, h_pad=0.02, hspace=0.04,
                                               wspace=0.04)
        self._layout_key: tuple | None = None
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.mpl_connect("resize_event", lambda _e: self._layout(force=True))
        self.canvas.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.canvas)
        self.setMinimumSize(520, 320) if large else self.setMinimumSize(260, 110)
        self.save_action = QAction("Save chart…", self)
        self.save_action.triggered.connect(self.save_dialog)
        self.canvas.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.canvas.addAction(self.save_action)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        self._snap: LiveSnapshot | None = None
        self._info: PanelInfo | None = None
        self._data = None
        self._dirty = False
        self.redraws = 0  # how many times the figure was actually updated (tests, bench)
        self._build()

    # -- the interface -----------------------------------------------------------------
    def show_state(self, snapshot: LiveSnapshot, project_info: PanelInfo) -> None:
        """Remember the state and schedule one redraw; calls within 50 ms coalesce."""
        self._snap, self._info, self._dirty = snapshot, project_info, True
        if not self._timer.isActive():
            self._timer.start()

    def panel_data(self) -> dict:
        """Exactly what is (or on the pending redraw will be) drawn, as plain values."""
        data = self._current()
        return {} if data is None else data.as_dict()

    def flush(self) -> None:
        """Draw a pending state now (tests, saving, screenshots)."""
        self._timer.stop()
        self._redraw(force=True)

    def save_figure(self, path: str | Path) -> Path:
        """Save the chart as PNG or SVG, chosen by the file extension."""
        path = Path(path)
        fmt = path.suffix.lower().lstrip(".")
        if fmt not in ("png", "svg"):
            raise ValueError(f"save a chart as .png or .svg, not {path.suffix or 'no extension'}")
        self.flush()
        self._layout(force=True)
        self.figure.savefig(path, format=fmt, dpi=150 if fmt == "png" else 100,
                            facecolor="white")
        return path

    def save_dialog(self) -> None:
        """Ask where to save the chart (PNG or SVG)."""
        save_chart_dialog(self, self.title, self.save_figure)

    # -- internals ---------------------------------------------------------------------
    def _current(self):
        if self._dirty and self._snap is not None and self._info is not None:
            self._data = self._prepare(self._snap, self._info)
            self._dirty = False
            self._drawn = False
        return self._data

    def _redraw(self, force: bool = False) -> None:
        if not (force or self.isVisible()):
            return  # a hidden panel (closed lead view) costs nothing; showEvent catches up
        data = self._current()
        if data is None or getattr(self, "_drawn", False):
            return
        self._draw(data)
        self._layout()
        self._drawn = True
        self.redraws += 1
        self.canvas.draw_idle()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._data is not None or self._dirty:
            self._timer.start()

    def _layout(self, force: bool = False) -> None:
        """Re-run the layout when the canvas size or the axis-label widths changed."""
        w, h = self.figure.get_size_inches()
        key = (round(w, 3), round(h, 3), *(
            len(f"{v:,.0f}") for ax in self.figure.axes for v in (*ax.get_xlim(), *ax.get_ylim())))
        if force or key != self._layout_key:
            self._engine.execute(self.figure)
            self._layout_key = key

    def _build(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _prepare(self, snapshot: LiveSnapshot, info: PanelInfo):  # pragma: no cover
        raise NotImplementedError

    def _draw(self, data) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _style(self, ax) -> None:
        """Small, quiet axes: no top/right spines, light grid, panel-sized fonts."""
        ax.tick_params(labelsize=self.fs - 0.5, length=2.5, pad=2)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.grid(True, axis="y", color=LIGHT, linewidth=0.6)
        ax.set_axisbelow(True)
