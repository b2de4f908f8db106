"""Every tooltip wraps: none is wider than the screen, whatever its text (ui.tooltips)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QPoint
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QLabel, QTableWidget, QTableWidgetItem, QToolTip

from ui.analysis import AdviceBanner
from ui.palette import apply_app_palette
from ui.tooltips import wrapped_tooltip

LONG = ("The sequential test has not yet seen enough labels in the current decile to tell a "
        "yield of 12 % from one of 3 %, so it cannot say the remaining deciles are poor; "
        "the conformal bound needs another 140 labels and the quantile rule is waiting for "
        "a second decile with fewer than two positives in a row /home/lee/projects/2026/"
        "a_very_long_folder_name/with_a_file_name_that_never_breaks.triage")


def _shown_tip(qtbot, widget, pos: QPoint | None = None):
    """Ask ``widget`` for its tooltip as the pointer would; the tooltip window shown."""
    pos = pos or QPoint(5, 5)
    QToolTip.hideText()
    QApplication.sendEvent(widget, QHelpEvent(QEvent.Type.ToolTip, pos, widget.mapToGlobal(pos)))
    tips = []

    def shown() -> bool:
        tips[:] = [w for w in QApplication.topLevelWidgets()
                   if w.metaObject().className() == "QTipLabel" and w.isVisible()]
        return bool(tips)

    qtbot.waitUntil(shown, timeout=3000)
    return tips[0]


def _limit(widget) -> int:
    """The narrowest the issue asks for (a 1024-pixel screen) or the test screen, if less."""
    return min(1024, widget.screen().availableGeometry().width())


def test_a_long_plain_tooltip_wraps_inside_the_screen(qtbot):
    apply_app_palette()
    label = QLabel("hover me")
    qtbot.addWidget(label)
    label.setToolTip(LONG)
    label.show()
    tip = _shown_tip(qtbot, label)
    assert tip.width() <= _limit(label)
    assert tip.height() > 2 * tip.fontMetrics().height()   # wrapped onto several lines
    assert "never_breaks.triage" in tip.text().replace("\u200b", "")   # the text is all there


def test_the_advice_banner_tooltip_wraps_inside_the_screen(qtbot):
    apply_app_palette()
    banner = AdviceBanner()
    qtbot.addWidget(banner)
    banner.show_advice({"decision": "continue", "headline": "Continue: the top deciles still pay",
                        "reasons": [{"rule": "sequential test", "decision": "continue",
                                     "detail": LONG}] * 3})
    banner.show()
    tip = _shown_tip(qtbot, banner.text)
    assert tip.width() <= _limit(banner)
    assert "sequential test" in tip.text()


def test_a_table_items_tooltip_wraps_too(qtbot):
    apply_app_palette()
    table = QTableWidget(1, 1)
    qtbot.addWidget(table)
    item = QTableWidgetItem("cell")
    item.setToolTip(LONG)
    table.setItem(0, 0, item)
    table.show()
    rect = table.visualItemRect(item)
    tip = _shown_tip(qtbot, table.viewport(), rect.center())
    assert tip.width() <= _limit(table)


def test_wrapping_keeps_plain_text_literal_and_undoes_no_wrap_styles():
    assert wrapped_tooltip("a < b\nc") == "<p style='white-space:pre-wrap'>a &lt; b\nc</p>"
    assert wrapped_tooltip("<p style='white-space:pre'>x</p>") == \
        "<p style='white-space:pre-wrap'>x</p>"
    assert wrapped_tooltip("") == ""
