"""The candidate as a picture: fitted to the pane, sharp on HiDPI, zoom and pan, a caption.

The picture is drawn from a copy scaled once to the pane's *device* pixels (the pane's
size × devicePixelRatio), so a 2× screen shows every pixel the file has. The text-size
keys zoom (Ctrl+= / Ctrl+-; Ctrl+0 fits), as do the mouse wheel; dragging pans. A
picture that cannot be shown leaves a placeholder that says why; the desk goes on.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent, QPainter, QPaintEvent, QWheelEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from triage.base.pictures import PictureRef
from ui.palette import SECONDARY
from ui.picture_loader import PictureLoader, key_of

ZOOM_STEP = 1.25
MAX_ZOOM = 32.0


class PictureView(QWidget):
    """Draws one picture (or the reason it cannot be shown) with zoom and pan."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.image: QImage | None = None
        self.reason = ""
        self.zoom = 1.0                # relative to fitting the pane
        self.offset = QPointF(0, 0)    # pan, in logical pixels
        self._drag: QPointF | None = None
        self._scaled: tuple[tuple[int, int, float, float], QImage] | None = None
        self.setMinimumSize(120, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_image(self, image: QImage | None, reason: str = "") -> None:
        """Show ``image``, fitted; or, when None, the ``reason`` in its place."""
        self.image, self.reason = image, reason
        self._scaled = None
        self.fit()

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

    def _device_image(self, rect: QRectF) -> QImage:
        """The picture scaled once to the device pixels it covers (kept for repaints)."""
        dpr = self.devicePixelRatioF()
        key = (round(rect.width()), round(rect.height()), dpr, self.zoom)
        if self._scaled is not None and self._scaled[0] == key:
            return self._scaled[1]
        assert self.image is not None
        pixels = QSize(max(1, round(rect.width() * dpr)), max(1, round(rect.height() * dpr)))
        if pixels.width() * pixels.height() > 64_000_000:  # deep zoom: let the painter crop
            return self.image
        scaled = self.image.scaled(pixels, Qt.AspectRatioMode.IgnoreAspectRatio,
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
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        painter.drawImage(rect, self._device_image(rect))

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
        self.loader = PictureLoader(cache_dir, self)
        self.loader.ready.connect(self._ready)
        self.current: str | None = None
        self.not_shown = 0   # pictures of this desk session that could not be shown

    def show_picture(self, ref: PictureRef | None, caption: str,
                     ahead: list[PictureRef] | tuple[PictureRef, ...] = ()) -> None:
        """Show ``ref`` (decoded now or when its worker is done) and decode ``ahead``."""
        self.caption.setText(caption)
        self.caption.setVisible(bool(caption))
        self.current = key_of(ref) if ref is not None else None
        if ref is None:
            self._placeholder("This candidate has no picture.")
        else:
            found = self.loader.get(self.current)
            if found is None:
                self.view.set_image(None, "Loading the picture…")
                self.loader.request(ref)
            else:
                self._put(found)
        for upcoming in ahead:
            self.loader.request(upcoming)

    def _placeholder(self, reason: str) -> None:
        self.not_shown += 1
        self.view.set_image(None, reason)

    def _put(self, found: QImage | str) -> None:
        if isinstance(found, QImage):
            self.view.set_image(found)
        else:
            self._placeholder(f"This picture cannot be shown: {found}.\n\n"
                              "Label it from what you know, or skip it (s).")

    def _ready(self, key: str) -> None:
        if key == self.current:
            found = self.loader.get(key)
            if found is not None:
                self._put(found)

    @property
    def reason(self) -> str:
        """What the placeholder says ("" while a picture is shown)."""
        return self.view.reason if self.view.image is None else ""
