"""The shared machinery of a chart panel: a matplotlib Figure drawn off the GUI thread into
an image, coalesced redraws, "Save chart…" and the data-for-tests hook.

Subclasses implement ``_prepare(snapshot, info)`` (Qt-free data from ``triage.views.panels``)
and ``_draw(data)`` (update the kept artists), and build their artists in ``_build()``.

Drawing a chart (and, the first time, importing matplotlib) is long Python work, so none
of it happens on the GUI thread: ``show_state`` only remembers the state,
and a :class:`RenderJob` on the one chart thread (the ``CHARTS`` lane of :mod:`ui.jobs`)
builds the Figure on first use, prepares the view data, updates the artists, lays them out and renders them with
the Agg backend into an RGBA buffer; the widget only paints the finished ``QImage``. A
Figure is touched by one thread at a time (``_figure_lock``); a redraw asked for while one
runs is remembered, and exactly one more runs after it.
"""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QColor, QImage, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget

from triage.base import startup
from triage.views.formatting import format_count
from triage.views.palette import LIGHT
from triage.views.panels import LiveSnapshot, PanelInfo
from ui.jobs import CHARTS, run_kept
from ui.panels.chart_text import DPI, MIN_FIG_PT, chart_text_problems, readable
from ui.save_chart import save_chart_dialog

if TYPE_CHECKING:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.layout_engine import ConstrainedLayoutEngine

REDRAW_MS = 50



# While the desk answers a key, a chart render on the chart thread takes turns with it for
# the interpreter lock (matplotlib's text and path drawing hold it for whole C calls), which
# delays the next candidate. After a change the desk holds renders not yet begun for a
# moment (hold_renders), so they draw once the next candidate is on the screen.
_RENDERS_OPEN = threading.Event()
_RENDERS_OPEN.set()
_LONGEST_HOLD_S = 1.0      # a render never waits longer than this, whatever happens
_REOPEN: QTimer | None = None


def hold_renders(ms: int) -> None:
    """Chart renders not yet begun wait ``ms`` milliseconds (call on the GUI thread)."""
    global _REOPEN
    if _REOPEN is None:
        _REOPEN = QTimer()
        _REOPEN.setSingleShot(True)
        _REOPEN.timeout.connect(_RENDERS_OPEN.set)
    _RENDERS_OPEN.clear()
    _REOPEN.start(ms)


_FROZE = False


def _freeze_matplotlib() -> None:
    """Once matplotlib has loaded (a few hundred thousand objects that stay), keep those out
    of later garbage collections, as the desk's start-up did (ui.app): a full collection
    walking them would hold the interpreter lock, and the GUI thread, for tens of ms."""
    global _FROZE
    if not _FROZE:
        _FROZE = True
        startup.freeze_survivors()


class _RenderSignals(QObject):
    done = Signal(object, object)  # (QImage or None, the render's key)


class RenderJob:
    """Draws one panel's figure into a QImage on the chart thread and hands it back."""

    def __init__(self, panel: ChartPanel, size: tuple[int, int, float]) -> None:
        self.panel, self.size = panel, size
        self.signals = _RenderSignals()

    def run(self) -> None:
        _RENDERS_OPEN.wait(_LONGEST_HOLD_S)
        try:
            image, key = self.panel._render(self.size)
        except Exception:  # noqa: BLE001 - report back so the panel can draw again
            import traceback

            traceback.print_exc()
            image, key = None, None
        with contextlib.suppress(RuntimeError):  # the panel was closed meanwhile
            self.signals.done.emit(image, key)


