"""The desk's keys, the dialogs and the lead tabs in a real window: what a user can reach.

Run by tests/test_ui_realwindow_keys.py under Xvfb with ``QT_QPA_PLATFORM=xcb``::

    QT_SCALE_FACTOR=1.25 python scripts/realwindow_keys.py PROJECT --out report.json \
        [--maximize] [--resize 900x600] [--dialogs] [--tabs Overview,Models]

The layout is restored from ``TRIAGE_CONFIG_DIR`` (what an earlier run saved) and saved
again at the end. The report says, for the desk after each step (shown, maximized,
resized, enlarged back), whether every key button (labels, skip, undo, note) is whole and
visible on the screen and overlaps nothing; and for every dialog and lead tab whether it
lies inside the screen's available area, with its buttons whole and visible and without
an outer scroll bar.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _settle(app, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def _rect(r) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def _global(widget):
    """The widget's rectangle in screen coordinates."""
    from PySide6.QtCore import QPoint, QRect

    return QRect(widget.mapToGlobal(QPoint(0, 0)), widget.size())


def whole(widget, window, slack: int = 0) -> str | None:
    """Why ``widget`` is not whole and visible on the screen (None: it is); ``slack``: the
    pixels its height may lack (a fractional scale rounds Qt's own icon buttons)."""
    if not widget.isVisible():
        return "hidden"
    if widget.height() + slack < widget.minimumSizeHint().height():
        return f"squeezed to {widget.height()} px of {widget.minimumSizeHint().height()}"
    seen = widget.visibleRegion().boundingRect()
    if seen.size() != widget.size():
        return f"only {seen.width()}×{seen.height()} of {widget.width()}×{widget.height()} seen"
    area = window.screen().availableGeometry()
    if not area.contains(_global(widget)):
        return f"at {_rect(_global(widget))}, outside {_rect(area)}"
    return None


def covered(widget, window) -> list[str]:
    """Other visible widgets of the window (not its ancestors or children) drawn over it."""
    from PySide6.QtWidgets import QWidget

    mine = _global(widget)
    found = []
    for other in window.findChildren(QWidget):
        if (other is widget or not other.isVisible() or other.isAncestorOf(widget)
                or widget.isAncestorOf(other) or other.children() and other.layout()):
            continue
        seen = other.visibleRegion().boundingRect()
        if seen.isEmpty():
            continue
        from PySide6.QtCore import QRect

        theirs = QRect(other.mapToGlobal(seen.topLeft()), seen.size())
        if mine.intersects(theirs):
            label = getattr(other, "text", lambda: "")
            found.append(f"{type(other).__name__}({other.objectName() or label()!r})")
    return found


def key_report(window) -> dict:
    """Every key button of the desk and the line under them (what the last key did): None
    when whole, visible and clear, else why not."""
    desk = window.desk
    buttons = {**{f"label {v}": b for v, b in desk.buttons.labels.items()},
               "skip": desk.skip_button, "undo": desk.undo_button, "note": desk.note_button,
               "line under the buttons": desk.message}
    report = {}
    for name, button in buttons.items():
        why = whole(button, window)
        if why is None:
            over = covered(button, window)
            why = f"overlaps {', '.join(over)}" if over else None
        report[name] = why
    return report


def window_fit(window) -> str | None:
    """Why the window's frame is not inside its screen's available area (None: it is)."""
    area = window.screen().availableGeometry()
    frame = window.frameGeometry()
    if area.contains(frame):
        return None
    return f"frame {_rect(frame)} outside {_rect(area)}"


def _buttons_of(dialog) -> list:
    """The visible push buttons a user must always see: not those of a form that scrolls
    inside the window (reached by scrolling), nor a tab bar's arrows."""
    from PySide6.QtWidgets import QAbstractButton, QScrollArea, QTabBar

    scrolled = [a.widget() for a in dialog.findChildren(QScrollArea) if a.widget() is not None]
    return [b for b in dialog.findChildren(QAbstractButton)
            if b.isVisible() and not isinstance(b.parent(), QTabBar)
            and type(b).__name__ in ("QPushButton", "QToolButton")
            and not any(w.isAncestorOf(b) for w in scrolled)]


