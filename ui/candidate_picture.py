"""The candidate as a picture: fitted to the pane, sharp on HiDPI, zoom and pan, a caption.

The picture is decoded on a worker straight to the pane's *device* pixels (the pane's
size × devicePixelRatio; see :mod:`ui.picture_loader`), so a 2× screen shows every pixel
the file has and the GUI thread only draws it. Zooming in asks for the whole picture. The text-size
keys zoom (Ctrl+= / Ctrl+-; Ctrl+0 fits), as do the mouse wheel; dragging pans. A
picture that cannot be shown leaves a placeholder that says why; the desk goes on.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QResizeEvent,
    QWheelEvent,
)
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from triage.base.pictures import PictureRef
from ui.palette import SECONDARY
from ui.picture_loader import FULL, PictureLoader, key_of

ZOOM_STEP = 1.25
MAX_ZOOM = 32.0
REFIT_MS = 150      # a resized pane: pictures are decoded afresh once it stops changing


class PictureView(QWidget):
    """Draws one picture (or the reason it cannot be shown) with zoom and pan."""

    resized = Signal()
    zoomed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image: QImage | None = None
        self.detail: QImage | None = None   # the whole picture, drawn when zoomed in
        self.reason = ""
        self.zoom = 1.0                # relative to fitting the pane
        self.offset = QPointF(0, 0)    # pan, in logical pixels
        self._drag: QPointF | None = None
        self._scaled: tuple[tuple[int, int, float, float], QImage] | None = None
        self.setMinimumSize(120, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_image(self, image: QImage | None, reason: str = "", *,
                  keep_zoom: bool = False) -> None:
        """Show ``image``, fitted; or, when None, the ``reason`` in its place.

        ``keep_zoom``: the same picture decoded afresh (the pane was resized).
        """
        self.image, self.reason = image, reason
        self._scaled = None
        if not keep_zoom:
            self.detail = None
            self.fit()
        else:
            self.update()

    def set_detail(self, image: QImage) -> None:
        """The whole picture, drawn instead of the fitted one while zoomed in."""
        self.detail = image
        self._scaled = None
        self.update()

    def device_size(self) -> QSize:
        """The pane's size in device pixels (what a fitted picture is decoded to)."""
        dpr = self.devicePixelRatioF()
        return QSize(max(1, round(self.width() * dpr)), max(1, round(self.height() * dpr)))

    def fit(self) -> None:
        """Back to the whole picture in the pane."""
        self.zoom, self.offset = 1.0, QPointF(0, 0)
        self.update()

    def zoom_by(self, steps: float) -> None:
        """Zoom in (positive) or out by steps of 25 %, never smaller than fitting."""
        self.zoom = min(MAX_ZOOM, max(1.0, self.zoom * ZOOM_STEP ** steps))
        if self.zoom == 1.0:
            self.offset = QPointF(0, 0)
        self.update()
        self.zoomed.emit()

    def target(self) -> QRectF:
        """Where the picture lands in the widget (logical pixels)."""
        if self.image is None or self.image.isNull():
            return QRectF()
        dpr = self.image.devicePixelRatio() or 1.0
        w, h = self.image.width() / dpr, self.image.height() / dpr
        fit = min(self.width() / w, self.height() / h)
        scale = fit * self.zoom
        size = QSize(max(1, round(w * scale)), max(1, round(h * scale)))
        x = (self.width() - size.width()) / 2 + self.offset.x()
        y = (self.height() - size.height()) / 2 + self.offset.y()
        return QRectF(x, y, size.width(), size.height())

    def _source(self) -> QImage:
        assert self.image is not None
        return self.detail if self.detail is not None and self.zoom > 1.0 else self.image

    def _device_image(self, rect: QRectF) -> QImage:
        """The picture scaled once to the device pixels it covers (kept for repaints).

        A picture decoded to fit the pane (within 2 pixels) is drawn as it is.
        """
        dpr = self.devicePixelRatioF()
        key = (round(rect.width()), round(rect.height()), dpr, self.zoom)
        if self._scaled is not None and self._scaled[0] == key:
            return self._scaled[1]
        source = self._source()
        pixels = QSize(max(1, round(rect.width() * dpr)), max(1, round(rect.height() * dpr)))
        if _close(source.size(), pixels) and source.devicePixelRatio() == dpr:
            return source
        if pixels.width() * pixels.height() > 64_000_000:  # deep zoom: let the painter crop
            return source
        scaled = source.scaled(pixels, Qt.AspectRatioMode.IgnoreAspectRatio,
                               Qt.TransformationMode.SmoothTransformation)
        scaled.setDevicePixelRatio(dpr)
        self._scaled = (key, scaled)
        return scaled

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        if self.image is None or self.image.isNull():
            painter.setPen(QColor(SECONDARY))
            painter.drawText(self.rect().adjusted(12, 12, -12, -12),
                             Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             self.reason)
            return
        rect = self.target()
        drawn = self._device_image(rect)
        if _close(drawn.size(), QSize(round(rect.width() * drawn.devicePixelRatio()),
                                      round(rect.height() * drawn.devicePixelRatio()))):
            painter.drawImage(rect.topLeft(), drawn)  # pixel for pixel: a copy, no scaling
            return
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        painter.drawImage(rect, drawn)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self.resized.emit()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        self.zoom_by(event.angleDelta().y() / 120.0)
        event.accept()

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        self._drag = event.position()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        if self._drag is not None and self.zoom > 1.0:
            self.offset += event.position() - self._drag
            self._drag = event.position()
            self.update()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt override
        self._drag = None


