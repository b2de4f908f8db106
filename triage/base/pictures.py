"""Pictures as candidates, without Qt: where a picture is, what kind it is, is it whole.

An image cell holds a path relative to the pool file's folder, an absolute path, a
``file://`` URI or an ``http(s)://`` URL. It is stored as given; :func:`resolve` finds it
at display (or check) time against the pool folder recorded at import.

Pictures are untrusted input. Only raster formats whose decoders run no code are accepted,
recognised by their first bytes, never by the file name: PNG, JPEG, GIF, WebP, BMP and
TIFF. SVG (which can carry script) and everything else is refused. :func:`check_file`
reads the header only (magic bytes, the declared width and height, and whether the file
ends as its format says it must), so checking a million files never decodes one.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlparse

FORMATS = ("png", "jpeg", "gif", "webp", "bmp", "tiff")
MAX_PIXELS = 50_000_000    # a picture above this many pixels is refused (a bomb; 200 MB decoded)
MAX_BYTES = 64 << 20       # a picture file above this size is refused
HEADER_BYTES = 64 << 10    # enough of the head to find a JPEG's frame header


@dataclass(frozen=True)
class PictureRef:
    """A resolved image cell: a local ``path`` or a remote ``url`` (one of the two)."""

    given: str
    path: Path | None = None
    url: str | None = None


def resolve(given: str, folder: str | Path | None) -> PictureRef:
    """Where the image cell ``given`` points, relative paths against ``folder``."""
    text = given.strip()
    lower = text.lower()
    if lower.startswith(("http://", "https://")):
        return PictureRef(given, url=text)
    if lower.startswith("file:"):
        parsed = urlparse(text)
        return PictureRef(given, path=Path(unquote(parsed.path)))
    path = Path(text).expanduser()
    if not path.is_absolute() and folder is not None:
        path = Path(folder) / path
    return PictureRef(given, path=path)


def sniff(head: bytes) -> str | None:
    """The format of a file from its first bytes (one of :data:`FORMATS`), or None."""
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:2] == b"BM":
        return "bmp"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "tiff"
    return None


def _jpeg_size(head: bytes) -> tuple[int, int] | None:
    """Width and height from a JPEG's first frame header (SOFn), walking the segments."""
    i = 2
    while i + 9 < len(head):
        if head[i] != 0xFF:
            return None
        marker = head[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        length = struct.unpack(">H", head[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", head[i + 5:i + 9])
            return width, height
        i += 2 + length
    return None


def size_of(kind: str, head: bytes) -> tuple[int, int] | None:
    """The declared (width, height) of a picture from its head, when the format says."""
    try:
        if kind == "png" and head[12:16] == b"IHDR":
            return struct.unpack(">II", head[16:24])
        if kind == "gif":
            return struct.unpack("<HH", head[6:10])
        if kind == "bmp":
            width, height = struct.unpack("<ii", head[18:26])
            return abs(width), abs(height)
        if kind == "jpeg":
            return _jpeg_size(head)
        if kind == "webp" and head[12:16] == b"VP8X":
            w = int.from_bytes(head[24:27], "little") + 1
            h = int.from_bytes(head[27:30], "little") + 1
            return w, h
    except struct.error:
        return None
    return None  # tiff and simple webp: the decoder's allocation limit still guards them


_ENDINGS = {"png": (b"IEND\xaeB`\x82",), "gif": (b";",), "jpeg": (b"\xff\xd9",)}


def problem(head: bytes, tail: bytes, size: int, max_pixels: int = MAX_PIXELS,
            max_bytes: int = MAX_BYTES) -> str | None:
    """Why these bytes cannot be shown (a short phrase), or None when they look whole."""
    if size == 0:
        return "the file is empty"
    if size > max_bytes:
        return f"the file is too large ({size:,} bytes; at most {max_bytes:,})"
    kind = sniff(head)
    if kind is None:
        return "not a picture Triage shows (PNG, JPEG, GIF, WebP, BMP or TIFF)"
    dims = size_of(kind, head)
    if kind in ("png", "jpeg") and dims is None:
        return f"a damaged {kind.upper()} header"
    if dims is not None:
        if dims[0] <= 0 or dims[1] <= 0:
            return f"a damaged {kind.upper()} header"
        if dims[0] * dims[1] > max_pixels:
            return f"too large to decode safely ({dims[0]:,} × {dims[1]:,} pixels)"
    endings = _ENDINGS.get(kind)
    # A trailing padding byte or two after the end marker is common and harmless.
    if endings and not any(e in tail[-16:] for e in endings):
        return f"the {kind.upper()} file is cut short (truncated)"
    return None


_PROJECT_ENDINGS = (".triage", ".triage-wal", ".triage-shm", ".triage-journal")


def check_file(path: Path, max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_BYTES) -> str | None:
    """Why the local picture at ``path`` cannot be shown, or None (reads head and tail).

    A project file (or its logs) is refused by name before it is opened: reading it in a
    desk's process would drop SQLite's locks on it (docs/formats.md, one engine per process).
    """
    if Path(path).name.lower().endswith(_PROJECT_ENDINGS):
        return "a Triage project file, not a picture"
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(0)
            head = handle.read(HEADER_BYTES)
            handle.seek(max(0, size - 16))
            tail = handle.read(16)
    except FileNotFoundError:
        return "the file does not exist"
    except IsADirectoryError:
        return "a folder, not a file"
    except OSError as error:
        return f"the file cannot be read ({error.strerror or error})"
    return problem(head, tail, size, max_pixels, max_bytes)
