"""Thumbnails for the lead window, decoded off the GUI thread; and a small picture widget.

A :class:`ThumbnailLoader` makes each thumbnail once in the thumbnails' lane (:mod:`ui.jobs`) with
:func:`triage.views.thumbnails.thumbnail` (Pillow: the header checked first, the sniffed
format's decoder only, a pixel limit, EXIF orientation; URLs only from the desk's fetch
cache, never fetched here), turns it into a ``QImage`` there (never a ``QPixmap`` off the
GUI thread) and hands it, or the reason it cannot be shown, back by a queued signal. The
thumbnails it keeps are small (at most ``side`` pixels a side), bounded in bytes.

:class:`SmallPicture` shows one candidate's picture fitted to its box, or a placeholder
that says why not: the Adjudication tab and the History pane use it.
"""

from __future__ import annotations

import contextlib
from collections import OrderedDict
from pathlib import Path

from PySide6.QtCore import QObject, QRect, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from triage.base.pictures import PictureRef
from triage.views.gallery import PictureOf
from triage.views.thumbnails import thumbnail
from ui.jobs import THUMBNAILS, run_kept
from ui.palette import SECONDARY

CACHE_BYTES = 48 << 20   # 48 MB of thumbnails: about 700 at 128 pixels, 100 at 320


def ref_key(ref: PictureRef, side: int) -> str:
    """A thumbnail's cache key: where the picture is (not how its cell spelled it), and size."""
    return f"{side}:{ref.url if ref.url is not None else ref.path}"


class _Signals(QObject):
    done = Signal(str, object)   # (ref_key, QImage or reason)


class _Make:
    def __init__(self, ref: PictureRef, cache: Path, side: int, signals: _Signals) -> None:
        self.ref, self.cache, self.side, self.signals = ref, cache, side, signals

    def run(self) -> None:  # a worker thread: never touch widgets here
        try:
            made = thumbnail(self.ref, self.cache, self.side)
            result: QImage | str = made if isinstance(made, str) else _qimage(made)
        except Exception as error:  # noqa: BLE001 - a hostile file must never stop the window
            result = f"the picture could not be read ({type(error).__name__})"
        with contextlib.suppress(RuntimeError):  # the loader went away meanwhile
            self.signals.done.emit(ref_key(self.ref, self.side), result)


def _qimage(image: object) -> QImage:
    """A Pillow RGB image as a QImage that owns its pixels."""
    width, height = image.size  # type: ignore[attr-defined]
    data = image.tobytes("raw", "RGB")  # type: ignore[attr-defined]
    return QImage(data, width, height, 3 * width, QImage.Format.Format_RGB888).copy()


class ThumbnailLoader(QObject):
    """Makes thumbnails on two worker threads; keeps the newest within ``limit`` bytes."""

    ready = Signal(str)   # a ref_key: its thumbnail (or reason) is now in the cache

    def __init__(self, parent: QObject | None = None, limit: int = CACHE_BYTES) -> None:
        super().__init__(parent)
        self.limit = limit
        self._signals = _Signals(self)
        self._signals.done.connect(self._done)
        self._cache: OrderedDict[str, QImage | str] = OrderedDict()
        self._bytes = 0
        self._pending: set[str] = set()

    def get(self, key: str) -> QImage | str | None:
        """The thumbnail of a :func:`ref_key` (or the reason there is none) when made."""
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
        return found

    def request(self, ref: PictureRef, cache: Path, side: int) -> str:
        """Make ``ref``'s thumbnail on a worker unless made or on its way; its key."""
        key = ref_key(ref, side)
        if key not in self._cache and key not in self._pending:
            self._pending.add(key)
            run_kept(THUMBNAILS, _Make(ref, cache, side, self._signals))
        return key

    def forget(self) -> None:
        """Drop every thumbnail (the pictures may have changed: Recompute)."""
        self._cache.clear()
        self._bytes = 0

    def wait(self, msecs: int = 5000) -> None:
        """Let running work finish (closing, tests)."""
        THUMBNAILS.wait(msecs / 1000)

    def _done(self, key: str, result: QImage | str) -> None:
        self._pending.discard(key)
        if key in self._cache:
            self._bytes -= _size(self._cache[key])
        self._cache[key] = result
        self._bytes += _size(result)
        while self._bytes > self.limit and len(self._cache) > 1:
            _old, dropped = self._cache.popitem(last=False)
            self._bytes -= _size(dropped)
        self.ready.emit(key)