class CandidatePicture(QWidget):
    """The picture of the current candidate with its caption; decodes ahead."""

    def __init__(self, cache_dir: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.view = PictureView(self)
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)  # untrusted text: never markup
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)
        self.loader = PictureLoader(cache_dir, self, fitted=True)
        self.loader.ready.connect(self._ready)
        self.current: str | None = None
        self._ref: PictureRef | None = None
        self._shown: str | None = None  # the key whose picture the view holds
        self.not_shown = 0   # pictures of this desk session that could not be shown
        self._refit = QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.setInterval(REFIT_MS)
        self._refit.timeout.connect(self._fit_target)
        self.view.resized.connect(self._resized)
        self.view.zoomed.connect(self._zoomed)

    def show_picture(self, ref: PictureRef | None, caption: str,
                     ahead: list[PictureRef] | tuple[PictureRef, ...] = ()) -> None:
        """Show ``ref`` (decoded now or when its worker is done) and decode ``ahead``."""
        self.caption.setText(caption)
        self.caption.setVisible(bool(caption))
        self.current = key_of(ref) if ref is not None else None
        self._ref, self._shown = ref, None
        if ref is None:
            self._placeholder("This candidate has no picture.")
        else:
            found = self.loader.get(self.current)  # type: ignore[arg-type]
            if found is None:
                self.view.set_image(None, "Loading the picture…")
            else:
                self._put(found)
            self.loader.request(ref)  # decoded for this pane unless it is already
        for upcoming in ahead:
            self.loader.request(upcoming)

    def _placeholder(self, reason: str) -> None:
        self.not_shown += 1
        self.view.set_image(None, reason)

    def _put(self, found: QImage | str) -> None:
        if isinstance(found, QImage):
            self.view.set_image(found, keep_zoom=self._shown == self.current)
            self._shown = self.current
        else:
            self._placeholder(f"This picture cannot be shown: {found}.\n\n"
                              "Label it from what you know, or skip it (s).")

    def _ready(self, key: str) -> None:
        if self.current is None:
            return
        if key == self.current + FULL:
            full = self.loader.get_full(self.current)
            if full is not None:
                self.view.set_detail(full)
        elif key == self.current:
            found = self.loader.get(key)
            if found is not None:
                self._put(found)
            if self._ref is not None:
                self.loader.request(self._ref)  # the pane changed meanwhile: once more

    def _resized(self) -> None:
        """The first size is taken at once; later ones once the pane stops changing."""
        if self.loader.target is None:
            self._fit_target()
        else:
            self._refit.start()

    def _fit_target(self) -> None:
        if self.loader.set_target(self.view.device_size(), self.view.devicePixelRatioF()) \
                and self._ref is not None:
            self.loader.request(self._ref)

    def _zoomed(self) -> None:
        """Zoomed in: the whole picture, decoded on demand (fitting needs no more)."""
        if self.view.zoom > 1.0 and self._ref is not None and self.current is not None:
            full = self.loader.get_full(self.current)
            if full is None:
                self.loader.request_full(self._ref)
            elif self.view.detail is None:
                self.view.set_detail(full)

    @property
    def reason(self) -> str:
        """What the placeholder says ("" while a picture is shown)."""
        return self.view.reason if self.view.image is None else ""


def _close(a: QSize, b: QSize) -> bool:
    """Sizes equal within 2 pixels each way (rounding of a fitted picture)."""
    return abs(a.width() - b.width()) <= 2 and abs(a.height() - b.height()) <= 2
