"""Starting the application: which project opens, the screenshot command, the dialog."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QDialogButtonBox

from triage.base.errors import TriageError
from triage.project import open_project
from triage.views.advice import DECISION_BADGE
from ui.analysis._text import ROLE_COLOURS
from ui.annotator_dialog import AnnotatorDialog
from ui.app import build_parser, build_window, choose_project, open_early, simulate_labels
from ui.prefs import Prefs, data_dir

ROOT = Path(__file__).resolve().parent.parent


def test_first_run_opens_the_demo_then_the_last_project(tmp_path):
    prefs = Prefs()
    demo = choose_project(build_parser().parse_args([]), prefs)
    assert demo == data_dir() / "demo.triage" and demo.is_file()
    other = tmp_path / "other.triage"
    other.write_bytes(demo.read_bytes())
    prefs.add_recent(other)
    assert choose_project(build_parser().parse_args([]), prefs) == other.resolve()
    assert choose_project(build_parser().parse_args(["--demo"]), prefs) == demo
    assert choose_project(build_parser().parse_args([str(demo)]), prefs) == demo
    other.unlink()  # a vanished last project falls back to the demo
    assert choose_project(build_parser().parse_args([]), prefs) == demo


def test_the_project_named_on_the_command_line_opens_beside_qt(qtbot, tmp_path):
    demo = choose_project(build_parser().parse_args(["--demo"]), Prefs())
    path = tmp_path / "p.triage"
    path.write_bytes(demo.read_bytes())
    assert open_early(build_parser().parse_args([])) is None          # the last or the demo
    assert open_early(build_parser().parse_args([str(tmp_path / "none.triage")])) is None
    args = build_parser().parse_args([str(path), "--annotator", "ada"])
    early = open_early(args)
    assert early is not None
    window = build_window(args, Prefs(), early)
    qtbot.addWidget(window)
    assert window.project.path.resolve() == path.resolve()
    served = window.desk.current.candidate_id
    with sqlite3.connect(path) as conn:  # the candidate is claimed for ada in the file
        claims = conn.execute(
            "SELECT count(*) FROM claims c JOIN sessions s ON s.id = c.session_id "
            "JOIN annotators a ON a.id = s.annotator_id "
            "WHERE a.name = 'ada' AND c.candidate_id = ?", [served]).fetchone()[0]
    window.close()
    assert claims == 1
    bad = tmp_path / "bad.triage"
    bad.write_text("not a project")
    early = open_early(build_parser().parse_args([str(bad)]))
    with pytest.raises(TriageError, match="not a Triage project"):
        early.take()


def test_simulate_tops_up_to_n_events(tmp_path):
    path = choose_project(build_parser().parse_args(["--demo"]), Prefs())
    assert simulate_labels(path, 30) == 30
    assert simulate_labels(path, 30) == 0  # a rerun does not pile up labels
    assert simulate_labels(path, 45) == 15
    with open_project(path) as project:
        assert project.snapshot().events == 45


def test_annotator_dialog_prefills_and_needs_a_name(qtbot):
    dialog = AnnotatorDialog("demo.triage", "ada")
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert dialog.name() == "ada" and ok.isEnabled()
    dialog.name_edit.clear()
    assert not ok.isEnabled()
    qtbot.keyClicks(dialog.name_edit, "  bob ")
    assert dialog.name() == "bob" and ok.isEnabled()


@pytest.mark.slow
def test_screenshot_command_renders_the_window(tmp_path):
    png = tmp_path / "shot.png"
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen",
           "TRIAGE_DATA_DIR": str(tmp_path / "data"), "TRIAGE_CONFIG_DIR": str(tmp_path / "cfg")}
    done = subprocess.run(
        [sys.executable, "main.py", "--demo", "--simulate", "200", "--screenshot", str(png)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    image = QImage(str(png))
    assert not image.isNull()
    assert image.width() >= 1000 and image.height() >= 600
    small = image.scaled(200, 120).convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(small.constBits(), dtype=np.uint32)[: 200 * 120]
    assert len(np.unique(pixels)) > 20  # text, charts, buttons: not a blank window
    with open_project(tmp_path / "data" / "demo.triage") as project:
        assert project.snapshot().events == 200
    # The picture waits for the advice instead of "NO ADVICE"...
    shown = [line for line in done.stdout.splitlines() if line.startswith("advice shown:")]
    assert len(shown) == 1 and "NO ADVICE" not in shown[0], done.stdout
    assert any(badge in shown[0] for badge in DECISION_BADGE.values()), shown
    # ...and the banner in the picture wears the decision's colour, not the grey of none.
    top_left = image.copy(0, 0, 40, 120).convertToFormat(QImage.Format.Format_RGB32)
    colours = {top_left.pixelColor(x, y).name() for x in range(40) for y in range(120)}
    assert colours & {ROLE_COLOURS[r][1].lower() for r in ("go", "stop", "pause")}, colours


def test_a_missing_project_argument_is_an_error(tmp_path, capsys):
    from ui.app import run_gui

    code = run_gui([str(tmp_path / "nope.triage"), "--annotator", "x",
                    "--screenshot", str(tmp_path / "s.png")])
    assert code == 2
    assert "nope.triage does not exist" in capsys.readouterr().err
    assert not (tmp_path / "s.png").exists()
