"""Window state that survives: size, position and splitters, restored only when they fit.

A saved state is a hint, not an order. It is checked against the screen the window is
about to appear on (a laptop unplugged from its monitor, a display scaled to 150 %), and a
splitter never comes back with a pane squeezed to nothing.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QEvent, QObject, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFrame, QLayout, QScrollArea, QSplitter, QVBoxLayout, QWidget

SCREEN_SHARE = 0.92   # a new window takes at most this share of the available screen
MIN_PANE = 120        # a restored splitter pane is at least this many pixels
DIALOG_MARGIN = 12    # px round a dialog's body (its layout's margins and spacing)
SCROLL_BAR = 20       # px: room for a vertical scroll bar beside a dialog's body


def available_rect(widget: QWidget | None = None) -> QRect:
    """The usable area (without task bars) of the widget's screen, else the primary one."""
    screen = widget.screen() if widget is not None else None
    screen = screen or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1366, 768)


def fitting_size(preferred: QSize, area: QRect, share: float = SCREEN_SHARE) -> QSize:
    """``preferred``, shrunk to ``share`` of ``area`` where it would not fit."""
    return QSize(min(preferred.width(), int(area.width() * share)),
                 min(preferred.height(), int(area.height() * share)))


def clamp_rect(rect: QRect, area: QRect) -> QRect:
    """``rect`` made no larger than ``area`` and moved inside it."""
    width, height = min(rect.width(), area.width()), min(rect.height(), area.height())
    x = min(max(rect.x(), area.x()), area.x() + area.width() - width)
    y = min(max(rect.y(), area.y()), area.y() + area.height() - height)
    return QRect(x, y, width, height)


def size_window(window: QWidget, preferred: QSize) -> None:
    """Give a window its preferred size, or less on a small (or scaled-up) screen."""
    fit_when_shown(window)
    area = available_rect(window)
    size = fitting_size(preferred, area)
    minimum = window.minimumSize()
    window.setMinimumSize(min(minimum.width(), size.width()),
                          min(minimum.height(), size.height()))
    window.resize(size)


def restore_geometry(window: QWidget, saved: QByteArray | None) -> bool:
    """Restore a saved geometry, then pull the window back onto the available screen."""
    fit_when_shown(window)
    if saved is None or not window.restoreGeometry(saved):
        return False
    keep_on_screen(window)
    return True


def keep_on_screen(window: QWidget) -> None:
    """Pull the window back onto the available screen (call it when content built after the
    restore, e.g. the lead window's chart views, has widened the window's minimum).

    Once shown, the window manager's frame (title bar, borders) counts too: the frame, not
    only the client area, must fit. A window larger than the area is shrunk, down to its
    minimum size (its content then scrolls or squeezes, but the title bar stays reachable).
    """
    if window.isMaximized() or window.isFullScreen():
        return
    area = available_rect(window)
    inner, outer = window.geometry(), window.frameGeometry()
    left, top = inner.x() - outer.x(), inner.y() - outer.y()
    extra_w, extra_h = outer.width() - inner.width(), outer.height() - inner.height()
    fitted = clamp_rect(outer, area)
    if fitted == outer:
        return
    width = max(window.minimumWidth(), fitted.width() - extra_w)
    height = max(window.minimumHeight(), fitted.height() - extra_h)
    window.setGeometry(fitted.x() + left, fitted.y() + top, width, height)


class _FitWhenShown(QObject):
    """Only a shown window knows its frame (title bar, borders): fit it once it is shown."""

    active = True

    def _keep(self, window: QWidget) -> None:
        if self.active:
            keep_on_screen(window)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget):
            QTimer.singleShot(0, lambda: self._keep(watched))
        return False


def fit_when_shown(window: QWidget) -> None:
    """Keep the window's frame on the screen each time it is shown (installed once)."""
    if window.findChild(_FitWhenShown) is None:
        window.installEventFilter(_FitWhenShown(window))


def stop_fitting(window: QWidget) -> None:
    """Let the window be larger than its screen (``--screenshot`` at a given size)."""
    for fitter in window.findChildren(_FitWhenShown):
        fitter.active = False


