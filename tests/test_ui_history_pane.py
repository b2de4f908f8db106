"""The History pane shows several decisions at the default layout."""

from __future__ import annotations

from tests.helpers import label_top, make_project
from tests.qt_helpers import open_main_window


def test_the_history_shows_at_least_five_rows_at_the_default_layout(qtbot, tmp_path):
    folder = tmp_path / "projects"
    folder.mkdir()
    project = make_project(folder, n=60)
    label_top(project, "ada", 20)
    project.close()
    window = open_main_window(qtbot, folder / "p.triage", "ada")
    window.drawer.setCurrentWidget(window.drawer.history)   # what clicking "History" does
    table = window.drawer.history.table
    qtbot.waitUntil(lambda: table.rowCount() == 20, timeout=5000)
    qtbot.wait(50)
    shown = [r for r in range(table.rowCount())
             if table.visualRect(table.model().index(r, 0)).bottom() <= table.viewport().height()]
    assert len(shown) >= 5, (len(shown), table.viewport().height(), window.desk_split.sizes())
    # The newest decision is on top, and its text is readable beside the list.
    table.selectRow(0)
    assert window.drawer.history.detail.text() == window.drawer.history.decisions[0].text
    assert window.drawer.history.detail.width() >= 150
    window.close()
