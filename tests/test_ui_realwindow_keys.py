"""The desk's keys, every dialog and every lead tab in a real X11 window (Xvfb, openbox, xcb).

Each test runs scripts/realwindow_keys.py in a subprocess at one scale and screen size (a
second run restores what the first saved) and checks its report:

- every key button (each label, skip, undo, note) is whole and visible on the screen
  (its visible region is all of it: not scrolled away, clipped or off the screen) and no
  other widget is drawn over it; after the window is resized and enlarged again too;
- every dialog (New project, also after a file-type error; Settings; Export; Help) and
  every lead tab lies inside the screen's available area with its buttons whole;
- no lead tab needs a scroll bar round the tabs (charts scroll inside their own tab).

Without Xvfb and openbox the tests skip and say why (see tests/test_ui_realwindow.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "scripts" / "realwindow_keys.py"

pytestmark = pytest.mark.slow
LEAD_TABS = {"Overview", "Advice", "Agreement", "Adjudication", "Guidelines", "Models",
             "Gallery", "Data"}
LEAD_DIALOGS = {"Export report dialog", "Save chart dialog"}
DESK_DIALOGS = {"New project", "New project after an error", "Open project", "Settings",
                "Export", "Switch annotator", "Help", "Find"}


def _display(screen: str):
    from scripts.realwindow_probe import virtual_display

    try:
        with virtual_display(screen) as name:
            yield name
    except SystemExit as why:
        pytest.skip(f"real-window tests: {why}")


@pytest.fixture(scope="module")
def laptop():
    """A 1366×768 screen (at 125 % a 1093×614 logical desktop, at 150 % 911×512)."""
    yield from _display("1366x768x24")


@pytest.fixture(scope="module")
def netbook():
    """A 1024×600 screen."""
    yield from _display("1024x600x24")


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    """The demo project with 150 gold labels and some overlap, and a file of the wrong type."""
    from triage.project import open_project
    from triage.project.demo import ensure_demo, simulate

    folder = tmp_path_factory.mktemp("realwindow-keys")
    path = ensure_demo(folder)
    with open_project(path) as project:
        project.update_settings(overlap_rate=0.3)
        simulate(project, 150)
    (folder / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\nnot a table")
    return path


def run(display: str, demo: Path, config: Path, scale: float, *args: str) -> dict:
    """One probe run; its report."""
    out = config / f"keys-{scale}-{len(list(config.glob('keys-*')))}.json"
    env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb",
           "QT_SCALE_FACTOR": str(scale), "TRIAGE_CONFIG_DIR": str(config),
           "TRIAGE_DATA_DIR": str(demo.parent)}
    env.pop("QT_SCREEN_SCALE_FACTORS", None)
    done = subprocess.run([sys.executable, str(PROBE), str(demo), "--out", str(out),
                           "--bad-file", str(demo.parent / "picture.png"), *args],
                          env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text())


def key_problems(report: dict) -> list[str]:
    """Every key button not whole, visible and clear, a window off the screen, and the
    desk's charts' text problems (a label clipped at the figure's edge, overlaps)."""
    found = []
    for step, seen in report["desk"].items():
        found += [f"{step}: {key}: {why}" for key, why in seen["keys"].items() if why]
        if seen["window"]:
            found.append(f"{step}: window {seen['window']}")
        found += [f"{step}: chart {p}" for p in seen.get("charts", [])]
    return found


def fit_problems(report: dict) -> list[str]:
    """Every dialog or lead tab off the screen, with a button out of sight, or scrolling."""
    found = []
    for name, seen in report.get("dialogs", {}).items():
        found += [f"{name}: {p}" for p in seen["problems"]]
    for name, seen in report.get("lead", {}).items():
        found += [f"lead {name}: {p}" for p in seen["problems"]]
        if seen["outer_scroll"]:
            found.append(f"lead {name}: needs the scroll bar round the tabs")
        found += [f"lead {name}: chart {p}" for p in seen.get("charts", [])]
    return found


def test_keys_at_125_with_fresh_settings(laptop, demo, tmp_path):
    """1366×768 at 125 %, nothing remembered: every key in sight on first open."""
    report = run(laptop, demo, tmp_path, 1.25)
    assert key_problems(report) == []


def test_keys_at_100_maximized_then_900x600_then_larger(laptop, demo, tmp_path):
    """Maximized, then resized to 900×600, then enlarged: the keys never leave sight,
    and what is remembered of the small window hides nothing in the next session."""
    report = run(laptop, demo, tmp_path, 1.0, "--maximize", "--resize", "900x600")
    assert set(report["desk"]) == {"shown", "resized", "enlarged"}
    assert key_problems(report) == []
    again = run(laptop, demo, tmp_path, 1.0)   # restores the layout saved above
    assert key_problems(again) == []


def test_keys_at_150_restored_from_100_maximized(laptop, demo, tmp_path):
    """State saved at 100 % maximized, restored at 150 %: keys whole and clear."""
    run(laptop, demo, tmp_path, 1.0, "--maximize")
    report = run(laptop, demo, tmp_path, 1.5)
    assert key_problems(report) == []


@pytest.mark.parametrize("scale", [1.25, 1.5])
def test_dialogs_and_lead_tabs_fit_a_scaled_laptop(laptop, demo, tmp_path, scale):
    report = run(laptop, demo, tmp_path, scale, "--dialogs", "--tabs", "all")
    assert key_problems(report) == []
    problems = fit_problems(report)
    assert problems == [], "\n".join(problems)
    assert set(report["lead"]) == LEAD_TABS | LEAD_DIALOGS
    assert set(report["dialogs"]) == DESK_DIALOGS


def test_dialogs_and_lead_tabs_fit_at_100_maximized_then_900x600(laptop, demo, tmp_path):
    """Maximized at 100 %, the desk resized to 900×600: every dialog and lead tab fits,
    buttons whole, charts' text inside their figures."""
    report = run(laptop, demo, tmp_path, 1.0, "--maximize", "--resize", "900x600",
                 "--dialogs", "--tabs", "all")
    assert key_problems(report) == []
    assert fit_problems(report) == []
    assert set(report["dialogs"]) == DESK_DIALOGS


def test_dialogs_and_lead_tabs_fit_at_150_restored_from_100_maximized(laptop, demo, tmp_path):
    """State saved at 100 % maximized, then everything opened at 150 %."""
    run(laptop, demo, tmp_path, 1.0, "--maximize")
    report = run(laptop, demo, tmp_path, 1.5, "--dialogs", "--tabs", "all")
    assert key_problems(report) == []
    assert fit_problems(report) == []
    assert set(report["lead"]) == LEAD_TABS | LEAD_DIALOGS


def test_dialogs_and_lead_tabs_fit_1024x600(netbook, demo, tmp_path):
    """File ▸ New project (also after a file-type error), Settings, Export, Help and the
    seven lead tabs on a 1024×600 screen: inside it, buttons in sight, no outer scroll."""
    report = run(netbook, demo, tmp_path, 1.0, "--dialogs", "--tabs", "all")
    assert key_problems(report) == []
    assert fit_problems(report) == []
