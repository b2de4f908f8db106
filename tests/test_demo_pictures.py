"""The picture demo: 400 UCI handwritten digits with real held-out scores, "is it a 3?";
it opens from `--demo-pictures` and from File ▸ New demo project ▸ Pictures."""

from __future__ import annotations

import csv

import pytest

from tests.qt_helpers import open_main_window
from triage.project.demo import PICTURE_CSV, create_picture_demo, ensure_picture_demo
from triage.project.pictures import check_pictures, picture_source
from ui.app import build_parser, choose_project
from ui.prefs import Prefs, data_dir


@pytest.fixture
def demo(tmp_path):
    project = create_picture_demo(tmp_path / "d.triage")
    yield project
    project.close()


def test_the_picture_demo_holds_real_scores_gold_and_every_picture(demo):
    with PICTURE_CSV.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert demo.pool == len(rows) == 400
    assert sum(r["gold"] == "three" for r in rows) == 40
    assert [m.name for m in demo.models] == ["logistic", "coarse"]
    first = demo.upcoming(1)[0]
    assert first.meta == {}                     # the digit column would give the answer away
    gold = {r["key"]: r["gold"] for r in rows}
    assert gold[first.key] == "three"           # a real classifier puts a 3 on top
    source = picture_source(demo.db, demo.location)
    assert source is not None and check_pictures(demo.db, source).not_shown == 0
    assert (PICTURE_CSV.parent / "README.md").read_text().count("CC BY 4.0") >= 1


def test_demo_pictures_flag_and_menu(qtbot):
    path = choose_project(build_parser().parse_args(["--demo-pictures"]), Prefs())
    assert path == data_dir() / "demo-pictures.triage" and path.is_file()
    assert ensure_picture_demo(data_dir()) == path
    window = open_main_window(qtbot, path, "ada")
    qtbot.waitUntil(lambda: window.desk.pictures.picture.view.image is not None, timeout=10000)
    image = window.desk.pictures.picture.view.image
    assert (image.width(), image.height()) == (64, 64)
    file_menu = window.menuBar().actions()[0].menu()
    demo_menu = next(a.menu() for a in file_menu.actions() if a.text() == "New demo project")
    assert [a.text() for a in demo_menu.actions()] == ["Text (idioms)",
                                                      "Pictures (handwritten digits)"]
    window.close()
