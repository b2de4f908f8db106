"""The desk on a pool of pictures: a project made by `triage new --image` (no text), the
shown pixels checked, labels from the keyboard, past every hostile file; a URL fetched
from a local server; zoom with the text-size keys."""

from __future__ import annotations

import http.server
import sqlite3
import threading

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from tests.picture_files import BLUE, RED, halves_png, picture_pool, png, serve_folder
from tests.qt_helpers import open_main_window
from tests.test_cli_core import triage
from ui.picture_loader import PictureLoader, decode, fetch, key_of

LABELS = ("--labels", "defect:d,fine:f", "--positive", "defect", "--overlap-rate", "0",
          "--audit-rate", "0")


def shown(window) -> QImage:
    return window.desk.pictures.picture.view.grab().toImage()


def colour_at(image: QImage, fx: float, fy: float) -> tuple[int, int, int]:
    c = image.pixelColor(int(image.width() * fx), int(image.height() * fy))
    return c.red(), c.green(), c.blue()


def near(got, want, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(got, want, strict=True))


def wait_picture(qtbot, window):
    qtbot.waitUntil(lambda: window.desk.pictures.picture.view.image is not None
                    or window.desk.pictures.picture.reason.startswith("This picture"), timeout=10000)


def labels(path):
    with sqlite3.connect(path) as db:
        return db.execute("SELECT c.text, l.value FROM labels l JOIN candidates c "
                          "ON c.id = l.candidate_id ORDER BY l.id").fetchall()


@pytest.fixture
def picture_project(tmp_path):
    pool = picture_pool(tmp_path / "data")
    out = triage("new", tmp_path / "p.triage", pool, "--image", "picture",
                 "--score", "m=score", *LABELS)
    assert out.returncode == 0, out.stderr
    return tmp_path / "p.triage"


def test_pictures_at_the_desk_pixels_keys_and_hostile_files(qtbot, picture_project):
    window = open_main_window(qtbot, picture_project, "ada")
    desk = window.desk
    assert desk.pictures.picture is not None and desk.pictures.picture.isVisible() and not desk.text.isVisible()
    wait_picture(qtbot, window)
    image = shown(window)
    assert near(colour_at(image, 0.5, 0.5), RED)          # the top-ranked picture is red
    qtbot.keyClick(desk, "d")
    wait_picture(qtbot, window)
    assert near(colour_at(shown(window), 0.5, 0.5), BLUE)
    qtbot.keyClick(desk, "f")
    reasons = []
    for key in ("d", "s", "f"):                          # cut, gone, bomb: label, skip, label
        wait_picture(qtbot, window)
        reasons.append(desk.pictures.picture.reason)
        qtbot.keyClick(desk, key)
    assert "cut short" in reasons[0] and "does not exist" in reasons[1]
    assert "too large to decode safely" in reasons[2]
    wait_picture(qtbot, window)                          # EXIF orientation 6: turned upright
    view = desk.pictures.picture.view
    assert view.image.height() > view.image.width()
    rect, grabbed = view.target(), shown(window)
    top = colour_at(grabbed, (rect.center().x()) / view.width(), (rect.top() + 5) / view.height())
    bottom = colour_at(grabbed, rect.center().x() / view.width(),
                       (rect.bottom() - 5) / view.height())
    assert near(top, RED) and near(bottom, BLUE)
    qtbot.keyClick(desk, "f")
    wait_picture(qtbot, window)
    assert "not a picture Triage shows" in desk.pictures.picture.reason   # the SVG named .png
    qtbot.keyClick(desk, "d")
    assert [v for _t, v in labels(picture_project)] == ["defect", "fine", "defect", None,
                                                        "fine", "fine", "defect"]
    assert desk.pictures.picture.not_shown == 4
    window.close()


