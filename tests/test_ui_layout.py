"""Window state that survives the day: splitters, size and position, tabs, HiDPI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtWidgets import QSplitter, QWidget

from tests.helpers import make_project
from tests.qt_helpers import open_main_window
from ui.analysis.models_view import ModelsView
from ui.prefs import Prefs
from ui.window_state import clamp_rect, fitting_size, pane_sizes, restore_splitter

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def project_path(tmp_path):
    make_project(tmp_path, n=60).close()
    return tmp_path / "p.triage"


def test_pane_sizes_never_keep_a_zero():
    assert pane_sizes([810, 0], 810, 120, [3, 2]) == [486, 324]
    assert pane_sizes([500, 300], 800) == [500, 300]
    assert clamp_rect(QRect(3000, -50, 2000, 900), QRect(0, 0, 1366, 768)) == \
        QRect(0, 0, 1366, 768)
    assert fitting_size(QSize(1360, 820), QRect(0, 0, 911, 512)).width() <= 911


def test_live_panels_survive_a_saved_zero_width_pane(qtbot, project_path):
    """The bug: the splitter state came back as [810, 0] and the panels were gone."""
    window = open_main_window(qtbot, project_path, "ada")
    window.resize(1300, 760)
    window.split.setChildrenCollapsible(True)
    window.split.setSizes([810, 0])  # what a user's stray drag (or an old bug) saved
    assert window.split.sizes()[1] == 0
    window.close()                   # saves the layout
    assert Prefs().layout("split") is not None

    again = open_main_window(qtbot, project_path, "ada")
    qtbot.waitUntil(lambda: again.split.sizes()[1] > 0, timeout=10000)
    desk_width, panels_width = again.split.sizes()
    assert desk_width >= 120 and panels_width >= 120
    assert all(panel.isVisible() and panel.width() > 0 for panel in again.panels)
    # A user can no longer drag a pane shut either.
    assert not again.split.childrenCollapsible()
    again.close()


def test_a_splitter_restore_is_validated(qtbot):
    split = QSplitter(Qt.Orientation.Horizontal)
    qtbot.addWidget(split)
    split.addWidget(QWidget())
    split.addWidget(QWidget())
    split.resize(900, 400)
    split.show()
    split.setChildrenCollapsible(True)
    split.setSizes([900, 0])
    state = split.saveState()
    other = QSplitter(Qt.Orientation.Horizontal)
    qtbot.addWidget(other)
    other.addWidget(QWidget())
    other.addWidget(QWidget())
    other.resize(900, 400)
    sizes = restore_splitter(other, state, weights=[3, 2])
    assert min(sizes) >= 120


def test_geometry_is_clamped_to_the_screen_on_restore(qtbot, project_path):
    window = open_main_window(qtbot, project_path, "ada")
    screen = window.screen().availableGeometry()
    window.setGeometry(screen.x() + 5000, screen.y() + 4000, 600, 400)  # off any screen
    window.close()
    again = open_main_window(qtbot, project_path, "ada")
    assert_on_screen(again, screen)
    # The advice arrives from the helper process after the window was placed (sooner or
    # later, with the machine's load): a long line must not widen the window's minimum,
    # and so the window, past the screen's edge.
    qtbot.wait(100)   # a small window stacks its panes once shown (ui.desk_layout)
    minimum = again.minimumSizeHint().width()
    banner = again.advice_banner
    banner.text.setText("the estimate of positives still moves " * 8)
    banner.stamp.setText("computed at 1,234,567 labels " * 3)
    qtbot.wait(50)
    assert again.minimumSizeHint().width() == minimum
    assert_on_screen(again, screen)
    again.close()


def assert_on_screen(window, screen: QRect) -> None:
    """The window's left, top and right edges lie on ``screen``."""
    frame = window.geometry()
    assert screen.contains(frame.topLeft()) and frame.right() <= screen.right() + 1


