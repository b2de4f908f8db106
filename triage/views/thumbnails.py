"""Small pictures of candidates, without Qt: for the report and the lead window's gallery.

Pictures are untrusted input, and this is the one place Triage decodes them outside the
desk, with Pillow:

- only a local file is read: a path, or for an ``http(s)://`` cell the copy the desk
  already fetched into the project's picture cache (:func:`cached_file`); nothing is
  fetched here, and no other scheme is followed;
- the header is checked first (:func:`triage.base.pictures.check_file`: the format by its
  first bytes, the declared size bounded, the file not cut short);
- Pillow tries the sniffed format's decoder and no other (never one chosen by the name),
  and refuses more than :data:`~triage.base.pictures.MAX_PIXELS` pixels
  (``Image.MAX_IMAGE_PIXELS``) before decoding;
- any error the decoder raises becomes a reason ("the PNG file cannot be decoded"),
  never an exception;
- the EXIF orientation is applied (``ImageOps.exif_transpose``), as at the desk.
"""

from __future__ import annotations

import base64
import hashlib
import tempfile
import warnings
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING

from triage.base.pictures import MAX_PIXELS, PictureRef, check_file, sniff

if TYPE_CHECKING:
    from PIL.Image import Image

REPORT_SIDE = 96        # the report's thumbnails: at most this many pixels a side
JPEG_QUALITY = 80
_PIL_FORMAT = {"png": "PNG", "jpeg": "JPEG", "gif": "GIF", "webp": "WEBP", "bmp": "BMP",
               "tiff": "TIFF"}


def url_cache_folder(location: str) -> Path:
    """Where the desk keeps the pictures it fetched: beside a project file, else in temp.

    The same rule as ``ui.desk_pictures.cache_folder`` (a test holds the two equal)."""
    path = Path(location)
    if path.parent.is_dir() and "://" not in location:
        return path.with_name(path.name + ".pictures")
    return Path(tempfile.gettempdir()) / "triage-pictures"


def cached_file(url: str, folder: Path) -> Path:
    """The file the desk fetched ``url`` into (named by the URL's SHA-256), fetched or not."""
    return folder / hashlib.sha256(url.encode()).hexdigest()


def local_file(ref: PictureRef | None, cache: Path) -> Path | str:
    """The local file to read for ``ref``, or why there is none."""
    if ref is None:
        return "no picture"
    if ref.url is not None:
        fetched = cached_file(ref.url, cache)
        return fetched if fetched.is_file() else "a URL not fetched yet (the desk fetches it)"
    if ref.path is None:
        return "no picture"
    return ref.path


def _pillow() -> None:
    """Pillow's own limit (it refuses twice this); we refuse past it before decoding, so
    its warning between the two says nothing new (an existing filter is replaced)."""
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    warnings.filterwarnings("ignore", category=Image.DecompressionBombWarning)


def thumbnail(ref: PictureRef | None, cache: Path, side: int) -> Image | str:
    """``ref``'s picture as an RGB image at most ``side`` pixels a side, or why not."""
    found = local_file(ref, cache)
    if isinstance(found, str):
        return found
    why = check_file(found)
    if why is not None:
        return why
    try:
        return _decode(found, side)
    except Exception as error:  # noqa: BLE001 - a hostile file yields a reason, not a crash
        kind = _kind(found)
        return f"the {kind.upper() if kind else 'picture'} file cannot be decoded " \
               f"({type(error).__name__})"


def _kind(path: Path) -> str | None:
    with open(path, "rb") as handle:
        return sniff(handle.read(16))


def _decode(path: Path, side: int) -> Image | str:
    from PIL import Image, ImageOps

    _pillow()
    kind = _kind(path)
    if kind is None:   # changed since the check
        return "not a picture Triage shows"
    with Image.open(path, formats=[_PIL_FORMAT[kind]]) as opened:
        width, height = opened.size
        if width * height > MAX_PIXELS:
            return f"too large to decode safely ({width:,} × {height:,} pixels)"
        opened.draft("RGB", (side * 2, side * 2))   # JPEG: decode at a fraction of the size
        image = ImageOps.exif_transpose(opened)
        image = _rgb(image)
    image.thumbnail((side, side), Image.Resampling.LANCZOS)
    return image


def _rgb(image: Image) -> Image:
    """The picture on white when it has transparency, as plain RGB."""
    from PIL import Image

    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return image.convert("RGB")


def jpeg_bytes(image: Image, quality: int = JPEG_QUALITY) -> bytes:
    """A thumbnail as a baseline JPEG, without EXIF or any other metadata."""
    out = BytesIO()
    image.save(out, format="JPEG", quality=quality, optimize=True)
    return out.getvalue()


@dataclass(frozen=True)
class ReportThumbnail:
    """A thumbnail for the report: base64 JPEG and its size, or the reason it is missing."""

    jpeg: str | None       # base64 of the JPEG bytes (None: not shown)
    width: int
    height: int
    reason: str            # "" when shown

    def as_dict(self) -> dict[str, object]:
        """Plain data for the report's dict."""
        return {"jpeg": self.jpeg, "width": self.width, "height": self.height,
                "reason": self.reason}


def report_thumbnail(ref: PictureRef | None, cache: Path,
                     side: int = REPORT_SIDE) -> ReportThumbnail:
    """A small JPEG of ``ref``'s picture for the report, or its placeholder's reason."""
    made = thumbnail(ref, cache, side)
    if isinstance(made, str):
        return ReportThumbnail(None, side, side, made)
    data = base64.b64encode(jpeg_bytes(made)).decode("ascii")
    return ReportThumbnail(data, made.width, made.height, "")
