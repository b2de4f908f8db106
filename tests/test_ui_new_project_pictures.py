"""A pool of pictures with no text, made from the new-project dialog as a user does it: the
file's path typed in, the image column guessed and previewed (pixels of the thumbnails, a
placeholder that says why), Create clicked, the annotator's name typed, then the desk
shows the first picture (its pixels), a label key labels it and the next picture comes."""

from __future__ import annotations

import csv
import sqlite3

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QLineEdit

from tests.picture_files import BLUE, RED, halves_png, png
from ui.annotator_dialog import AnnotatorDialog
from ui.dialogs.new_project_pictures import NO_TEXT, THUMB
from ui.main_window import MainWindow
from ui.prefs import Prefs


def colour(image: QImage, x: float, y: float) -> tuple[int, int, int]:
    """The colour at logical (x, y) of a grabbed image (device pixels on a HiDPI screen)."""
    ratio = image.devicePixelRatio()
    c = image.pixelColor(int(x * ratio), int(y * ratio))
    return c.red(), c.green(), c.blue()


def near(got, want, tol=40):
    return all(abs(a - b) <= tol for a, b in zip(got, want, strict=True))


def picture_pool_csv(folder):
    """key,image,score: red|blue halves (top score), a blue JPEG, a missing file, red."""
    (folder / "img").mkdir(parents=True)
    halves_png(folder / "img" / "halves.png", (80, 60))
    png(folder / "img" / "red.png", RED)
    from PIL import Image

    Image.new("RGB", (64, 48), BLUE).save(folder / "img" / "blue.jpg", quality=95)
    with open(folder / "pool.csv", "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["key", "image", "score"])
        out.writerows([["a1", "img/halves.png", "0.9"], ["a2", "img/blue.jpg", "0.8"],
                       ["a3", "img/gone.png", "0.7"], ["a4", "img/red.png", "0.6"]])
    return folder / "pool.csv"


def answer_the_annotator_question(qtbot, name):
    """Type ``name`` into the modal "who is annotating" dialog once it shows."""
    def look():
        dialog = QApplication.activeModalWidget()
        if isinstance(dialog, AnnotatorDialog):
            timer.stop()
            edit = dialog.findChild(QLineEdit)
            edit.clear()
            qtbot.keyClicks(edit, name)
            qtbot.keyClick(edit, Qt.Key.Key_Return)
    timer = QTimer()
    timer.timeout.connect(look)
    timer.start(50)
    return timer


@pytest.mark.slow  # the import, the main window and its panels: 6-7 s
def test_a_picture_pool_from_the_dialog_to_the_desk(qtbot, tmp_path):
    pool = picture_pool_csv(tmp_path / "data")
    window = MainWindow(Prefs())
    qtbot.addWidget(window)
    window.resize(1000, 700)
    window.show()
    qtbot.waitExposed(window)
    window.new_project()                                  # File ▸ New project…
    dialog = window.new_project_dialog
    qtbot.keyClicks(dialog.source, str(pool))
    qtbot.keyClick(dialog.source, Qt.Key.Key_Return)      # the path typed, as a user does
    qtbot.waitUntil(lambda: dialog.reader is None, timeout=30000)   # read in the background
    # Enter in the path reads the file; it does not create the project from unseen guesses.
    assert dialog.isVisible() and dialog.worker is None and window.project is None
    part = dialog.pictures
    assert part.combo.currentText() == "image"            # guessed from the extensions
    assert dialog.text_combo.currentText() == NO_TEXT     # no text: pictures only
    assert dialog.key_combo.currentText() == "key"
    assert dialog.mapping().scores == (("score", "score"),)
    assert len(part.previews) == 4
    qtbot.waitUntil(lambda: part.thumbs[0].image is not None
                    and part.thumbs[1].image is not None
                    and part.thumbs[2].picture.text().startswith("Cannot"), timeout=10000)
    halves = part.thumbs[0].picture.grab().toImage()      # what the thumbnail shows
    assert halves.width() == round(THUMB * part.thumbs[0].picture.devicePixelRatioF())
    assert near(colour(halves, THUMB / 2 - 10, THUMB / 2), RED)
    assert near(colour(halves, THUMB / 2 + 10, THUMB / 2), BLUE)
    blue = part.thumbs[1].image
    assert near(blue.pixelColor(blue.width() // 2, blue.height() // 2).getRgb()[:3], BLUE)
    assert "does not exist" in part.thumbs[2].picture.text()
    assert part.thumbs[0].name.text() == "img/halves.png"
    timer = answer_the_annotator_question(qtbot, "ada")
    with qtbot.waitSignal(dialog.accepted, timeout=20000):
        qtbot.mouseClick(dialog.create_button, Qt.MouseButton.LeftButton)
    target = tmp_path / "data" / "pool.triage"
    qtbot.waitUntil(lambda: window.project is not None and window.project.path == target,
                    timeout=10000)
    timer.stop()
    desk = window.desk
    view = desk.pictures.picture.view
    qtbot.waitUntil(lambda: view.image is not None, timeout=10000)
    assert not desk.text.isVisible() and desk.pictures.picture.caption.isHidden()
    rect, shown = view.target(), view.grab().toImage()
    assert min(abs(rect.width() - view.width()), abs(rect.height() - view.height())) <= 1
    assert rect.width() > 80                              # enlarged to fit the pane
    y = rect.center().y()
    assert near(colour(shown, rect.left() + rect.width() / 4, y), RED)
    assert near(colour(shown, rect.right() - rect.width() / 4, y), BLUE)
    label = desk.project.settings.labels[0]
    qtbot.keyClick(desk, label.key)                       # labelled from the keyboard
    qtbot.waitUntil(lambda: view.image is not None and near(
        colour(view.grab().toImage(), view.width() / 2, view.height() / 2), BLUE),
        timeout=10000)
    with sqlite3.connect(target) as db:
        rows = db.execute("SELECT c.key, l.value, a.name FROM labels l JOIN candidates c"
                          " ON c.id = l.candidate_id JOIN annotators a ON a.id = l.annotator_id"
                          ).fetchall()
        texts = [r[0] for r in db.execute("SELECT text FROM candidates ORDER BY id")]
    assert rows == [("a1", label.value, "ada")]
    assert texts == ["img/halves.png", "img/blue.jpg", "img/gone.png", "img/red.png"]
    window.close()
