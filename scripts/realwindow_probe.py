"""Open the desk and the lead window in a real window and report what a user would see.

Run by tests/test_ui_realwindow.py under Xvfb with ``QT_QPA_PLATFORM=xcb``::

    QT_SCALE_FACTOR=1.5 python scripts/realwindow_probe.py PROJECT --out report.json [--maximize]

The layout is restored from ``TRIAGE_CONFIG_DIR`` (whatever an earlier run at another scale
saved) and saved again when the windows close. The JSON report gives every top-level
window's frame and its screen's available area, the pairs of sibling widgets that overlap
without one containing the other, and the widgets whose text is under 9 pt; matplotlib's
warnings go to stderr, where the test reads them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MIN_POINTS = 9.0


@contextlib.contextmanager
def virtual_display(screen: str = "1366x768x24") -> Iterator[str]:
    """A fresh Xvfb display (its number picked by Xvfb: -displayfd) with openbox on it;
    yields its name (":5"). SystemExit with the apt line when Xvfb or openbox is missing."""
    missing = [tool for tool in ("Xvfb", "openbox") if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"a real window needs {' and '.join(missing)} (apt-get install "
                         "xvfb openbox libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1)")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", screen,
                               "-nolisten", "tcp"], pass_fds=(write,),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    processes = [server]
    try:
        if not number:
            raise SystemExit("Xvfb did not start")
        name = f":{number}"
        processes.append(subprocess.Popen(["openbox"], env={**os.environ, "DISPLAY": name},
                                          stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
        time.sleep(0.5)   # let the window manager take the screen (it sets the work area)
        yield name
    finally:
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()


def _settle(app, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def _wait_for(app, done, timeout: float = 30.0) -> bool:
    from ui.app import wait_until  # Qt is imported once the scale is set in the environment

    return wait_until(app, done, timeout)


def _rect(r) -> list[int]:
    return [r.x(), r.y(), r.width(), r.height()]


def _name(widget) -> str:
    text = ""
    for attr in ("text", "title", "windowTitle"):
        method = getattr(widget, attr, None)
        if callable(method):
            try:
                text = str(method())
            except TypeError:
                continue
            if text:
                break
    label = widget.objectName() or widget.accessibleName() or text[:30]
    return f"{type(widget).__name__}({label!r})"


def _shown(widget) -> bool:
    return (widget.isVisible() and not widget.isWindow()
            and widget.width() > 0 and widget.height() > 0)


def overlaps(window) -> list[str]:
    """Sibling widgets that overlap without one containing the other."""
    from PySide6.QtWidgets import QStackedWidget, QWidget

    found = []
    for parent in [window, *window.findChildren(QWidget)]:
        if not (parent is window or parent.isVisible()) or isinstance(parent, QStackedWidget):
            continue
        kids = [w for w in parent.findChildren(QWidget, options=_direct()) if _shown(w)]
        for i, a in enumerate(kids):
            for b in kids[i + 1:]:
                ra, rb = a.geometry(), b.geometry()
                both = ra.intersected(rb)
                if both.isEmpty() or ra.contains(rb) or rb.contains(ra):
                    continue
                found.append(f"{_name(a)} {_rect(ra)} overlaps {_name(b)} {_rect(rb)} "
                             f"in {_name(parent)}")
    return found


def _direct():
    from PySide6.QtCore import Qt

    return Qt.FindChildOption.FindDirectChildrenOnly


def small_text(window) -> list[str]:
    """Visible widgets whose font is under MIN_POINTS, and chart fonts under it."""
    from PySide6.QtWidgets import QWidget

    found = []
    for widget in [window, *window.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        font = widget.font()
        points = font.pointSizeF()
        if points <= 0:   # a pixel size: in points at the widget's logical DPI
            points = font.pixelSize() * 72.0 / max(1, widget.logicalDpiY())
        chart = getattr(widget, "fs", None)   # a chart panel: figure points at DPI dots/inch
        chart = chart * _chart_dpi() / 96.0 if isinstance(chart, float) else None
        if points < MIN_POINTS:
            found.append(f"{_name(widget)}: {points:.1f} pt")
        if chart is not None and chart < MIN_POINTS and hasattr(widget, "redraws"):
            found.append(f"{_name(widget)} chart text: {chart:.1f} pt")
    return found


def _chart_dpi() -> float:
    from ui.panels._base import DPI

    return float(DPI)


def window_report(window) -> dict:
    """Frame, available area, overlaps and small text of one top-level window."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QApplication

    # Layouts asked for but not run yet (a grid re-arranged on the last resize) first: on a
    # loaded machine the settling pause can end between the request and the layout.
    QApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
    QApplication.processEvents()
    screen = window.screen()
    return {"title": window.windowTitle(), "frame": _rect(window.frameGeometry()),
            "geometry": _rect(window.geometry()),
            "available": _rect(screen.availableGeometry()),
            "screen": _rect(screen.geometry()), "scale": screen.devicePixelRatio(),
            "overlaps": overlaps(window), "small_text": small_text(window),
            "charts": chart_text(window)}


