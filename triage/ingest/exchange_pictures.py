"""Pictures in Label Studio and Prodigy tasks: what a cell holds and where it is stored.

A task's picture (Label Studio ``data.image``, Prodigy ``image``) is one of:

- a ``data:image/...;base64,`` URI (Prodigy's image recipes write these by default):
  untrusted bytes. It is decoded strictly, at most :data:`MAX_DATA_BYTES` bytes, and must
  be a raster picture Triage shows (PNG, JPEG, GIF, WebP, BMP, TIFF; recognised by its
  first bytes, never by the declared type; SVG is refused, it can carry script), whole and
  not a decompression bomb (:func:`triage.base.pictures.problem`). At import it is written
  once, named by its SHA-256, into ``<project>.pictures/`` beside the project, and the
  candidate's cell is that file's path relative to the project's folder;
- an ``http(s)://`` URL or a ``file://`` URI: stored as given;
- a Label Studio server path (``/data/upload/…``, ``/data/local-files/?d=…``): only Label
  Studio can serve it. ``--image-root DIR`` maps it to ``DIR/…`` (the part after
  ``/data/upload/`` or ``?d=``); without it the cell is stored as given and the summary
  says how to fix it;
- a cloud-storage URI (``s3://``, ``gs://``, ``azure-blob://``): stored as given (the
  desk cannot fetch it) and the summary says so;
- a plain path: an absolute path as given, a relative one against the export file's
  folder (stored absolute).

Nothing here touches a project; :func:`write_pictures` writes the decoded files.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import os
import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from triage.base import pictures
from triage.ingest.exchange_values import BadValue, short

MAX_DATA_BYTES = 16 << 20          # a decoded data URI above this size is refused
_DATA_URI = re.compile(r"data:([^;,]*)((?:;[^;,]*)*),", re.IGNORECASE)
_SUFFIX = {"png": ".png", "jpeg": ".jpg", "gif": ".gif", "webp": ".webp", "bmp": ".bmp",
           "tiff": ".tif"}
MIME = {"png": "image/png", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
        "bmp": "image/bmp", "tiff": "image/tiff"}
_CLOUD = ("s3://", "gs://", "azure-blob://")
LS_UPLOAD = "/data/upload/"
LS_LOCAL = "/data/local-files/"


@dataclass
class Pictures:
    """The pictures a file's tasks hold: decoded data URIs and what the summary says."""

    base: Path                                   # the export file's folder
    root: Path | None = None                     # --image-root: Label Studio's files
    decoded: dict[str, bytes] = field(default_factory=dict)   # file name -> bytes
    kinds: Counter[str] = field(default_factory=Counter)
    missing_under_root: int = 0

    def optional(self, value: object, what: str) -> str:
        """The cell of a task's picture field; "" when it is absent or blank (no picture)."""
        if value is None or (isinstance(value, str) and not value.strip()):
            return ""
        return self.cell(value, what)

    def cell(self, value: object, what: str) -> str:
        """The cell to store for the picture ``value`` (raises :class:`BadValue`)."""
        if not isinstance(value, str) or not value.strip():
            raise BadValue(f"{what}: {short(value)} is not a picture (a path, a URL or a "
                           "data URI)")
        text = value.strip()
        lower = text[:20].lower()
        if lower.startswith("data:"):
            name, data = decode_data_uri(text, what)
            self.decoded.setdefault(name, data)
            self.kinds["data"] += 1
            return f"{DATA_MARK}{name}"
        if lower.startswith(("http://", "https://", "file:")):
            self.kinds["url"] += 1
            return text
        if lower.startswith(_CLOUD):
            self.kinds["cloud"] += 1
            return text
        rest = server_part(text)
        if rest is not None:
            return self._server(text, rest, what)
        path = Path(text).expanduser()
        self.kinds["path"] += 1
        return str(path if path.is_absolute() else (self.base / path).resolve())

    def _server(self, text: str, rest: str, what: str) -> str:
        """A Label Studio server path: mapped under ``--image-root``, else kept."""
        if self.root is None:
            self.kinds["server"] += 1
            return text
        local = (self.root / rest).resolve()
        if not local.is_relative_to(self.root.resolve()):
            raise BadValue(f"{what}: {text!r} points outside --image-root {self.root}")
        self.kinds["mapped"] += 1
        self.missing_under_root += not local.is_file()
        return str(local)

    def notes(self) -> list[str]:
        """One sentence per kind of picture the user should know about."""
        out = []
        if self.kinds["data"]:
            out.append(f"{self.kinds['data']} pictures were embedded (base64 data URIs): "
                       f"{len(self.decoded)} distinct files go into the project's "
                       "'.pictures' folder")
        if self.kinds["server"]:
            out.append(f"{self.kinds['server']} pictures are Label Studio server paths "
                       f"({LS_UPLOAD}… or {LS_LOCAL}?d=…) that only Label Studio can serve: "
                       "import again with --image-root DIR, DIR being Label Studio's "
                       "media/upload folder (or its local-files document root)")
        if self.missing_under_root:
            out.append(f"{self.missing_under_root} of {self.kinds['mapped']} pictures mapped "
                       f"under --image-root {self.root} are not files there")
        if self.kinds["cloud"]:
            out.append(f"{self.kinds['cloud']} pictures are cloud-storage URIs (s3://, gs://, "
                       "azure-blob://) the desk cannot fetch: give http(s) URLs or local "
                       "paths instead")
        return out