def test_zoom_keys_and_fit(qtbot, tmp_path):
    from triage.ingest.importer import ColumnMapping
    from triage.project import create_project
    from triage.store.settings import Settings

    pool = picture_pool(tmp_path / "data", hostile=False)
    project = create_project(tmp_path / "z.triage", Settings())  # in process: quicker
    project.import_file(pool, ColumnMapping(text="", scores=(("m", "score"),), image="picture"))
    project.close()
    window = open_main_window(qtbot, tmp_path / "z.triage", "ada")
    wait_picture(qtbot, window)
    view = window.desk.pictures.picture.view
    fitted = view.target()
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom > 1.0 and view.target().width() > fitted.width()
    qtbot.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
    assert view.zoom == 1.0 and view.target() == fitted
    window.close()


def test_sharp_on_a_2x_screen_and_placed_by_halves(qtbot, tmp_path):
    loader = PictureLoader(tmp_path)
    image = decode(halves_png(tmp_path / "h.png", (400, 100)))
    assert isinstance(image, QImage)
    from ui.candidate_picture import PictureView

    view = PictureView()
    qtbot.addWidget(view)
    view.resize(200, 200)
    view.set_image(image)
    rect = view.target()
    assert (rect.width(), rect.height()) == (200, 50)      # fitted, aspect kept
    scaled = view._device_image(rect)
    dpr = view.devicePixelRatioF()
    assert scaled.width() == round(200 * dpr)              # device pixels, not logical
    grabbed = view.grab().toImage()
    assert near(colour_at(grabbed, 0.25, 0.5), RED) and near(colour_at(grabbed, 0.75, 0.5), BLUE)
    assert loader.cached_bytes == 0
    view.devicePixelRatioF = lambda: 2.0          # a 2x screen: twice the pixels, same size
    view._scaled = None
    sharp = view._device_image(rect)
    assert (sharp.width(), sharp.height()) == (400, 100) and sharp.devicePixelRatio() == 2.0


def test_a_cache_bounded_in_bytes(qtbot, tmp_path):
    loader = PictureLoader(tmp_path, limit=3 * 100 * 100 * 4)
    from triage.base.pictures import resolve

    refs = [resolve(str(png(tmp_path / f"{i}.png", RED, (100, 100))), None) for i in range(6)]
    for ref in refs:
        loader.request(ref)
    qtbot.waitUntil(lambda: not loader._pending, timeout=10000)
    assert loader.cached_bytes == 3 * 100 * 100 * 4   # three kept of six decoded
    assert sum(loader.get(key_of(r)) is not None for r in refs) == 3


@pytest.fixture
def server(tmp_path):
    (tmp_path / "www").mkdir()
    png(tmp_path / "www" / "red.png", RED)
    (tmp_path / "www" / "big.bin").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 5000)
    with serve_folder(tmp_path / "www") as url:
        yield url


def test_urls_are_fetched_off_the_gui_thread_with_a_size_limit(qtbot, tmp_path, server):
    got = fetch(f"{server}/red.png", tmp_path / "cache")
    assert got.parent == tmp_path / "cache" and decode(got).pixelColor(1, 1).red() == 255
    with pytest.raises(OSError, match="too large"):
        fetch(f"{server}/big.bin", tmp_path / "cache", limit=1000)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == [got.name]  # no .part
    pool = tmp_path / "pool.csv"
    pool.write_text(f"picture,caption,score\n{server}/red.png,a red one,0.9\n"
                    f"{server}/nothing.png,gone,0.5\n")
    out = triage("new", tmp_path / "u.triage", pool, "--image", "picture", "--text", "caption",
                 "--score", "m=score", *LABELS)
    assert out.returncode == 0, out.stderr
    window = open_main_window(qtbot, tmp_path / "u.triage", "ada")
    wait_picture(qtbot, window)
    assert near(colour_at(shown(window), 0.5, 0.5), RED)
    assert window.desk.pictures.picture.caption.text() == "a red one"
    assert (tmp_path / "u.triage.pictures").is_dir()
    qtbot.keyClick(window.desk, "f")
    wait_picture(qtbot, window)
    assert "could not be fetched" in window.desk.pictures.picture.reason
    window.close()