def dialog_report(dialog, name: str = "") -> dict:
    """A dialog (or a lead tab's window): inside the screen, every button whole."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
    QApplication.processEvents()
    shots = QApplication.instance().property("shots")
    if shots and name:
        Path(shots).mkdir(parents=True, exist_ok=True)
        dialog.screen().grabWindow(0).save(str(Path(shots) / f"{name.replace(' ', '-')}.png"))
    problems = [p for p in [window_fit(dialog)] if p]
    for button in _buttons_of(dialog):
        # A file dialog's icon buttons (back, up, new folder) are Qt's, 1 px short at 125 %.
        why = whole(button, dialog, slack=0 if button.text() else 1)
        if why is not None:
            problems.append(f"button {button.text()!r}: {why}")
    return {"frame": _rect(dialog.frameGeometry()),
            "available": _rect(dialog.screen().availableGeometry()), "problems": problems}


def _wait(app, done, timeout: float = 30.0) -> bool:
    from ui.app import wait_until

    return wait_until(app, done, timeout)


def _step(window, name: str, shots: Path | None) -> dict:
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
        window.screen().grabWindow(0).save(str(shots / f"desk-{name}.png"))
    from PySide6.QtWidgets import QApplication

    return {"keys": key_report(window), "window": window_fit(window),
            "geometry": _rect(window.geometry()),
            "charts": lead_charts(QApplication.instance(), window)}


def desk_steps(app, window, args: argparse.Namespace) -> dict:
    """The desk's keys after each step: shown (maximized), resized, enlarged back."""
    steps = {}
    window.showMaximized() if args.maximize else window.show()
    _wait(app, lambda: window.windowHandle() is not None and window.windowHandle().isExposed())
    _settle(app, 1.2)
    steps["shown"] = _step(window, "shown", args.shots)
    if args.resize is not None:
        window.showNormal()
        _settle(app, 0.4)
        window.resize(*args.resize)
        _settle(app, 1.2)
        steps["resized"] = _step(window, "resized", args.shots)
        window.resize(window.screen().availableGeometry().size() * 0.9)
        _settle(app, 1.2)
        steps["enlarged"] = _step(window, "enlarged", args.shots)
    return steps


def opened(app, open_it, name: str, window, *, blocking: bool = False) -> tuple[dict, object]:
    """Call ``open_it`` as a user's click would, measure the window it opens (its report and
    the window). A blocking dialog (``exec``: file dialogs, the annotator's name) is
    measured from a timer while it runs, then cancelled."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QDialog

    before = set(app.topLevelWidgets())
    seen: dict = {}

    def look() -> None:
        _settle(app, 0.6)
        new = [w for w in app.topLevelWidgets() if w not in before and w.isVisible()
               and w is not window and type(w).__name__ not in ("QMenu", "QTipLabel")]
        dialog = QApplication.activeModalWidget() if blocking else None
        dialog = dialog or (new[0] if new else None) or next(
            (w for w in app.topLevelWidgets() if w.isVisible() and w is not window
             and w.isModal()), None)
        if dialog is None:
            seen["report"] = {"problems": ["did not open"]}
            return
        seen["report"], seen["dialog"] = dialog_report(dialog, name), dialog
        if blocking and isinstance(dialog, QDialog):
            dialog.reject()

    QTimer.singleShot(100, look) if blocking else None
    open_it()
    if not blocking:
        look()
    _wait(app, lambda: "report" in seen, 20.0)
    return seen.get("report", {"problems": ["not measured"]}), seen.get("dialog")


def dialogs(app, window) -> dict:
    """Every dialog the desk opens (its menus: File, View ▸ Find, Project, Help), opened as
    a user would, measured, then closed."""
    from ui.data_manager import open_find
    from ui.help_dialog import HelpDialog  # noqa: F401 - imported early: one cost

    found = {}
    openers = {
        "New project": (window.new_project, False),
        "Open project": (window.open_dialog, True),
        "Settings": (window.open_settings, False),
        "Export": (window.export_dialog, False),
        "Switch annotator": (window.switch_annotator, True),
        "Help": (window.show_help, False),
        "Find": (lambda: open_find(window), False),
    }
    for name, (open_it, blocking) in openers.items():
        found[name], dialog = opened(app, open_it, name, window, blocking=blocking)
        if dialog is None or blocking:
            _settle(app, 0.3)
            continue
        if name == "New project":
            found["New project after an error"] = new_project_error(app, dialog)
        dialog.close()
        _settle(app, 0.3)
    return found


def new_project_error(app, dialog) -> dict:
    """The New project dialog after picking a file it cannot read (a file-type error)."""
    bad = Path(app.property("bad_file") or "")
    if bad.is_file():
        dialog.set_source(bad)
        _settle(app, 1.5)
    return dialog_report(dialog, "new-project-error")


def lead_tabs(app, window, wanted: set[str] | None, maximize: bool) -> dict:
    """Every lead tab: inside the screen, every button whole, no outer scroll bar."""
    window.show_lead_view()
    lead = window.lead_view
    if maximize:
        lead.showMaximized()
    _wait(app, lambda: lead.models is not None and lead.windowHandle() is not None
          and lead.windowHandle().isExposed())
    _settle(app, 0.6)
    found = {}
    for i in range(lead.tabs.count()):
        name = lead.tabs.tabText(i)
        if wanted and name not in wanted:
            continue
        lead.tabs.setCurrentIndex(i)
        _settle(app, 0.8)
        report = dialog_report(lead, f"lead-{name}")
        page = lead.tabs.currentWidget()
        report["outer_scroll"] = outer_scroll(lead)
        report["charts"] = lead_charts(app, lead)
        inner = lead.models.tabs if name == "Models" and lead.models is not None else None
        for j in range(inner.count() if inner is not None else 0):   # Gain, Metrics, …
            if inner.isTabEnabled(j):
                inner.setCurrentIndex(j)
                _settle(app, 0.5)
                report["charts"] += [f"{inner.tabText(j)}: {p}" for p in lead_charts(app, lead)]
        report["page_min"] = [page.minimumSizeHint().width(), page.minimumSizeHint().height()]
        report["page"] = [page.width(), page.height()]
        found[name] = report
    if not wanted:   # the lead window's own dialogs: Export report…, a chart's Save chart…
        found["Export report dialog"], _ = opened(app, lead.export_report_dialog,
                                                  "lead-export-report", lead, blocking=True)
        lead.tabs.setCurrentIndex(0)
        _settle(app, 0.5)
        chart = next(c for c in _charts(lead) if c.isVisible())
        found["Save chart dialog"], _ = opened(app, chart.save_dialog, "lead-save-chart",
                                               lead, blocking=True)
        for extra in ("Export report dialog", "Save chart dialog"):
            found[extra].update(outer_scroll=False, charts=[])
    lead.close()
    return found


def _charts(widget) -> list:
    """The chart panels under ``widget`` (anything with text_problems and a draw state)."""
    from PySide6.QtWidgets import QWidget

    return [w for w in widget.findChildren(QWidget)
            if callable(getattr(w, "text_problems", None)) and hasattr(w, "drawing")]


def lead_charts(app, lead) -> list[str]:
    """The text problems of the charts the tab shows, once they are drawn at their size:
    a label clipped at the figure's edge, texts over each other, text under 9 pt."""
    shown = [c for c in _charts(lead) if c.isVisible()]
    _wait(app, lambda: not any(c.drawing() for c in shown), 30.0)
    _settle(app, 0.3)
    _wait(app, lambda: not any(c.drawing() for c in shown), 30.0)
    return [p for c in shown for p in c.text_problems()]


