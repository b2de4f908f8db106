"""Decoding pictures off the GUI thread, ahead of the desk, into a cache bounded in bytes.

A :class:`PictureLoader` decodes each picture once in the pictures' lane of :mod:`ui.jobs`
(two at a time; ``QImage`` is safe to make off the GUI thread, ``QPixmap`` is not) and
hands the image, or the reason it cannot be shown, back by a queued signal. The desk asks
for the current picture and the next few, so the label key → next picture costs no
decoding.

Given a target (:meth:`PictureLoader.set_target`: the pane's size in *device* pixels), a
picture is decoded straight to the size that fits it (``QImageReader.setScaledSize``: the
JPEG decoder then scales while decoding, about half the time of a whole 4-megapixel
decode), so the GUI thread only copies an image of the size it shows onto the screen.
Zoom asks for the whole picture (:meth:`PictureLoader.request_full`), on demand only. The
workers keep the process's priority: a lowered one made stalls longer on a busy machine
(a worker descheduled while it holds Python's interpreter lock holds up the GUI thread).

Pictures are untrusted: the header is checked first (:func:`triage.base.pictures.check_file`:
only PNG, JPEG, GIF, WebP, BMP and TIFF by their first bytes, declared size bounded, not
cut short), the decoder is the one for the sniffed format (never chosen by the name),
and Qt's allocation limit stops a decompression bomb the header did not reveal.
URLs are fetched on the worker with a timeout and a size limit into a cache folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import urllib.request
from collections import OrderedDict
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QSize, Qt, Signal
from PySide6.QtGui import QImage, QImageIOHandler, QImageReader

from triage.base.pictures import MAX_BYTES, PictureRef, check_file, sniff
from ui.jobs import PICTURES, run_kept

ALLOCATION_MB = 256          # Qt refuses to allocate more for one decoded picture (MB)
CACHE_BYTES = 160 << 20      # decoded pictures kept (the oldest go first): ~48 pane-sized
FULL = "\x00full"            # cache key suffix of a picture decoded whole (for zoom)
FETCH_TIMEOUT = 10.0         # seconds for a URL to answer and each read after
_QT_FORMAT = {"png": "png", "jpeg": "jpeg", "gif": "gif", "webp": "webp", "bmp": "bmp",
              "tiff": "tiff"}


class _HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to another http(s) address (never ftp:, never file:)."""

    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> Any:
        if not newurl.lower().startswith(("http://", "https://")):
            raise OSError(f"the picture's address redirects to {newurl.split(':')[0]}:")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.OpenerDirector()