def test_qt_allocation_limit_stops_a_bomb_the_header_check_missed(tmp_path, monkeypatch):
    from PySide6.QtGui import QImageReader

    import ui.picture_loader as loader_module
    from tests.picture_files import bomb_png

    PictureLoader(tmp_path)  # sets the limit
    assert QImageReader.allocationLimit() == loader_module.ALLOCATION_MB
    monkeypatch.setattr(loader_module, "check_file", lambda _path: None)
    result = decode(bomb_png(tmp_path / "b.png", side=40_000))
    assert isinstance(result, str) and "cannot be decoded" in result


@pytest.mark.slow
def test_a_second_picture_project_shows_its_own_pictures(qtbot, tmp_path):
    """Two pools both say img/red.png, of different folders: the second window's desk must
    not show the first one's cached picture."""
    for name, colour in (("a", RED), ("b", BLUE)):
        (tmp_path / name / "img").mkdir(parents=True)
        png(tmp_path / name / "img" / "red.png", colour)
        (tmp_path / name / "pool.csv").write_text("picture,score\nimg/red.png,0.9\n")
        assert triage("new", tmp_path / name / "p.triage", tmp_path / name / "pool.csv",
                      "--image", "picture", "--score", "m=score", *LABELS).returncode == 0
    window = open_main_window(qtbot, tmp_path / "a" / "p.triage", "ada")
    wait_picture(qtbot, window)
    assert near(colour_at(shown(window), 0.5, 0.5), RED)
    window.open_project(tmp_path / "b" / "p.triage", "ada")
    qtbot.waitUntil(lambda: window.desk.pictures.picture.view.image is not None
                    and near(colour_at(shown(window), 0.5, 0.5), BLUE), timeout=10000)
    window.close()


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF"])
def test_every_shown_format_decodes_by_its_content(tmp_path, fmt):
    from PIL import Image

    path = tmp_path / "picture.bin"   # the name says nothing: the first bytes decide
    Image.new("RGB", (30, 20), RED).save(path, format=fmt)
    image = decode(path)
    assert isinstance(image, QImage) and (image.width(), image.height()) == (30, 20)
    assert near(colour_at(image, 0.5, 0.5), RED)