def compact_state(window) -> dict | None:
    """The stacked layout's tab names and the banner's lines (None: side by side)."""
    if not window.compact.compact:
        return None
    tabs = window.compact.tabs
    banner = window.advice_banner.text
    lines = round(banner.height() / max(1, banner.fontMetrics().lineSpacing()))
    return {"tabs": [tabs.tabText(i) for i in range(tabs.count())], "banner_lines": lines}


def chart_text(window) -> list[str]:
    """Every shown chart's text problems (small, off the figure, overlapping, no ticks)."""
    from PySide6.QtWidgets import QWidget

    found = []
    for widget in window.findChildren(QWidget):
        check = getattr(widget, "text_problems", None)
        if callable(check) and widget.isVisible():
            found += check()
    return found


def _flush(widget) -> None:
    for child in [widget, *widget.findChildren(object)]:
        flush = getattr(child, "flush", None)
        if callable(flush) and hasattr(child, "redraws"):
            flush()


def probe(project: Path, maximize: bool, wanted: set[str] | None = None,
          shots: Path | None = None) -> dict:  # long: one scripted session, step by step
    """Open both windows, let them draw, measure them, close them (saving the layout)."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from ui.main_window import MainWindow
    from ui.prefs import Prefs

    window = MainWindow(Prefs())
    window.open_project(project, "demo")
    window.showMaximized() if maximize else window.show()
    _wait_for(app, lambda: window.windowHandle() is not None and window.windowHandle().isExposed())
    _settle(app, 1.0)
    from ui.desk_layout import is_compact

    # The desk's layout (side by side or stacked) follows the window's size a turn later.
    _wait_for(app, lambda: window.compact.compact == is_compact(window.split.width(),
                                                                window.split.height()), 5.0)
    _settle(app, 0.2)
    window.refresh_panels()
    for panel in window.panels:
        panel.flush()
    _settle(app, 0.3)
    report = {"desk": window_report(window)}
    report["desk"]["compact"] = compact_state(window)
    report["desk"]["ticks"] = {p.title: len([t for t in p.people_ax.get_xticklabels()
                                             if t.get_text()]) if hasattr(p, "people_ax")
                               else None for p in window.panels}
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(shots / "desk.png"))
    if wanted == set():   # the desk only
        window.close()
        _settle(app, 0.2)
        return {**report, "lead": {}}
    window.show_lead_view()
    lead = window.lead_view
    if maximize:
        lead.showMaximized()
    _wait_for(app, lambda: lead.models is not None and lead.windowHandle() is not None
              and lead.windowHandle().isExposed())
    _settle(app, 0.5)
    tabs = {}
    for i in range(lead.tabs.count()):
        if wanted and lead.tabs.tabText(i) not in wanted:
            continue
        lead.tabs.setCurrentIndex(i)
        _settle(app, 0.3)
        _flush(lead)
        _settle(app, 0.2)
        tabs[lead.tabs.tabText(i)] = window_report(lead)
        if shots is not None:
            lead.grab().save(str(shots / f"lead-{lead.tabs.tabText(i).lower()}.png"))
    report["lead"] = tabs
    lead.close()
    window.close()
    _settle(app, 0.2)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--maximize", action="store_true")
    parser.add_argument("--tabs", default="", help="lead tabs to measure, comma-separated "
                        "(all when not given; 'none': the desk only)")
    parser.add_argument("--shots", type=Path, help="also save each window's picture here")
    args = parser.parse_args(argv)
    warnings.simplefilter("always")   # every layout warning, not only the first
    report = probe(args.project, args.maximize,
                   (None if not args.tabs else {t for t in args.tabs.split(",") if t != "none"}),
                   args.shots)
    args.out.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