def test_lead_window_stays_on_screen_when_its_chart_views_widen_it(qtbot, project_path):
    """The chart views are built after the window is restored, and widen its minimum: a
    narrow window saved at the screen's right edge must not then reach past it."""
    window = open_main_window(qtbot, project_path, "ada")
    screen = window.screen().availableGeometry()
    narrow = QWidget()
    narrow.setGeometry(screen.right() - 310, screen.y() + 40, 300, 520)
    Prefs().set_layout("lead_geometry", narrow.saveGeometry())
    window.show_lead_view()
    lead = window.lead_view
    qtbot.waitUntil(lambda: lead.models is not None, timeout=30000)
    qtbot.wait(50)
    assert lead.minimumSizeHint().width() > 300   # the window did grow past what was saved
    assert_on_screen(lead, screen)
    window.close()


@pytest.mark.slow  # several seconds: a whole window driven to its end
def test_lead_window_remembers_its_tab_and_closes_on_esc_and_ctrl_w(qtbot, project_path):
    window = open_main_window(qtbot, project_path, "ada")
    window.show_lead_view()
    lead = window.lead_view
    qtbot.waitExposed(lead)
    lead.tabs.setCurrentWidget(lead.guidelines)
    qtbot.keyClick(lead, Qt.Key.Key_Escape)
    assert not lead.isVisible()
    window.close()

    again = open_main_window(qtbot, project_path, "ada")
    again.show_lead_view()
    lead = again.lead_view
    assert lead.tabs.tabText(lead.tabs.currentIndex()) == "Guidelines"
    qtbot.waitExposed(lead)
    lead.activateWindow()
    qtbot.keyClick(lead.tabs, Qt.Key.Key_W, Qt.KeyboardModifier.ControlModifier)
    assert not lead.isVisible()
    again.close()


@pytest.mark.slow  # several seconds: a whole window driven to its end
def test_models_tabs_are_enabled_by_title_with_one_model(qtbot, tmp_path):
    """The bug: with one model Calibration was greyed out and Bandit stayed enabled."""
    from triage.views.models import build_models_view_data, models_inputs

    project = make_project(tmp_path, n=80)
    session = project.start_session("ada")
    for _ in range(40):
        c = project.next_candidate(session)
        project.record_label(session, c.candidate_id, "idiom" if c.rank % 3 else "literal")
    data = build_models_view_data(models_inputs(project))
    project.close()
    view = ModelsView()
    qtbot.addWidget(view)
    view.show_data(data)
    states = view.tab_states()
    assert set(states) == {"Gain", "Metrics", "ROC / PR", "Value", "Calibration", "Bandit"}
    assert states["Bandit"] is False     # follow mode: no bandit belief to show
    assert states["Calibration"] is True and states["ROC / PR"] is True
    assert all(states[t] for t in ("Gain", "Metrics", "Value"))


@pytest.mark.slow  # several seconds: a whole window driven to its end
@pytest.mark.parametrize("scale", ["1.5", "1.0"])
def test_main_window_fits_a_1366x768_screen_at_any_scale(tmp_path, scale):
    """The bug: at QT_SCALE_FACTOR=1.5 the window opened larger than a 1366×768 screen."""
    config = tmp_path / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "laptop", "x": 0, "y": 0,
                                               "width": 1366, "height": 768,
                                               "logicalDpi": 96, "dpr": 1}]}))
    probe = (
        "import json, sys\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from triage.project.demo import ensure_demo\n"
        "from ui.main_window import MainWindow\n"
        "from ui.prefs import Prefs, data_dir\n"
        "w = MainWindow(Prefs()); w.open_project(ensure_demo(data_dir()), 'ada'); w.show()\n"
        "app.processEvents()\n"
        "s = w.screen().availableGeometry(); f = w.frameGeometry()\n"
        "print(json.dumps([s.width(), s.height(), f.width(), f.height(), f.x(), f.y()]))\n"
        "w.close()\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
           "QT_SCALE_FACTOR": scale, "TRIAGE_DATA_DIR": str(tmp_path / "data"),
           "TRIAGE_CONFIG_DIR": str(tmp_path / "cfg")}
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    sw, sh, fw, fh, fx, fy = json.loads(done.stdout.strip().splitlines()[-1])
    assert (sw, sh) == ((911, 512) if scale == "1.5" else (1366, 768))
    assert fw <= sw and fh <= sh and fx >= 0 and fy >= 0


