"""A small desk window stacks its panes into tabs, and a larger one puts them back
(layouts that adapt). The real-window tier checks the same at 800×600 × 150 %."""

from __future__ import annotations

import pytest

from tests.helpers import make_project
from tests.qt_helpers import open_main_window
from ui.desk_layout import is_compact


@pytest.fixture
def project_path(tmp_path):
    make_project(tmp_path, n=60).close()
    return tmp_path / "p.triage"


def test_the_threshold():
    assert is_compact(900, 480) and is_compact(600, 700)
    assert not is_compact(1250, 700) and not is_compact(700, 520)


def test_a_small_window_stacks_the_charts_and_the_notes_into_tabs(qtbot, project_path):
    window = open_main_window(qtbot, project_path, "ada")
    window.setMinimumSize(0, 0)
    window.resize(1300, 800)
    qtbot.waitUntil(lambda: not window.compact.compact, timeout=5000)
    panels = list(window.panels)
    assert [window.panel_split.widget(i) for i in range(3)] == panels
    assert window.desk_split.indexOf(window.drawer) == 1

    window.resize(700, 450)
    qtbot.waitUntil(lambda: window.compact.compact, timeout=5000)
    tabs = window.compact.tabs
    assert [tabs.tabText(i) for i in range(tabs.count())] == [
        "Gain", "Spend", "Yield", "Guidelines"]
    assert tabs.currentWidget() is window.gain and window.gain.isVisible()
    assert not window.drawer.isVisible()   # one page at a time
    assert window.split.indexOf(window.compact.tabs_area) == 1   # the tabs scroll, not the keys
    assert window.panel_split.count() == 0
    # The banner keeps to one line: the headline elided, the whole of it in the tooltip.
    banner = window.advice_banner
    assert not banner.text.wordWrap() and not banner.stamp.isVisible()
    long = "the estimate of positives still moves " * 6
    banner.data = banner.data.__class__(*[long if f == "text" else getattr(banner.data, f)
                                          for f in banner.data.__dataclass_fields__])
    banner.set_compact(True)
    assert banner.text.text().endswith("…") and len(banner.text.text()) < len(long)
    assert long.strip().split()[0] in banner.toolTip()
    # Showing the history brings its tab to the front.
    window.focus_history()
    qtbot.waitUntil(lambda: tabs.currentWidget() is window.drawer, timeout=3000)
    assert window.drawer.currentWidget() is window.drawer.history

    window.resize(1300, 800)
    qtbot.waitUntil(lambda: not window.compact.compact, timeout=5000)
    assert [window.panel_split.widget(i) for i in range(3)] == panels
    assert window.desk_split.indexOf(window.drawer) == 1 and not tabs.isVisible()
    assert banner.text.wordWrap() and banner.text.text() == long
