"""Shared pieces of the analysis views' charts: drawn off the GUI thread with "Save chart…",
quiet axes (the colours are :mod:`triage.views.palette`, the labels :mod:`ui.analysis._text`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QWidget

from triage.views.palette import LIGHT
from ui.panels._base import ChartPanel

MARKERS = ("o", "s", "^", "D", "v", "P", "X")
FS = 9.0  # base font size of the charts, in points


def chart_text(text: str) -> str:
    """A user-given name as literal chart text: matplotlib would read "$...$" as maths."""
    return str(text).replace("$", r"\$")


def style_axes(ax, fs: float = FS) -> None:
    """No top/right spines, a light grid, chart-sized fonts."""
    ax.tick_params(labelsize=fs - 1, length=2.5, pad=2)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.grid(True, color=LIGHT, linewidth=0.6)
    ax.set_axisbelow(True)


class ChartCanvas(ChartPanel):
    """A chart drawn afresh by ``draw(figure, data)``: like the desk's panels, the Figure is
    built, drawn and laid out on the chart thread (ui/panels/_base.py) into an image that
    this widget only paints, so a large project never holds the GUI thread; "Save chart…"
    saves the Figure itself."""

    def __init__(self, title: str, figsize=(7.0, 4.0), parent: QWidget | None = None) -> None:
        super().__init__(parent, large=True)
        self.title = title
        self.figsize = figsize
        self.setMinimumSize(360, 240)
        self._payload: tuple[Callable[[Any, Any], None], Any] | None = None

    def show_chart(self, draw: Callable[[Any, Any], None], data: Any) -> None:
        """Draw ``draw(figure, data)`` on the chart thread; calls within 50 ms coalesce."""
        with self._state_lock:
            self._payload = (draw, data)
            self._state += 1
        if not self._timer.isActive():
            self._timer.start()

    def panel_data(self) -> dict:
        """The data handed to the chart, as plain values (tests)."""
        payload, _state = self._current()
        return {} if payload is None else payload[1].as_dict()

    # -- the ChartPanel hooks (chart thread, under the figure lock) ------------------------
    def _has_state(self) -> bool:
        return self._payload is not None

    def _current(self):
        with self._state_lock:
            return self._payload, self._state

    def _build(self) -> None:
        # Constrained layout as the Figure's own engine, run on every draw: the charts are
        # rebuilt from scratch each time, and a colour bar is placed for that engine.
        self.fig.set_layout_engine("constrained")

    def _layout(self, force: bool = False) -> None:
        """Nothing to do: the Figure lays itself out when drawn (see _build)."""

    def _draw(self, payload) -> None:
        draw, data = payload
        draw(self.fig, data)