def _size(item: QImage | str) -> int:
    return int(item.sizeInBytes()) if isinstance(item, QImage) else len(item)


class FittedImage(QWidget):
    """Draws an image fitted to the widget (never enlarged past 4×), or a reason in its place."""

    def __init__(self, parent: QWidget | None = None, size: QSize | None = None) -> None:
        super().__init__(parent)
        self.image: QImage | None = None
        self.reason = ""
        box = size or QSize(160, 160)
        self.setMinimumSize(box)
        self.setMaximumSize(box * 2)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def set_image(self, image: QImage | None, reason: str = "") -> None:
        """Show ``image``; or, when None, ``reason`` in a placeholder."""
        self.image, self.reason = image, reason
        self.setAccessibleDescription(reason)
        self.update()

    def target(self) -> tuple[int, int, int, int]:
        """Where the image lands (x, y, width, height), in logical pixels."""
        if self.image is None or self.image.isNull():
            return (0, 0, 0, 0)
        scale = min(self.width() / self.image.width(), self.height() / self.image.height(), 4.0)
        w, h = max(1, round(self.image.width() * scale)), max(1, round(self.image.height() * scale))
        return ((self.width() - w) // 2, (self.height() - h) // 2, w, h)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        if self.image is None or self.image.isNull():
            painter.setPen(QColor(SECONDARY))
            painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
            painter.drawText(self.rect().adjusted(6, 6, -6, -6),
                             Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                             self.reason)
            return
        x, y, w, h = self.target()
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, True)
        painter.drawImage(QRect(x, y, w, h), self.image)


class SmallPicture(QWidget):
    """One candidate's picture, small and fitted, with its caption; hidden for text pools."""

    def __init__(self, parent: QWidget | None = None, side: int = 320,
                 loader: ThumbnailLoader | None = None) -> None:
        super().__init__(parent)
        self.side = side
        self.loader = loader or ThumbnailLoader(self)
        self.loader.ready.connect(self._ready)
        self.view = FittedImage(self, QSize(side // 2, side // 2))
        self.view.setAccessibleName("Picture of the selected candidate")
        self.caption = QLabel(self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)   # untrusted: never markup
        self.caption.setWordWrap(True)
        self.caption.setMaximumWidth(side)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.caption)
        self.current: str | None = None
        self.setVisible(False)

    def show_picture(self, found: PictureOf | None) -> None:
        """Show a candidate's picture and caption (None: hide; no pictures here)."""
        self.setVisible(found is not None)
        self.current = None
        if found is None:
            return
        ref, caption, cache = found.ref, found.caption, found.cache
        self.caption.setText(caption)
        self.caption.setVisible(bool(caption))
        if ref is None:
            self.view.set_image(None, "This candidate has no picture.")
            return
        key = ref_key(ref, self.side)
        made = self.loader.get(key)
        if made is None:
            self.view.set_image(None, "Loading the picture…")
            self.current = self.loader.request(ref, cache, self.side)
        else:
            self._put(made)

    def clear(self) -> None:
        """Nothing selected: an empty box (kept visible in a picture pool)."""
        self.current = None
        self.caption.setText("")
        self.view.set_image(None, "")

    def _put(self, made: QImage | str) -> None:
        if isinstance(made, QImage):
            self.view.set_image(made)
        else:
            self.view.set_image(None, f"This picture cannot be shown: {made}.")

    def _ready(self, key: str) -> None:
        if key == self.current:
            made = self.loader.get(key)
            if made is not None:
                self.current = None
                self._put(made)

    @property
    def reason(self) -> str:
        """What the placeholder says ("" while a picture is shown)."""
        return self.view.reason if self.view.image is None else ""
