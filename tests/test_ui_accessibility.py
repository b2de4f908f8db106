"""Keyboard and accessibility: names for every control, readable colours, no focus traps."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QPalette
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

from tests.helpers import make_project
from tests.qt_helpers import open_main_window
from ui.dialogs.new_project import NewProjectDialog
from ui.dialogs.settings import SettingsDialog
from ui.export_dialog import ExportDialog
from ui.palette import TEXT_PAIRS, contrast_ratio

INTERACTIVE = (QAbstractButton, QLineEdit, QAbstractSpinBox, QComboBox, QAbstractItemView,
               QPlainTextEdit, QTextEdit, QTabBar)


def accessible_name(widget: QWidget) -> str:
    """The name a screen reader announces: set explicitly, or derived by Qt (a button's
    text, a form label's buddy)."""
    interface = QAccessible.queryAccessibleInterface(widget)
    derived = interface.text(QAccessible.Text.Name) if interface is not None else ""
    return (widget.accessibleName() or derived or "").strip()


def _inside(widget: QWidget, kinds: tuple) -> bool:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, kinds):
            return True
        parent = parent.parentWidget()
    return False


def unnamed(root: QWidget) -> list[str]:
    """Every interactive widget under ``root`` that a screen reader could not name."""
    out = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not isinstance(widget, INTERACTIVE) or isinstance(widget, QHeaderView):
            continue  # header sections are named by their titles
        if widget.focusPolicy() == Qt.FocusPolicy.NoFocus and not isinstance(
                widget, QAbstractButton | QTabBar):
            continue  # not reachable: drawn only
        if widget.objectName().startswith("qt_") or _inside(widget, (QComboBox, QAbstractSpinBox)):
            continue  # Qt's own parts (a combo's popup, a spin box's editor): named by owner
        if not accessible_name(widget):
            path = []
            w = widget
            while w is not None and len(path) < 4:
                path.append(w.objectName() or type(w).__name__)
                w = w.parentWidget()
            out.append(" < ".join(path))
    return out


@pytest.fixture
def window(qtbot, tmp_path):
    make_project(tmp_path, n=40).close()
    w = open_main_window(qtbot, tmp_path / "p.triage", "ada")
    w.ensure_panels()
    yield w
    w.close()


def test_every_control_of_the_desk_and_lead_window_has_a_name(window, qtbot):
    assert unnamed(window) == []
    window.show_lead_view()
    # The chart views (Agreement, Models) are built once matplotlib has loaded.
    qtbot.waitUntil(lambda: window.lead_view.models is not None, timeout=20000)
    assert unnamed(window.lead_view) == []
    window.show_help()
    assert unnamed(window.help_dialog) == []


def test_every_control_of_the_dialogs_has_a_name(window, qtbot, tmp_path):
    for dialog in (NewProjectDialog(), ExportDialog(tmp_path / "p.triage"),
                   SettingsDialog(window.project.settings, ["m1", "m2"])):
        qtbot.addWidget(dialog)
        assert unnamed(dialog) == [], type(dialog).__name__


def test_text_colours_pass_wcag_aa(window):
    failing = [(name, round(contrast_ratio(fg, bg), 2)) for name, fg, bg in TEXT_PAIRS
               if contrast_ratio(fg, bg) < 4.5]
    assert failing == []
    palette = QApplication.palette()
    for text, back in ((QPalette.ColorRole.WindowText, QPalette.ColorRole.Window),
                       (QPalette.ColorRole.Text, QPalette.ColorRole.Base),
                       (QPalette.ColorRole.ButtonText, QPalette.ColorRole.Button),
                       (QPalette.ColorRole.HighlightedText, QPalette.ColorRole.Highlight)):
        ratio = contrast_ratio(palette.color(text).name(), palette.color(back).name())
        assert ratio >= 4.5, (text, back, ratio)
    assert round(contrast_ratio("#777777", "#FFFFFF"), 2) == 4.48  # the old grey: fails AA


def test_tab_leaves_every_table(window, qtbot):
    window.show_lead_view()
    lead = window.lead_view
    qtbot.waitUntil(lambda: lead.models is not None, timeout=20000)  # every view built
    views = lead.findChildren(QAbstractItemView) + window.findChildren(QAbstractItemView)
    trapped = [v.accessibleName() or type(v).__name__ for v in views
               if v.tabKeyNavigation() and not isinstance(v, QHeaderView)]
    assert trapped == []
    lead.close()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=10000)
    qtbot.keyClick(window.desk, "i")
    qtbot.keyClick(window, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    table = window.drawer.history.table
    assert QApplication.focusWidget() is table
    qtbot.keyClick(table, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is not table      # Tab moved on: no trap
    assert QApplication.focusWidget().focusPolicy() != Qt.FocusPolicy.NoFocus
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Escape)
