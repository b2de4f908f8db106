"""Thumbnails without Qt (the report's and the gallery's): hostile files give reasons, the
EXIF orientation is applied, Pillow's own pixel limit holds where the header says nothing,
and a URL is read only from the desk's fetch cache."""

from __future__ import annotations

import pytest

from tests.picture_files import (
    BLUE,
    RED,
    bomb_png,
    png,
    rotated_jpeg,
    serve_folder,
    svg,
    truncated_png,
)
from triage.base.pictures import PictureRef, resolve
from triage.views.thumbnails import (
    cached_file,
    jpeg_bytes,
    local_file,
    report_thumbnail,
    thumbnail,
    url_cache_folder,
)


def near(got, want, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(got, want, strict=True))


def test_a_picture_is_fitted_and_turned_as_its_exif_says(tmp_path):
    made = thumbnail(resolve("turned.jpg", rotated_jpeg(tmp_path / "turned.jpg").parent),
                     tmp_path, 30)
    assert not isinstance(made, str)
    assert made.size == (10, 30) and made.mode == "RGB"        # 60 x 20, turned, fitted
    assert near(made.getpixel((5, 3)), RED) and near(made.getpixel((5, 27)), BLUE)
    big = thumbnail(PictureRef("x", path=png(tmp_path / "wide.png", BLUE, (400, 100))),
                    tmp_path, 96)
    assert not isinstance(big, str) and big.size == (96, 24)
    assert jpeg_bytes(big).startswith(b"\xff\xd8\xff")


@pytest.mark.parametrize(("make", "reason"), [
    (lambda p: truncated_png(p / "cut.png"), "cut short"),
    (lambda p: p / "gone.png", "does not exist"),
    (lambda p: bomb_png(p / "bomb.png"), "too large to decode safely"),
    (lambda p: svg(p / "script.png"), "not a picture Triage shows"),
])
def test_hostile_files_give_a_reason_never_an_exception(tmp_path, make, reason):
    made = thumbnail(PictureRef("x", path=make(tmp_path)), tmp_path, 96)
    assert isinstance(made, str) and reason in made
    shown = report_thumbnail(PictureRef("x", path=make(tmp_path)), tmp_path)
    assert shown.jpeg is None and reason in shown.reason


def test_pillows_pixel_limit_holds_where_the_header_says_nothing(tmp_path):
    from PIL import Image

    # A TIFF's size is not read by the header check; a 1-bit 8000 x 7000 page compresses
    # to a few kilobytes but would decode to 56 million pixels.
    path = tmp_path / "big.tif"
    Image.new("1", (8000, 7000)).save(path, compression="group4")
    assert path.stat().st_size < 100_000
    made = thumbnail(PictureRef("x", path=path), tmp_path, 96)
    assert isinstance(made, str) and "too large to decode safely" in made


def test_a_damaged_body_behind_a_good_header_is_a_reason(tmp_path):
    path = png(tmp_path / "ok.png", RED, (64, 64))
    data = bytearray(path.read_bytes())
    data[60:80] = b"\x00" * 20                 # inside the image data; the ends are whole
    path.write_bytes(bytes(data))
    made = thumbnail(PictureRef("x", path=path), tmp_path, 96)
    assert isinstance(made, str) and "cannot be decoded" in made


@pytest.fixture
def server(tmp_path):
    (tmp_path / "www").mkdir()
    png(tmp_path / "www" / "red.png", RED)
    with serve_folder(tmp_path / "www") as url:
        yield url


def test_a_url_is_read_from_the_desks_cache_and_never_fetched(tmp_path, server):
    from ui.desk_pictures import cache_folder
    from ui.picture_loader import fetch

    location = str(tmp_path / "p.triage")
    cache = url_cache_folder(location)
    assert cache == cache_folder(location)          # the desk's rule, not a second one
    ref = resolve(f"{server}/red.png", None)
    assert local_file(ref, cache) == "a URL not fetched yet (the desk fetches it)"
    assert thumbnail(ref, cache, 32) == "a URL not fetched yet (the desk fetches it)"
    assert not cache.exists()                        # nothing was fetched
    fetched = fetch(ref.url, cache)                  # what the desk does
    assert fetched == cached_file(ref.url, cache)
    made = thumbnail(ref, cache, 32)
    assert not isinstance(made, str) and near(made.getpixel((5, 5)), RED)