for _handler in (urllib.request.ProxyHandler(), urllib.request.HTTPHandler(),
                 urllib.request.HTTPSHandler(), _HttpOnlyRedirects(),
                 urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
    _OPENER.add_handler(_handler)


def fetch(url: str, folder: Path, *, timeout: float = FETCH_TIMEOUT,
          limit: int = MAX_BYTES) -> Path:
    """Download ``url`` into ``folder`` (once: the file name is the URL's hash)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / hashlib.sha256(url.encode()).hexdigest()
    if target.exists():
        return target
    partial = target.with_suffix(".part")
    if not url.lower().startswith(("http://", "https://")):
        raise OSError("only http(s) addresses are fetched")
    with _OPENER.open(url, timeout=timeout) as answer:
        declared = answer.headers.get("Content-Length")
        if declared and declared.isdigit() and int(declared) > limit:
            raise OSError(f"the picture is too large to fetch ({int(declared):,} bytes)")
        try:
            _save(answer, partial, limit)
        except BaseException:
            partial.unlink(missing_ok=True)  # no half picture is ever taken for a whole one
            raise
    os.replace(partial, target)
    return target


def _save(answer: Any, partial: Path, limit: int) -> None:
    got = 0
    with open(partial, "wb") as out:
        while chunk := answer.read(1 << 16):
            got += len(chunk)
            if got > limit:
                raise OSError(f"the picture is too large to fetch (over {limit:,} bytes)")
            out.write(chunk)


def decode(path: Path, fit: QSize | None = None) -> QImage | str:
    """The picture at ``path`` with its EXIF orientation applied, or why not.

    With ``fit``, a larger picture is decoded straight to the largest size within it
    (aspect kept); a smaller one at its own size.
    """
    why = check_file(path)
    if why is not None:
        return why
    with open(path, "rb") as handle:
        kind = sniff(handle.read(16))
    if kind is None:  # changed since the check
        return "not a picture Triage shows"
    reader = QImageReader(str(path), _QT_FORMAT[kind].encode())
    reader.setDecideFormatFromContent(False)  # the sniffed format's decoder, and only it
    reader.setAutoTransform(True)
    if fit is not None and not fit.isEmpty():
        _scale_to(reader, fit)
    image = reader.read()
    if image.isNull():
        return f"the {kind.upper()} file cannot be decoded ({reader.errorString()})"
    return image


def _scale_to(reader: QImageReader, fit: QSize) -> None:
    """Ask the decoder for the picture fitted into ``fit`` (as shown: EXIF turns included).

    The decoder scales the picture as stored, before the EXIF turn; a quarter turn swaps
    the sides.
    """
    stored = reader.size()
    if not stored.isValid():
        return
    turned = bool(reader.transformation() & QImageIOHandler.Transformation.TransformationRotate90)
    shown = stored.transposed() if turned else stored
    if shown.width() <= fit.width() and shown.height() <= fit.height():
        return
    scaled = shown.scaled(fit, Qt.AspectRatioMode.KeepAspectRatio)
    scaled = QSize(max(1, scaled.width()), max(1, scaled.height()))
    reader.setScaledSize(scaled.transposed() if turned else scaled)


def key_of(ref: PictureRef) -> str:
    """The cache key of a picture: where it is, not how the cell spelled it (two projects
    may both say ``img/1.png`` of different folders)."""
    return ref.url if ref.url is not None else str(ref.path)


class _Signals(QObject):
    done = Signal(str, object, object)   # (cache key, QImage or reason, the fit asked)


class _Decode:
    """One job: fetch (a URL) and decode a picture, then say so by ``signals``."""

    def __init__(self, ref: PictureRef, cache_dir: Path, signals: _Signals, key: str,
                 fit: QSize | None, dpr: float = 1.0) -> None:
        self.ref, self.cache_dir, self.signals = ref, cache_dir, signals
        self.key, self.fit, self.dpr = key, fit, dpr

    def run(self) -> None:  # a worker thread: never touch widgets here
        try:
            path = self.ref.path
            if self.ref.url is not None:
                path = fetch(self.ref.url, self.cache_dir)
            result: QImage | str = decode(path, self.fit) if path is not None else "no picture"
            if self.fit is not None and isinstance(result, QImage):
                result.setDevicePixelRatio(self.dpr)  # drawn pixel for pixel on the pane
        except TimeoutError:
            result = "the picture's address did not answer in time"
        except OSError as error:
            result = f"the picture could not be fetched ({getattr(error, 'reason', error)})"
        except Exception as error:  # noqa: BLE001 - a hostile file must never stop the desk
            result = f"the picture could not be read ({type(error).__name__})"
        with contextlib.suppress(RuntimeError):  # the loader went away meanwhile
            self.signals.done.emit(self.key, result, self.fit)


class PictureLoader(QObject):
    """Decodes pictures ahead on two worker threads; keeps the newest within ``limit`` bytes.

    With ``fitted``, pictures are decoded to the target of :meth:`set_target`, and
    requests made before the first target wait for it.
    """

    ready = Signal(str)  # a key_of: its picture (or reason) is now in the cache

    def __init__(self, cache_dir: Path, parent: QObject | None = None,
                 limit: int = CACHE_BYTES, *, fitted: bool = False) -> None:
        super().__init__(parent)
        QImageReader.setAllocationLimit(ALLOCATION_MB)
        self.cache_dir = cache_dir
        self.limit = limit
        self.fitted = fitted
        self.target: QSize | None = None       # device pixels to fit; None: whole pictures
        self.dpr = 1.0                         # the pane's device pixels per logical one
        app = QCoreApplication.instance()
        if app is not None:  # no decoder may be left running while Qt goes away
            app.aboutToQuit.connect(lambda: PICTURES.wait(1.0))
        self._signals = _Signals(self)
        self._signals.done.connect(self._done)
        self._cache: OrderedDict[str, QImage | str] = OrderedDict()
        self._made_for: dict[str, QSize | None] = {}   # the fit each picture was decoded to
        self._bytes = 0
        self._pending: set[str] = set()
        self._waiting: list[PictureRef] = []   # asked for before the first target

    def get(self, key: str) -> QImage | str | None:
        """The decoded picture (or reason) of a :func:`key_of` when cached, else None."""
        found = self._cache.get(key)
        if found is not None:
            self._cache.move_to_end(key)
        return found

    def get_full(self, key: str) -> QImage | None:
        """The whole picture of a :func:`key_of` when decoded (:meth:`request_full`)."""
        found = self.get(key + FULL)
        return found if isinstance(found, QImage) else None

    def request(self, ref: PictureRef) -> None:
        """Decode ``ref`` on a worker unless it is cached (for this target) or on its way."""
        if self.fitted and self.target is None:
            self._waiting.append(ref)
            return
        self._start(ref, key_of(ref), self.target if self.fitted else None)

    def request_full(self, ref: PictureRef) -> None:
        """Decode ``ref`` whole (zoom), unless it is cached or on its way."""
        self._start(ref, key_of(ref) + FULL, None)

    def _start(self, ref: PictureRef, key: str, fit: QSize | None) -> None:
        if key in self._pending:
            return
        found = self._cache.get(key)
        if found is not None and (not isinstance(found, QImage) or self._made_for.get(key) == fit):
            return
        self._pending.add(key)
        run_kept(PICTURES, _Decode(ref, self.cache_dir, self._signals, key, fit, self.dpr))

    def set_target(self, size: QSize, dpr: float = 1.0) -> bool:
        """Fit pictures into ``size`` device pixels (``dpr`` per logical pixel) from now;
        True if that changed it."""
        if self.target == size and self.dpr == dpr:
            return False
        self.target, self.dpr = QSize(size), dpr
        waiting, self._waiting = self._waiting, []
        for ref in waiting:
            self.request(ref)
        return True

    def reset(self, cache_dir: Path) -> None:
        """Another project: forget the pictures held, fetch into ``cache_dir`` from now."""
        self.cache_dir = cache_dir
        self._cache.clear()
        self._made_for.clear()
        self._waiting.clear()
        self._bytes = 0

    @property
    def cached_bytes(self) -> int:
        """Bytes of decoded pictures held now."""
        return self._bytes

    @property
    def busy(self) -> bool:
        """Some picture is being decoded or fetched."""
        return bool(self._pending)

    def _done(self, key: str, result: QImage | str, fit: QSize | None) -> None:
        self._pending.discard(key)
        if key in self._cache:  # decoded again (another target, a reset): count once
            self._bytes -= _size(self._cache[key])
        self._cache[key] = result
        self._cache.move_to_end(key)
        self._made_for[key] = fit
        self._bytes += _size(result)
        while self._bytes > self.limit and len(self._cache) > 1:
            old, dropped = self._cache.popitem(last=False)
            self._made_for.pop(old, None)
            self._bytes -= _size(dropped)
        self.ready.emit(key)

    def wait(self, msecs: int = 5000) -> None:
        """Let running decodes finish (closing the desk, tests)."""
        PICTURES.wait(msecs / 1000)


def _size(item: QImage | str) -> int:
    return int(item.sizeInBytes()) if isinstance(item, QImage) else len(item)
