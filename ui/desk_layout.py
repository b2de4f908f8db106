"""The desk's layout on a small window: panes stacked into tabs instead of squeezed.

Wide enough, the desk shows the candidate beside the three charts (a splitter each), with
the guidelines and history under the candidate. Below :data:`COMPACT_HEIGHT` or
:data:`COMPACT_WIDTH` logical pixels (a laptop at 150 %, a small window), the charts and the
guidelines/history pane go into one tab widget beside the candidate, one at a time at full
height, and the advice banner keeps to one line (its reasons in the tooltip and the lead
window's Advice tab). Growing the window puts everything back where it was.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QSize, Qt, QTimer
from PySide6.QtWidgets import QSplitter, QTabWidget, QVBoxLayout, QWidget

from ui.window_state import FitScroll, available_rect, keep_on_screen

COMPACT_HEIGHT = 520   # logical px of the window's content: below, the panes stack
COMPACT_WIDTH = 640
NARROW_SCREEN = 720    # logical px: on a narrower screen the tabs go under the candidate
WIDE_BANNER_EXTRA_LINES = 2   # the banner's headline wraps to up to three lines when wide
TAB_NAMES = {"Cumulative gain": "Gain", "Marginal-decile yield": "Yield"}  # short: no scrolling


def is_compact(width: int, height: int) -> bool:
    """Is a window content of this logical size too small for the side-by-side panes?"""
    return height < COMPACT_HEIGHT or width < COMPACT_WIDTH


class DeskColumn(QWidget):
    """The banner over the desk. Never smaller than its content needs at the width it has
    (the banner's wrapped lines, the text's least height, every key button): a splitter
    gives the other pane less, or the window stacks its panes, but the keys are never
    scrolled, clipped or squeezed out of sight. The candidate's text scrolls instead."""

    def __init__(self, banner: QWidget, desk: QWidget) -> None:
        super().__init__()
        self.setObjectName("deskColumn")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(banner)
        layout.addWidget(desk, 1)

    def needed_height(self, width: int | None = None) -> int:
        """The least height the banner and the desk need at ``width`` (now: its own)."""
        layout = self.layout()
        assert layout is not None  # made in __init__
        width = self.width() if width is None else width
        need = layout.totalMinimumSize().height()
        if layout.hasHeightForWidth():
            need = max(need, layout.totalMinimumHeightForWidth(width))
        return need

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        hint = super().minimumSizeHint()
        return QSize(hint.width(), max(hint.height(), self.needed_height()))

    def event(self, event) -> bool:
        # A wider or narrower column wraps the banner to other lines: a new minimum.
        if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            need = self.needed_height()
            if need != self.minimumHeight():
                self.setMinimumHeight(need)
        return super().event(event)


def build_panes(banner: QWidget, desk: QWidget,
                drawer: QWidget) -> tuple[QSplitter, QSplitter, QSplitter]:
    """The wide layout: (split, desk_split, panel_split). The banner over the desk, the
    drawer under them; the chart panels (added later) in panel_split beside them."""
    desk_side = QSplitter(Qt.Orientation.Vertical)
    desk_side.addWidget(DeskColumn(banner, desk))
    desk_side.addWidget(drawer)
    desk_side.setChildrenCollapsible(False)
    desk_side.setStretchFactor(0, 2)   # the history shows several rows by default
    desk_side.setStretchFactor(1, 1)
    panel_split = QSplitter(Qt.Orientation.Vertical)
    panel_split.setMinimumWidth(420)
    split = QSplitter(Qt.Orientation.Horizontal)
    split.addWidget(desk_side)
    split.addWidget(panel_split)
    split.setStretchFactor(0, 3)
    split.setStretchFactor(1, 2)
    return split, desk_side, panel_split