def outer_scroll(lead) -> bool:
    """Does the window need a scroll bar round its tabs (its buttons scrolled away)?"""
    from PySide6.QtWidgets import QScrollArea

    for area in lead.findChildren(QScrollArea):
        if area.isVisible() and area.widget() is not None and area.widget().isAncestorOf(
                lead.tabs):
            bars = (area.verticalScrollBar(), area.horizontalScrollBar())
            return any(bar.maximum() > 0 for bar in bars)
    return False


def probe(project: Path, args: argparse.Namespace) -> dict:
    """Open the desk as the arguments say and measure it, its dialogs and lead tabs."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    if args.shots:
        app.setProperty("shots", str(args.shots))
    if args.bad_file:
        app.setProperty("bad_file", str(args.bad_file))
    from ui.main_window import MainWindow
    from ui.prefs import Prefs

    window = MainWindow(Prefs())
    window.open_project(project, "demo")
    report: dict = {"desk": desk_steps(app, window, args)}
    if args.dialogs:
        report["dialogs"] = dialogs(app, window)
    if args.tabs:
        wanted = None if args.tabs == "all" else set(args.tabs.split(","))
        report["lead"] = lead_tabs(app, window, wanted, args.maximize)
    window.close()
    _settle(app, 0.2)
    return report


def _size(text: str) -> tuple[int, int]:
    width, _x, height = text.lower().partition("x")
    return int(width), int(height)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--maximize", action="store_true")
    parser.add_argument("--resize", type=_size, help="then resize the window to WxH")
    parser.add_argument("--dialogs", action="store_true", help="open and measure the dialogs")
    parser.add_argument("--bad-file", type=Path, help="a file New project cannot read")
    parser.add_argument("--shots", type=Path, help="save the screen after each desk step here")
    parser.add_argument("--tabs", default="", help="lead tabs (comma-separated, or 'all')")
    args = parser.parse_args(argv)
    args.out.write_text(json.dumps(probe(args.project, args), indent=1))
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # The report is written: leave without tearing down Qt's objects one by one (the
    # chart threads may still hold a figure; the windows' state was saved on close).
    os._exit(code)
