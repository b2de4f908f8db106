"""The live panels draw off the GUI thread: the desk answers keys while a chart is drawn."""

from __future__ import annotations

import threading

import matplotlib.backends.backend_agg  # noqa: F401 - loaded lazily by the chart thread
import pytest
from PySide6.QtGui import QColor

from tests.qt_helpers import open_main_window, wait_for_background
from tests.test_ui_desk import make_project
from ui import panel_control
from ui.panels import GainPanel


def test_panels_are_drawn_on_the_chart_thread_and_painted_from_its_image(qtbot, tmp_path):
    window = open_main_window(qtbot, make_project(tmp_path), "ada")
    wait_for_background(qtbot, window)  # no redraw for the curves in the middle of the test
    gain = window.gain
    qtbot.waitUntil(lambda: gain.redraws >= 1 and not gain.drawing(), timeout=10000)
    before = gain.redraws
    qtbot.keyClick(window.desk, "i")
    window.refresh_panels()
    qtbot.waitUntil(lambda: gain.redraws > before and not gain.drawing(), timeout=10000)
    assert gain.render_threads and threading.current_thread().name not in gain.render_threads
    assert gain.panel_data()["annotated"][-1] == 1
    assert gain.live.get_xdata().tolist() == gain.panel_data()["annotated"]  # drawn = data
    image = gain.grab().toImage()  # what the widget paints: the chart, not a blank panel
    colours = {image.pixelColor(x, y).name() for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    assert QColor("white").name() in colours and len(colours) > 3
    window.close()


def test_a_key_press_is_answered_while_a_panel_draw_is_in_progress(qtbot, tmp_path,
                                                                     monkeypatch):
    window = open_main_window(qtbot, make_project(tmp_path), "ada")
    wait_for_background(qtbot, window)  # no redraw for the curves in the middle of the test
    # Nor for the advice: its banner can change the panels' size, and a new size is drawn.
    qtbot.waitUntil(lambda: window.advice.feed.latest is not None, timeout=30000)
    gain = window.gain
    qtbot.waitUntil(lambda: gain.redraws >= 1 and not gain.drawing(), timeout=10000)
    qtbot.wait(300)  # the layout settles (a resize asks for one more draw)
    qtbot.waitUntil(lambda: not gain.drawing(), timeout=10000)
    release, started = threading.Event(), threading.Event()
    draw = GainPanel._draw

    def slow_draw(self, data):  # a draw that lasts until the test lets it finish
        started.set()
        release.wait(10)
        draw(self, data)

    monkeypatch.setattr(GainPanel, "_draw", slow_draw)
    qtbot.keyClick(window.desk, "i")
    window.refresh_panels()
    qtbot.waitUntil(started.is_set, timeout=5000)
    assert gain.drawing()
    before = window.desk.current.candidate_id
    redraws = gain.redraws
    for key in "lil":  # three labels, each answered with the next candidate at once
        qtbot.keyClick(window.desk, key)
    assert window.desk.current.candidate_id != before
    assert window.desk.position.text().startswith("rank 5 of 20")
    window.refresh_panels()  # asked for while drawing: exactly one more draw follows
    assert gain.drawing() and gain.redraws == redraws
    release.set()
    qtbot.waitUntil(lambda: not gain.drawing() and gain.redraws >= redraws + 2, timeout=10000)
    assert gain.redraws == redraws + 2, (gain.redraws, redraws)
    assert gain.panel_data()["annotated"][-1] == 4
    assert gain.live.get_xdata()[-1] == 4
    window.close()


@pytest.mark.slow
def test_a_burst_of_labels_redraws_one_panel_per_label_and_all_of_them_after_a_pause(
        qtbot, tmp_path, monkeypatch):
    # A redraw of all three panels at once overran a quick annotator's next key (the chart
    # thread takes turns with the desk for the interpreter lock), so in a burst each label
    # brings one panel up to date, in turn, and a pause brings all of them.
    monkeypatch.setattr(panel_control, "PAUSE_MS", 3000)  # a loaded machine's slow wait
    monkeypatch.setattr(panel_control, "MIN_GAP_S", 0.2)  # is not taken for a pause
    window = open_main_window(qtbot, make_project(tmp_path), "ada")
    wait_for_background(qtbot, window)
    # Nor is a slow burst taken for one so long that every panel is due (max_defer_s): on a
    # loaded machine the three keys below once spanned it, and all three panels redrew.
    window.live_panels.policy.max_defer_s = 600.0
    given: list[tuple[str, int]] = []
    for panel in window.live_panels.panels:
        def record(snapshot, info, panel=panel, show=panel.show_state):
            given.append((type(panel).__name__, snapshot.events))
            show(snapshot, info)
        monkeypatch.setattr(panel, "show_state", record)
    window.refresh_panels()
    assert sorted(name for name, _ in given) == ["GainPanel", "SpendPanel", "YieldPanel"]
    given.clear()
    qtbot.wait(250)
    for n, key in enumerate("ili", start=1):
        qtbot.keyClick(window.desk, key)
        try:
            qtbot.waitUntil(lambda n=n: len(given) >= n, timeout=5000)
        except Exception:
            raise AssertionError(f"key {n}: panels given {given}") from None
        qtbot.wait(250)
        assert len(given) == n and given[-1][1] == n   # one panel, with this label in it
    assert len({name for name, _ in given}) == 3        # each panel had its turn
    given.clear()
    qtbot.waitUntil(lambda: len(given) == 3, timeout=10000)  # the annotator paused
    assert sorted(given) == [("GainPanel", 3), ("SpendPanel", 3), ("YieldPanel", 3)]
    window.close()
