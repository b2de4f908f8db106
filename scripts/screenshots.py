"""Take the docs' pictures from a real window (``make screenshots``, ``make screenshot``).

``python scripts/screenshots.py`` writes the desk and every lead tab, maximized on a
1366×768 screen at 100 % and 150 %, into docs/screenshots/; ``--readme docs/screenshot.png``
writes the README's picture of the desk (``main.py --screenshot``, which waits for the
advice). The windows are real X11 windows (Qt's xcb platform, the openbox window manager):
on the display in ``DISPLAY``, else on an Xvfb display started here and stopped after, as
the real-window tests do. Offscreen pictures hid what a real window shows.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCREEN = (1366, 768)
GUIDELINES = """# Idiom or literal?

Label **idiom** when the verb–noun combination means more than its words:
*kick the bucket*, *spill the beans*.

- Literal if the sentence would still be true word for word (*pay the bill*).
- When unsure, read the example sentence; if still unsure, **skip** and write a note.
"""


def _data_dirs(tmp: Path) -> dict[str, str]:
    """Data and settings in a throw-away folder: nothing of the user's is read or changed."""
    return {"TRIAGE_DATA_DIR": str(tmp / "data"), "TRIAGE_CONFIG_DIR": str(tmp / "config")}


def _demo_project(tmp: Path) -> Path:
    """The demo with 300 labels by 'demo', an overlapping 'bob' who disagrees now and then,
    guidelines in two versions and two highlight words."""
    from triage.project import open_project
    from triage.project.demo import ensure_demo, simulate
    from triage.project.export import export_rows
    from triage.project.guidelines import save_guidelines

    path = ensure_demo(tmp / "data")
    with open_project(path) as project:
        project.update_settings(overlap_rate=0.3, highlight_words=("bucket", "beans"))
        gold = {row["key"]: row["gold"] for row in export_rows(project)}
        save_guidelines(project, GUIDELINES.split("- When")[0], "lee")
        simulate(project, 150)
        _bob(project, gold, 60, every=3)     # version 1: room for doubt
        save_guidelines(project, GUIDELINES, "lee")
        simulate(project, 150)
        _bob(project, gold, 60, every=8)     # version 2: clearer
    return path


def _bob(project, gold: dict, n: int, every: int) -> None:
    """A second annotator who disagrees with the gold label on every ``every``-th item."""
    bob = project.start_session("bob")
    for i in range(n):
        item = project.next_candidate(bob)
        if item is None:
            break
        value = gold.get(item.key) or "literal"
        if i % every == 0:
            value = "literal" if value == "idiom" else "idiom"
        project.record_label(bob, item.candidate_id, value, seconds=4.0)
    project.end_session(bob)


def _settle(app, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def _wait_for(app, done, timeout: float = 60.0, what: str = "") -> None:
    """Process events until ``done()``; a picture of an unfinished state is never written
    silently: waiting for ``what`` longer than ``timeout`` stops the run."""
    end = time.monotonic() + timeout
    while not done() and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)
    if what and not done():
        raise SystemExit(f"screenshots: still waiting for {what} after {timeout:.0f} s")


def _flush(widget) -> None:
    for child in [widget, *widget.findChildren(object)]:
        flush = getattr(child, "flush", None)
        if callable(flush) and hasattr(child, "redraws"):
            flush()


def _charts(widget) -> list:
    return [c for c in widget.findChildren(object) if callable(getattr(c, "drawing", None))]