class CompactLayout(QObject):
    """Watches the window's size and moves the chart panels and the drawer between their
    splitters (wide) and one tab widget (compact). ``on_change(compact)`` after a move."""

    def __init__(self, window: QWidget, split: QSplitter, panel_split: QSplitter,
                 desk_split: QSplitter, drawer: QWidget,
                 on_change: Callable[[bool], None] = lambda _c: None) -> None:
        super().__init__(window)
        self.window, self.split, self.panel_split = window, split, panel_split
        self.desk_split, self.drawer, self.on_change = desk_split, drawer, on_change
        self.compact = False
        self.tabs = QTabWidget()
        self.tabs.setObjectName("compactTabs")
        self.tabs.setAccessibleName("Charts, guidelines and history")
        self.tabs.hide()
        # The tabs scroll (under the candidate on a narrow screen), never the desk's keys.
        self.tabs_area = FitScroll(self.tabs)
        self.tabs_area.hide()
        self._moved: list[QWidget] = []
        self._moving = False   # the drawer shown by a move, not by the user
        window.installEventFilter(self)
        panel_split.installEventFilter(self)
        drawer.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if watched is self.window and kind == QEvent.Type.Resize:
            QTimer.singleShot(0, self.update)
        elif watched is self.panel_split and kind == QEvent.Type.ChildAdded and self.compact:
            QTimer.singleShot(0, self._take_panels)   # panels created after the switch
        elif (watched is self.drawer and kind == QEvent.Type.ShowToParent and self.compact
              and not self._moving):
            # "Show the history" (Ctrl+H) while stacked: bring its tab to the front.
            QTimer.singleShot(0, lambda: self.tabs.setCurrentWidget(self.drawer))
        return False

    def update(self) -> None:
        """Switch to the layout the window's current size wants."""
        central = self.split
        want = is_compact(central.width(), central.height()) or self._squeezed()
        if want != self.compact:
            self.set_compact(want)

    def _squeezed(self) -> bool:
        """Would the desk (every key whole) and the drawer under it not fit side by side?
        Measured as the wide layout would need it: the banner's headline may wrap there."""
        column = self.desk_split.widget(0)
        if not isinstance(column, DeskColumn):
            return False
        need = column.needed_height()
        if self.compact:   # the banner keeps to one line now; wide, it wraps
            need += WIDE_BANNER_EXTRA_LINES * column.fontMetrics().lineSpacing()
        if not self.drawer.isHidden() or self.compact and self.drawer in self._moved:
            need += self.drawer.minimumSizeHint().height() + self.desk_split.handleWidth()
        return self.split.height() < need

    def set_compact(self, compact: bool) -> None:
        """Stack the panes into tabs (True) or put them back side by side (False)."""
        if compact == self.compact:
            return
        self.compact, self._moving = compact, True
        try:
            self._move(compact)
        finally:
            self._moving = False
        self.on_change(compact)
        QTimer.singleShot(0, lambda: keep_on_screen(self.window))  # its minimum changed

    def _move(self, compact: bool) -> None:
        narrow = compact and available_rect(self.window).width() < NARROW_SCREEN
        self.split.setOrientation(Qt.Orientation.Vertical if narrow
                                  else Qt.Orientation.Horizontal)
        if compact:
            self.split.replaceWidget(self.split.indexOf(self.panel_split), self.tabs_area)
            self.tabs_area.show()
            self.tabs.show()
            self._take_panels()
            if not self.drawer.isHidden():   # not closed by the user (View menu)
                self.tabs.addTab(self.drawer, "Guidelines")
                self._moved.append(self.drawer)
            self.tabs.setCurrentIndex(0)   # the tab widget shows one page: the gain chart
        else:
            for widget in self._moved:
                self.tabs.removeTab(self.tabs.indexOf(widget))
                if widget is self.drawer:
                    self.desk_split.addWidget(widget)
                else:
                    self.panel_split.addWidget(widget)
                widget.show()
            self._moved = []
            self.split.replaceWidget(self.split.indexOf(self.tabs_area), self.panel_split)
            self.panel_split.show()
            self.tabs_area.hide()

    def _take_panels(self) -> None:
        """Move the chart panels from their splitter into the tabs (before the drawer)."""
        if not self.compact:
            return
        for i in range(self.panel_split.count() - 1, -1, -1):
            panel = self.panel_split.widget(i)
            if panel is None:
                continue
            title = str(getattr(panel, "title", "Chart"))
            self.tabs.insertTab(0, panel, TAB_NAMES.get(title, title))
            self.tabs.setTabToolTip(0, title)
            self._moved.insert(0, panel)
        self.tabs.setCurrentIndex(0)