class ChartPanel(QWidget):
    """Base for the live panels: ``show_state`` is cheap, drawing happens off the GUI thread,
    at most one draw per panel at a time and ≤ once per 50 ms."""

    title = "Chart"

    def __init__(self, parent: QWidget | None = None, *, large: bool = False) -> None:
        super().__init__(parent)
        self.large = large
        # Base font size in points of the figure: 9 pt on screen at least (the figure has
        # DPI dots per logical inch, the screen 96), so text stays readable at any scale.
        self.fs = 10.0 if large else 8.7
        self.figsize = (7.0, 4.4) if large else (3.6, 2.3)
        self.figure: Figure | None = None  # built on the chart thread on first use (see fig)
        self._figure_lock = threading.RLock()  # held while anyone touches the figure
        self._state_lock = threading.Lock()    # guards the state below (never held long)
        self._engine: ConstrainedLayoutEngine | None = None
        self._canvas: FigureCanvasAgg | None = None
        # Constrained layout costs about as much as drawing; run it only when the size or
        # the width of the axis labels changes, not on every redraw.
        self._layout_key: tuple | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)
        self.setMinimumSize(520, 320) if large else self.setMinimumSize(260, 110)
        self.save_action = QAction("Save chart…", self)
        self.save_action.triggered.connect(self.save_dialog)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self.addAction(self.save_action)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REDRAW_MS)
        self._timer.timeout.connect(self._redraw)
        self._snap: LiveSnapshot | None = None
        self._info: PanelInfo | None = None
        self._state = 0           # bumped by every new state (show_state, show_estimate)
        self._data, self._data_state = None, -1
        self._drawn_state = -1    # the state the figure's artists show
        self._image: QImage | None = None
        self._image_key: tuple | None = None  # (state, width, height, ratio) of _image
        self._job: RenderJob | None = None
        self._again = False
        self.redraws = 0  # how many times the figure was actually updated (tests, bench)
        self.renders = 0  # images produced (any thread)
        self.render_threads: set[str] = set()  # names of the threads that drew (tests)

    # -- the interface -----------------------------------------------------------------
    def show_state(self, snapshot: LiveSnapshot, project_info: PanelInfo) -> None:
        """Remember the state and schedule one redraw; calls within 50 ms coalesce."""
        with self._state_lock:
            self._snap, self._info = snapshot, project_info
            self._state += 1
        if not self._timer.isActive():
            self._timer.start()

    def panel_data(self) -> dict:
        """Exactly what is (or on the pending redraw will be) drawn, as plain values."""
        data, _state = self._current()
        return {} if data is None else data.as_dict()

    def flush(self) -> None:
        """Draw a pending state now, on this thread (tests, saving, screenshots)."""
        self._timer.stop()
        image, key = self._render(self._target_size())
        self._take(image, key)

    def save_figure(self, path: str | Path) -> Path:
        """Save the chart as PNG or SVG, chosen by the file extension."""
        path = Path(path)
        fmt = path.suffix.lower().lstrip(".")
        if fmt not in ("png", "svg"):
            raise ValueError(f"save a chart as .png or .svg, not {path.suffix or 'no extension'}")
        self.flush()
        with self._figure_lock:
            figure = self.fig
            self._layout(force=True)
            figure.savefig(path, format=fmt, dpi=150 if fmt == "png" else 100,
                                facecolor="white")
        return path

    def save_dialog(self) -> None:
        """Ask where to save the chart (PNG or SVG)."""
        save_chart_dialog(self, self.title, self.save_figure)

    def text_problems(self) -> list[str]:
        """What is wrong with the chart's text as last drawn: text under 9 pt on screen,
        text running off the figure, two texts over each other, an axis with no ticks."""
        with self._figure_lock:
            if self.figure is None:
                return []
            return chart_text_problems(self.figure, self.title)

    def drawing(self) -> bool:
        """Is a draw of this panel under way on the chart thread?"""
        return self._job is not None

    # -- drawing (any thread, under the figure lock) -------------------------------------
    @property
    def fig(self) -> Figure:
        """The figure, built on first use (drawing code only, under the figure lock)."""
        if self.figure is None:
            self._build_figure()
        assert self.figure is not None
        return self.figure

    def _build_figure(self) -> None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
        from matplotlib.layout_engine import ConstrainedLayoutEngine

        figure = Figure(figsize=self.figsize, dpi=DPI)
        self._canvas = FigureCanvasAgg(figure)
        self._engine = ConstrainedLayoutEngine(w_pad=0.02, h_pad=0.02, hspace=0.04,
                                               wspace=0.04)
        self.figure = figure
        self._build()
        _freeze_matplotlib()

    def _current(self):
        """(view data, state it was prepared from), prepared now if the state moved on."""
        with self._state_lock:
            snap, info, state = self._snap, self._info, self._state
            if self._data_state == state or snap is None or info is None:
                return self._data, self._data_state
        data = self._prepare(snap, info)
        with self._state_lock:
            if state >= self._data_state:
                self._data, self._data_state = data, state
        return data, state

    def _render(self, size: tuple[int, int, float]) -> tuple[QImage | None, tuple | None]:
        """Update the artists to the current state and render them at ``size``."""
        width, height, ratio = size
        with self._figure_lock:
            data, state = self._current()
            if data is None:
                return None, None
            figure = self.fig
            if figure.dpi != DPI * ratio:
                figure.set_dpi(DPI * ratio)
            w_in, h_in = width / DPI, height / DPI
            if tuple(figure.get_size_inches()) != (w_in, h_in):
                figure.set_size_inches(w_in, h_in, forward=False)
                self._layout_key = None
            new = state != self._drawn_state
            if new:
                self._draw(data)
                readable(figure)
            self._layout()
            self._after_layout()
            canvas = self._canvas
            assert canvas is not None  # made with the figure
            canvas.draw()
            self._drawn_state = state
            buffer = canvas.buffer_rgba()
            rows, cols = buffer.shape[:2]
            image = QImage(bytes(buffer), cols, rows, cols * 4,
                           QImage.Format.Format_RGBA8888).copy()
            image.setDevicePixelRatio(ratio)
            self.renders += 1
            self.render_threads.add(threading.current_thread().name)
        return image, (state, width, height, ratio, new)

    def _layout(self, force: bool = False) -> None:
        """Re-run the layout when the canvas size or the axis-label widths changed."""
        figure = self.fig
        w, h = figure.get_size_inches()
        key = (round(w, 3), round(h, 3), figure.dpi, *(
            len(format_count(v)) for ax in figure.axes for v in (*ax.get_xlim(), *ax.get_ylim())))
        if force or key != self._layout_key:
            assert self._engine is not None  # made with the figure
            self._engine.execute(figure)
            self._layout_key = key

    # -- scheduling (GUI thread) ---------------------------------------------------------
    def _target_size(self) -> tuple[int, int, float]:
        ratio = float(self.devicePixelRatioF()) or 1.0
        return (max(self.width(), self.minimumWidth()),
                max(self.height(), self.minimumHeight()), ratio)

    def _has_state(self) -> bool:
        """Is there anything to draw? (A subclass that keeps its state elsewhere says.)"""
        return self._snap is not None

    def _up_to_date(self) -> bool:
        key = self._image_key
        return key is not None and key[:4] == (self._state, *self._target_size())

    def _redraw(self) -> None:
        if not self.isVisible():
            return  # a hidden panel (closed lead view) costs nothing; showEvent catches up
        if self._job is not None:
            self._again = True  # exactly one more draw after the one under way
            return
        if self._up_to_date() or not self._has_state():
            return
        job = RenderJob(self, self._target_size())
        job.signals.done.connect(self._job_done)
        self._job = job
        run_kept(CHARTS, job)   # the one chart lane: matplotlib shares caches

    def _job_done(self, image: QImage | None, key: tuple | None) -> None:
        self._job = None
        self._take(image, key)
        if self._again:
            self._again = False
            self._redraw()

    def _take(self, image: QImage | None, key: tuple | None) -> None:
        """Show a finished image unless a newer one is already shown."""
        if image is None or key is None:
            return
        if key[-1]:
            self.redraws += 1
        if self._image_key is not None and key[0] < self._image_key[0]:
            return
        self._image, self._image_key = image, key[:4]
        self.update()

    # -- Qt overrides ----------------------------------------------------------------------
    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("white"))
        if self._image is not None and self._image_key is not None \
                and self._image_key[1:3] == (self.width(), self.height()):
            # Drawn for this size: pixel for pixel, never resampled (at 125 % a stretch by
            # a fraction of a pixel blurred the whole chart).
            painter.drawImage(QPointF(0, 0), self._image)
        elif self._image is not None:
            # While a resize is being redrawn the last image stretches to fit.
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            painter.drawImage(QRectF(self.rect()), self._image)
        painter.end()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        if self._has_state() and not self._timer.isActive():
            self._timer.start()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._has_state():
            self._timer.start()

    def _after_layout(self) -> None:
        """Fit what depends on the laid-out size (a subclass's hook; every render)."""

    def _build(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _prepare(self, snapshot: LiveSnapshot, info: PanelInfo):  # pragma: no cover
        raise NotImplementedError

    def _draw(self, data) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _style(self, ax) -> None:
        """Small, quiet axes: no top/right spines, light grid, panel-sized fonts."""
        ax.tick_params(labelsize=max(MIN_FIG_PT, self.fs - 0.5), length=2.5, pad=2)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        ax.grid(True, axis="y", color=LIGHT, linewidth=0.6)
        ax.set_axisbelow(True)

