"""Render the desk and every lead tab offscreen into docs/screenshots/ (``make screenshots``).

Run once per scale: ``QT_SCALE_FACTOR=1.5 python scripts/screenshots.py``. The screen is an
offscreen 1366×768 one (``QT_QPA_PLATFORM=offscreen:configfile=...``, set up here when the
variable is not given), the windows fill it, and ``QWidget.grab()`` takes the picture.
"""

from __future__ import annotations

import argparse
import json
import os
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


def _setup_screen(tmp: Path) -> None:
    config = tmp / "screen.json"
    config.write_text(json.dumps({"screens": [{"name": "laptop", "x": 0, "y": 0,
                                               "width": SCREEN[0], "height": SCREEN[1],
                                               "logicalDpi": 96, "dpr": 1}]}))
    os.environ.setdefault("QT_QPA_PLATFORM", f"offscreen:configfile={config}")
    os.environ["TRIAGE_DATA_DIR"] = str(tmp / "data")
    os.environ["TRIAGE_CONFIG_DIR"] = str(tmp / "config")


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


def _wait_for(app, done, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while not done() and time.monotonic() < end:
        app.processEvents()
        time.sleep(0.02)


def _flush(widget) -> None:
    for child in [widget, *widget.findChildren(object)]:
        flush = getattr(child, "flush", None)
        if callable(flush) and hasattr(child, "redraws"):
            flush()


def shoot(out: Path, scale: str) -> list[Path]:
    """Write desk-<scale>.png and lead-<tab>-<scale>.png; returns the files."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    from ui.main_window import MainWindow
    from ui.prefs import Prefs

    path = _demo_project(Path(os.environ["TRIAGE_DATA_DIR"]).parent)
    window = MainWindow(Prefs())
    window.open_project(path, "demo")
    area = window.screen().availableGeometry()
    window.setGeometry(area)
    window.show()
    _settle(app, 0.8)
    window.refresh_panels()
    for panel in window.panels:
        panel.flush()
    window.focus_history()
    window.drawer.setCurrentWidget(window.drawer.guidelines)
    window.desk.setFocus()
    _settle(app, 0.4)
    written = [_save(window.grab(), out / f"desk-{scale}.png")]
    window.show_lead_view()
    lead = window.lead_view
    lead.setGeometry(area)
    lead.adjudication.curator.setText("lee")
    for i in range(lead.tabs.count()):
        lead.tabs.setCurrentIndex(i)
        _wait_for(app, lambda: not lead.status.text().startswith("computing"))
        _settle(app, 0.5)
        window.refresh_panels()
        _flush(lead)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    args = parser.parse_args(argv)
    scale = os.environ.get("QT_SCALE_FACTOR", "1.0")
    scale = f"{float(scale):.1f}"
    with tempfile.TemporaryDirectory(prefix="triage-shots-") as tmp:
        _setup_screen(Path(tmp))
        sys.path.insert(0, str(ROOT))
        shoot(args.out, scale)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