def shoot(out: Path, scale: str) -> list[Path]:
    """Write desk-<scale>.png and lead-<tab>-<scale>.png; returns the files."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from ui.main_window import MainWindow
    from ui.prefs import Prefs

    path = _demo_project(Path(os.environ["TRIAGE_DATA_DIR"]).parent)
    window = MainWindow(Prefs())
    window.open_project(path, "demo")
    window.showMaximized()
    _settle(app, 0.8)
    window.focus_history()
    window.drawer.setCurrentWidget(window.drawer.guidelines)
    window.desk.setFocus()
    _settle(app, 0.2)
    window.compact.tabs.setCurrentIndex(0)   # stacked (150 %): the gain chart, not the notes
    # The advice, the live state and the offline curves (the gold lines) all in.
    # A loaded machine takes minutes for the advice: a desk saying "No advice" is no picture.
    _wait_for(app, lambda: window.advice_feed.latest is not None and window.info is not None
              and not window.live_pending() and not window.live_panels.busy(), 600.0,
              "the advice, the live state and the gold curves")
    _settle(app, 0.4)
    window.refresh_panels()
    _wait_for(app, lambda: not any(c.drawing() for c in _charts(window)), 20.0)
    for panel in window.panels:
        panel.flush()   # at the size each has now, so none shows a stretched image
    _settle(app, 0.3)
    written = [_save(window.grab(), out / f"desk-{scale}.png")]
    window.show_lead_view()
    lead = window.lead_view
    lead.showMaximized()
    _settle(app, 0.5)
    lead.adjudication.curator.setText("lee")
    for i in range(lead.tabs.count()):
        lead.tabs.setCurrentIndex(i)
        _wait_for(app, lambda: not lead.status.text().startswith("computing"))
        if lead.tabs.widget(i) is lead.data:   # a word found, one record open
            _wait_for(app, lambda: lead.data.index_state == "ready" and not lead.data.busy())
            lead.data.filters.search.setText("bucket")
            _wait_for(app, lambda: not lead.data.busy())
            lead.data.table.selectRow(0)
        _settle(app, 0.5)
        window.refresh_panels()
        _flush(lead)
        _settle(app, 0.3)
        _wait_for(app, lambda: not any(c.drawing() for c in _charts(lead)), 20.0)
        _flush(lead)   # again: a chart the layout resized meanwhile shows a stretched image
        _settle(app, 0.3)
        name = lead.tabs.tabText(i).lower().replace(" ", "-")
        written.append(_save(lead.grab(), out / f"lead-{name}-{scale}.png"))
    lead.close()
    window.close()
    return written


def _save(pixmap, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not pixmap.save(str(path)):
        raise SystemExit(f"could not write {path}")
    print(f"wrote {path} ({pixmap.width()}×{pixmap.height()} px)")
    return path


def _run(args: list[str], env: dict[str, str]) -> None:
    done = subprocess.run(args, env={**os.environ, **env}, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[1:3])} failed ({done.returncode})")


def _take(args: argparse.Namespace, display: str) -> None:
    """Each picture in its own process: one scale per process (QT_SCALE_FACTOR)."""
    base = {"DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
    with tempfile.TemporaryDirectory(prefix="triage-shots-") as tmp:
        if args.readme is not None:
            _run([sys.executable, str(ROOT / "main.py"), "--demo", "--simulate", "300",
                  "--screenshot", str(args.readme.resolve())],
                 {**base, **_data_dirs(Path(tmp) / "readme"), "QT_SCALE_FACTOR": "1.0"})
            return
        for scale in args.scales.split(","):
            _run([sys.executable, __file__, "--one-scale", "--out", str(args.out.resolve())],
                 {**base, **_data_dirs(Path(tmp) / scale), "QT_SCALE_FACTOR": scale})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--readme", type=Path, metavar="FILE.png",
                        help="only the README's picture of the desk, into FILE.png")
    parser.add_argument("--scales", default="1.0,1.5", help="comma-separated (1.0,1.5)")
    parser.add_argument("--one-scale", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one_scale:   # the child: on the display it was given, at QT_SCALE_FACTOR
        sys.path.insert(0, str(ROOT))
        shoot(args.out, f"{float(os.environ.get('QT_SCALE_FACTOR', '1.0')):.1f}")
        return 0
    if os.environ.get("DISPLAY"):
        _take(args, os.environ["DISPLAY"])
        return 0
    sys.path.insert(0, str(ROOT / "scripts"))
    from realwindow_probe import virtual_display

    with virtual_display() as display:
        _take(args, display)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