DATA_MARK = "\x00data:"   # a cell whose picture is a decoded file still to be written


def server_part(text: str) -> str | None:
    """The file part of a Label Studio server path (``1/a.jpg``), or None if it is not one."""
    if text.startswith(LS_UPLOAD):
        return unquote(text[len(LS_UPLOAD):].split("?")[0]) or None
    if text.startswith(LS_LOCAL):
        given = parse_qs(urlparse(text).query).get("d")
        return given[0].lstrip("/") if given and given[0].strip("/") else None
    return None


def decode_data_uri(text: str, what: str, limit: int = MAX_DATA_BYTES) -> tuple[str, bytes]:
    """(file name by SHA-256 and format, bytes) of a base64 picture data URI.

    Refuses (:class:`BadValue`) anything but a whole raster picture Triage shows.
    """
    head = _DATA_URI.match(text[:200])
    if head is None:
        raise BadValue(f"{what}: not a data URI (data:image/TYPE;base64,…)")
    mime = head.group(1).strip().lower()
    if "svg" in mime:
        raise BadValue(f"{what}: an SVG picture ({mime}) is refused: SVG can carry script")
    if ";base64" not in head.group(2).lower():
        raise BadValue(f"{what}: a data URI that is not base64 (no ';base64')")
    payload = text[head.end():]
    if len(payload) > (limit + 2) // 3 * 4 + 4:
        raise BadValue(f"{what}: the embedded picture is too large (about "
                       f"{len(payload) * 3 // 4:,} bytes; at most {limit:,})")
    try:
        data = base64.b64decode("".join(payload.split()), validate=True)
    except (binascii.Error, ValueError) as error:
        raise BadValue(f"{what}: the base64 data is damaged ({error})") from None
    why = pictures.problem(data[:pictures.HEADER_BYTES], data[-16:], len(data),
                           max_bytes=limit)
    if why is not None:
        raise BadValue(f"{what}: the embedded picture cannot be used: {why}")
    kind = pictures.sniff(data[:16]) or "png"
    return hashlib.sha256(data).hexdigest() + _SUFFIX[kind], data


def pictures_folder(project_file: str | Path) -> Path:
    """The folder beside a project where its embedded pictures are written."""
    project_file = Path(project_file)
    return project_file.parent / f"{project_file.name}.pictures"


def write_pictures(decoded: dict[str, bytes], folder: Path) -> list[Path]:
    """Write the files not yet in ``folder`` (each atomically); returns those written."""
    written: list[Path] = []
    if not decoded:
        return written
    folder.mkdir(parents=True, exist_ok=True)
    try:
        for name, data in decoded.items():
            target = folder / name
            if target.is_file() and target.stat().st_size == len(data):
                continue   # named by its SHA-256: the same picture is there
            fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(tmp, target)
            written.append(target)
    except OSError:
        remove(written)
        raise
    return written


def remove(paths: list[Path]) -> None:
    """Remove files this import wrote (its transaction failed), and their folder if empty."""
    for path in paths:
        path.unlink(missing_ok=True)
    if paths:   # kept when other pictures (or the desk's fetched copies) are there
        with contextlib.suppress(OSError):
            paths[0].parent.rmdir()


def as_data_uri(path: Path) -> str | None:
    """A local picture as a base64 data URI, or None when it cannot be shown."""
    if pictures.check_file(path) is not None:
        return None
    data = path.read_bytes()
    kind = pictures.sniff(data[:16])
    if kind is None:
        return None
    return f"data:{MIME[kind]};base64," + base64.b64encode(data).decode("ascii")