def test_a_redirect_to_a_file_address_is_not_followed(tmp_path):
    class Redirect(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            self.send_response(302)
            self.send_header("Location", f"file://{tmp_path}/secret.png")
            self.end_headers()

        def log_message(self, *_args):
            pass

    png(tmp_path / "secret.png", RED)
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Redirect)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        with pytest.raises(OSError, match="not allowed|redirects to"):
            fetch(f"http://127.0.0.1:{httpd.server_address[1]}/x.png", tmp_path / "cache")
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_mouse_wheel_zooms_and_a_drag_pans(qtbot, tmp_path):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent

    from ui.candidate_picture import PictureView

    view = PictureView()
    qtbot.addWidget(view)
    view.resize(200, 200)
    view.show()
    view.set_image(decode(halves_png(tmp_path / "h.png", (100, 100))))
    wheel = QWheelEvent(QPointF(100, 100), QPointF(100, 100), QPoint(0, 0), QPoint(0, 240),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(view, wheel)
    assert view.zoom == pytest.approx(1.25 ** 2)
    before = view.target()
    qtbot.mousePress(view, Qt.MouseButton.LeftButton, pos=QPoint(100, 100))
    qtbot.mouseMove(view, QPoint(60, 90))
    qtbot.mouseRelease(view, Qt.MouseButton.LeftButton, pos=QPoint(60, 90))
    moved = view.target()
    assert (moved.x() - before.x(), moved.y() - before.y()) == (-40, -10)
    view.fit()
    assert view.zoom == 1.0 and view.target().x() == 0


def test_decoded_to_fit_exif_turn_included(tmp_path):
    from PIL import Image
    from PySide6.QtCore import QSize

    from tests.picture_files import rotated_jpeg

    Image.new("RGB", (400, 300), RED).save(tmp_path / "big.jpg", quality=90)
    fitted = decode(tmp_path / "big.jpg", QSize(100, 100))
    assert (fitted.width(), fitted.height()) == (100, 75)           # aspect kept
    small = decode(tmp_path / "big.jpg", QSize(800, 800))
    assert (small.width(), small.height()) == (400, 300)            # never enlarged
    turned = decode(rotated_jpeg(tmp_path / "t.jpg"), QSize(10, 100))  # shown 20 x 60
    assert (turned.width(), turned.height()) == (10, 30)
    assert near(colour_at(turned, 0.5, 0.15), RED) and near(colour_at(turned, 0.5, 0.85), BLUE)


def test_a_fitted_loader_waits_for_its_target_and_decodes_again_for_a_new_one(qtbot, tmp_path):
    from PySide6.QtCore import QSize

    from triage.base.pictures import resolve

    ref = resolve(str(png(tmp_path / "r.png", RED, (400, 200))), None)
    loader = PictureLoader(tmp_path, fitted=True)
    loader.request(ref)
    qtbot.wait(100)
    assert loader.get(key_of(ref)) is None and not loader.busy       # no size to fit yet
    with qtbot.waitSignal(loader.ready, timeout=10000):
        loader.set_target(QSize(100, 100), 2.0)
    image = loader.get(key_of(ref))
    assert (image.width(), image.height(), image.devicePixelRatio()) == (100, 50, 2.0)
    loader.request(ref)
    assert not loader.busy                                           # cached for this size
    loader.set_target(QSize(200, 200), 2.0)
    with qtbot.waitSignal(loader.ready, timeout=10000):
        loader.request(ref)
    assert loader.get(key_of(ref)).width() == 200
    assert loader.cached_bytes == 200 * 100 * 4                      # replaced, counted once


def test_the_desk_decodes_to_the_pane_and_zoom_decodes_the_whole_picture(qtbot, tmp_path):
    (tmp_path / "img").mkdir()
    halves_png(tmp_path / "img" / "big.png", (2400, 1200))
    (tmp_path / "pool.csv").write_text("picture,score\nimg/big.png,0.9\n")
    assert triage("new", tmp_path / "p.triage", tmp_path / "pool.csv", "--image", "picture",
                  "--score", "m=score", *LABELS).returncode == 0
    window = open_main_window(qtbot, tmp_path / "p.triage", "ada")
    picture = window.desk.pictures.picture
    view = picture.view
    qtbot.waitUntil(lambda: fills_the_pane(view), timeout=10000)
    assert view.image.width() < 2400 and view.detail is None         # the pane's pixels only
    assert view.image.devicePixelRatio() == view.devicePixelRatioF()
    grabbed = shown(window)
    rect = view.target()
    y = rect.center().y() / view.height()
    assert near(colour_at(grabbed, (rect.left() + 10) / view.width(), y), RED)
    assert near(colour_at(grabbed, (rect.right() - 10) / view.width(), y), BLUE)
    qtbot.keyClick(window, Qt.Key.Key_Equal, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: view.detail is not None, timeout=10000)  # decoded whole, on demand
    assert (view.detail.width(), view.detail.height()) == (2400, 1200)
    window.close()


def fills_the_pane(view) -> bool:
    """The picture has one side of the pane's device pixels, the other within (2 px)."""
    if view.image is None:
        return False
    dw = view.device_size().width() - view.image.width()
    dh = view.device_size().height() - view.image.height()
    return dw >= -2 and dh >= -2 and min(abs(dw), abs(dh)) <= 2


def test_a_resized_pane_gets_its_picture_decoded_again(qtbot, tmp_path):
    from triage.base.pictures import resolve
    from ui.candidate_picture import CandidatePicture

    picture = CandidatePicture(tmp_path / "cache")
    qtbot.addWidget(picture)
    picture.resize(400, 300)
    picture.show()
    qtbot.waitExposed(picture)
    picture.show_picture(resolve(str(halves_png(tmp_path / "h.png", (2400, 1200))), None), "")
    view = picture.view
    qtbot.waitUntil(lambda: fills_the_pane(view), timeout=10000)
    before = view.image.width()
    view.zoom_by(1)
    picture.resize(300, 200)
    qtbot.waitUntil(lambda: view.image.width() < before and fills_the_pane(view),
                    timeout=10000)
    assert view.zoom > 1.0                                           # still zoomed in
