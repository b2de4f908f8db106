"""Crafted picture files for the picture tests: plain colours, and the hostile ones
(truncated, missing, a header claiming 100000 x 100000 pixels, EXIF-rotated, SVG)."""

from __future__ import annotations

import contextlib
import csv
import http.server
import struct
import threading
import zlib
from collections.abc import Iterator
from functools import partial
from pathlib import Path

RED, BLUE = (255, 0, 0), (0, 0, 255)


def png(path: Path, colour: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> Path:
    """A plain PNG of one colour."""
    from PIL import Image

    Image.new("RGB", size, colour).save(path)
    return path


def halves_png(path: Path, size: tuple[int, int] = (80, 60)) -> Path:
    """Left half red, right half blue: where each colour lands shows the picture's placement."""
    from PIL import Image

    image = Image.new("RGB", size, RED)
    image.paste(Image.new("RGB", (size[0] // 2, size[1]), BLUE), (size[0] // 2, 0))
    image.save(path)
    return path


def truncated_png(path: Path) -> Path:
    """A PNG cut off in the middle of its image data."""
    from PIL import Image

    full = path.with_suffix(".full.png")
    Image.effect_noise((64, 64), 60).convert("RGB").save(full)
    data = full.read_bytes()
    full.unlink()
    path.write_bytes(data[: len(data) // 2])
    return path


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def bomb_png(path: Path, side: int = 100_000) -> Path:
    """A small, well-formed PNG whose header claims side x side pixels (a decompression bomb)."""
    ihdr = struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 1024)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat)
                     + _chunk(b"IEND", b""))
    return path


def rotated_jpeg(path: Path) -> Path:
    """A 60 x 20 JPEG, left half red, right half blue, with EXIF orientation 6 (shown
    rotated 90 degrees clockwise: 20 wide, 60 tall, red on top, blue below)."""
    from PIL import Image

    image = Image.new("RGB", (60, 20), RED)
    image.paste(Image.new("RGB", (30, 20), BLUE), (30, 0))
    exif = Image.Exif()
    exif[0x0112] = 6
    image.save(path, quality=95, exif=exif.tobytes())
    return path


def svg(path: Path) -> Path:
    """An SVG with a script: never shown, whatever its name says."""
    path.write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script>'
                    '<rect width="10" height="10" fill="red"/></svg>')
    return path


def picture_pool(folder: Path, *, hostile: bool = True) -> Path:
    """pool.csv in ``folder``: red (top score), blue, then the hostile files; paths relative."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "img").mkdir(exist_ok=True)
    rows = [("img/red.png", png(folder / "img/red.png", RED)),
            ("img/blue.png", png(folder / "img/blue.png", BLUE))]
    if hostile:
        rows += [("img/cut.png", truncated_png(folder / "img/cut.png")),
                 ("img/gone.png", None),
                 ("img/bomb.png", bomb_png(folder / "img/bomb.png")),
                 ("img/turned.jpg", rotated_jpeg(folder / "img/turned.jpg")),
                 ("img/script.png", svg(folder / "img/script.png"))]
    target = folder / "pool.csv"
    with open(target, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["picture", "score"])
        for i, (cell, _made) in enumerate(rows):
            out.writerow([cell, f"{1 - i / 10:.2f}"])
    return target


@contextlib.contextmanager
def serve_folder(folder: Path) -> Iterator[str]:
    """Serve ``folder`` over HTTP on a free local port; yields the base URL."""
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
