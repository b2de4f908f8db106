"""``make run`` checks for Qt's xcb libraries first and prints the apt-get line."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "check_qt_libs.py"
spec = importlib.util.spec_from_file_location("check_qt_libs", SCRIPT)
check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check)

LINE = "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1"


def test_only_checked_when_a_window_would_open():
    assert check.needs_check({"DISPLAY": ":0"})
    assert not check.needs_check({"DISPLAY": ":0", "QT_QPA_PLATFORM": "offscreen"})
    assert not check.needs_check({})


def test_a_missing_library_prints_the_install_line(capsys):
    assert check.main({"DISPLAY": ":0"}, find=lambda name: None if name == "xcb-cursor"
                      else f"lib{name}.so") == 1
    err = capsys.readouterr().err
    assert "libxcb-cursor0 is missing" in err and LINE in err
    assert check.main({"DISPLAY": ":0"}, find=lambda name: f"lib{name}.so") == 0
    assert check.main({}, find=lambda name: None) == 0
    assert capsys.readouterr().err == ""


def test_the_readme_gives_the_same_line():
    readme = (SCRIPT.parent.parent / "README.md").read_text(encoding="utf-8")
    assert LINE in readme