def pane_sizes(sizes: list[int], total: int, minimum: int = MIN_PANE,
               weights: list[int] | None = None) -> list[int]:
    """The saved sizes when every pane is at least ``minimum``; else ``total`` shared out by
    ``weights`` (a pane saved at 0 px, the bug that made the live panels vanish)."""
    count = len(sizes)
    if count == 0 or all(s >= minimum for s in sizes):
        return list(sizes)
    weights = list(weights or [1] * count)[:count] + [1] * max(0, count - len(weights or []))
    total = max(total, sum(sizes), minimum * count)
    return [max(minimum, int(total * w / sum(weights))) for w in weights]


def restore_splitter(splitter: QSplitter, saved: QByteArray | None,
                     weights: list[int] | None = None, minimum: int = MIN_PANE) -> list[int]:
    """Restore a splitter's state, but never with a pane collapsed; returns the sizes set."""
    splitter.setChildrenCollapsible(False)
    if saved is not None:
        splitter.restoreState(saved)
        splitter.setChildrenCollapsible(False)  # restoreState brings the saved flag back
    sizes = splitter.sizes()
    horizontal = splitter.orientation() == Qt.Orientation.Horizontal
    extent = splitter.width() if horizontal else splitter.height()
    fixed = pane_sizes(sizes, extent, minimum, weights)
    if fixed != sizes:
        splitter.setSizes(fixed)
    return fixed


def scrolling_dialog(dialog: QWidget, body: QLayout, *footer: QWidget | QLayout,
                     preferred: QSize | None = None) -> FitScroll:
    """``body`` in a scroll area over ``footer`` (the dialog's buttons, in order), the dialog
    sized to ``preferred`` (else what the body asks) but never past the screen's available
    area: the body scrolls, the buttons stay in sight, whatever grows inside (errors)."""
    foot = QVBoxLayout()
    foot.setContentsMargins(0, 0, 0, 0)
    for part in footer:
        foot.addLayout(part) if isinstance(part, QLayout) else foot.addWidget(part)
    return _body_over(dialog, body, foot, preferred)


def _body_over(dialog: QWidget, body: QLayout, foot: QLayout,
               preferred: QSize | None) -> FitScroll:
    body.setContentsMargins(0, 0, 0, 0)
    hint = body.totalSizeHint()
    inner = QWidget(dialog)
    inner.setLayout(body)
    outer = QVBoxLayout(dialog)
    scroll = FitScroll(inner, dialog)
    outer.addWidget(scroll, 1)
    outer.addLayout(foot)
    extra = 2 * DIALOG_MARGIN
    size_window(dialog, preferred or QSize(hint.width() + extra + SCROLL_BAR,
                                           hint.height() + foot.sizeHint().height() + extra))
    return scroll


class FitScroll(QScrollArea):
    """A scroll area for a window's whole content: it fills the window, and scrolls only
    when the window (on a small or scaled-up screen) is smaller than the content's minimum.

    Word-wrapped labels need more height when narrower; a plain scroll area ignores that
    (height-for-width), so the content would be squeezed and its widgets overlap. This one
    gives the content the height it needs at the width it has."""

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidget(content)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)   # no tab stop of its own
        content.installEventFilter(self)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        # Keys the content leaves go on to the window (the desk's keys), not to scrolling.
        event.ignore()

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        # New text (a report arriving) can wrap to more lines: fit again once laid out.
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            QTimer.singleShot(0, self.fit_height)
        return super().eventFilter(watched, event)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.fit_height()
        super().resizeEvent(event)

    def fit_height(self) -> None:
        """Give the content at least the height its layout needs at the viewport's width."""
        content = self.widget()
        if content is None or content.layout() is None and not content.hasHeightForWidth():
            return
        width = self.viewport().width()
        need = content.heightForWidth(width) if content.hasHeightForWidth() else -1
        need = max(need, content.minimumSizeHint().height())
        if need > 0 and content.minimumHeight() != need:
            content.setMinimumHeight(need)
