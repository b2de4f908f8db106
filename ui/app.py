"""Starting the desk: ``python main.py [PROJECT] [--demo] [--annotator NAME] ...``.

With no PROJECT the last project opens, or on first run the demo project (created in the
user's data directory), so the window is never empty.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from triage.base import startup
from triage.base.address import project_location
from triage.base.errors import TriageError
from ui.early_open import EarlyOpen

if TYPE_CHECKING:  # Qt is imported in run_gui, after the project has begun to open
    from PySide6.QtWidgets import QApplication

    from ui.prefs import Prefs

SETTLE_SECONDS = 0.8  # screenshot: time for the coalesced panel redraws to land
ADVICE_WAIT_S = 60.0  # screenshot: the longest wait for the advice and the panels' data


def _project_arg(text: str) -> Path | str:
    """A project file, or a server address kept as text (``Path`` would fold its ``//``).

    :mod:`triage.base.address` loads nothing of the core, which opens the project early
    (ui.early_open).
    """
    return project_location(text)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="triage", description="Open the annotation desk.")
    p.add_argument("project", nargs="?", type=_project_arg,
                   help="project file (or postgresql://HOST/DB?project=NAME) to open")
    p.add_argument("--demo", action="store_true",
                   help="open the demo project (created in the data directory if missing)")
    p.add_argument("--demo-pictures", action="store_true",
                   help="open the picture demo: handwritten digits, is it a 3?")
    p.add_argument("--annotator", metavar="NAME", help="annotate as NAME (no dialog)")
    p.add_argument("--simulate", type=int, default=0, metavar="N",
                   help="make sure the first N queue candidates are labeled with their gold "
                        "labels (demo data; annotator 'demo') before the window opens")
    p.add_argument("--screenshot", type=Path, metavar="FILE.png",
                   help="once the advice has arrived, save the main window to FILE.png and exit")
    p.add_argument("--size", type=_size, default=(1366, 768), metavar="WxH",
                   help="window size for --screenshot, in logical pixels (1366x768)")
    return p


def _size(text: str) -> tuple[int, int]:
    width, _x, height = text.lower().partition("x")
    try:
        return max(320, int(width)), max(240, int(height))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT, got {text!r}") from None


def choose_project(args: argparse.Namespace, prefs: Prefs) -> Path | str:
    """The project to open: the argument, else the last one, else the demo."""
    from triage.project.demo import ensure_demo, ensure_picture_demo
    from ui.prefs import data_dir

    if getattr(args, "demo_pictures", False):
        return ensure_picture_demo(data_dir())
    if args.project is not None and not args.demo:
        return args.project
    if not args.demo:
        last = prefs.last_project()
        if last and Path(last).is_file():
            return Path(last)
    return ensure_demo(data_dir())


def simulate_labels(path: str | Path, n: int) -> int:
    """Top the project up to ``n`` label events with gold labels (idempotent on reruns)."""
    from triage.project import open_project
    from triage.project.demo import simulate

    with open_project(path) as project:
        missing = n - project.snapshot().events
        return simulate(project, missing) if missing > 0 else 0


def settle(app: QApplication, seconds: float = SETTLE_SECONDS) -> None:
    """Run the event loop for a while (panel redraws are coalesced on timers)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def open_early(args: argparse.Namespace) -> EarlyOpen | None:
    """Start opening the project named on the command line, if nothing must come first."""
    if (args.project is None or args.demo or args.demo_pictures or args.simulate
            or not Path(args.project).is_file()):
        return None
    return EarlyOpen(args.project)


def build_window(args: argparse.Namespace, prefs: Prefs, early: EarlyOpen | None = None):
    """Create the main window on the chosen project; None when the user cancels."""
    from ui.annotator_dialog import ask_annotator
    from ui.main_window import MainWindow

    path = choose_project(args, prefs)
    if early is not None and early.path != path:
        early.discard()
        early = None
    if args.simulate:
        simulate_labels(path, args.simulate)
    annotator = args.annotator or ("demo" if args.screenshot else None)
    if annotator is None and isinstance(path, str):
        annotator = ""   # a server address: the annotator is the login role
    if annotator is None:
        default = prefs.last_annotator(path) or _user_name()
        annotator = ask_annotator(None, Path(path).name, default)
        if annotator is None:
            if early is not None:
                early.discard()
            return None
    window = MainWindow(prefs)
    window.open_project(path, annotator, project=early.take() if early else None)
    return window


def _user_name() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def run_gui(argv: Sequence[str]) -> int:
    """Entry point of the desk (``triage`` with no subcommand)."""
    args = build_parser().parse_args(list(argv))
    early = open_early(args)  # on a thread, while Qt loads
    from PySide6.QtWidgets import QApplication, QWidget

    from ui.errors import ErrorHook
    from ui.prefs import Prefs, log_path

    running = QApplication.instance()
    app = (running if isinstance(running, QApplication)
           else QApplication([sys.argv[0] if sys.argv else "triage"]))
    app.setApplicationName("Triage")
    desktop_identity(app)
    prefs = Prefs()
    holder: dict[str, QWidget] = {}
    hook = ErrorHook(log_path(), parent=lambda: holder.get("window")).install()
    try:
        try:
            window = build_window(args, prefs, early)
        except TriageError as error:
            print(f"triage: {error}", file=sys.stderr)
            return 2
        if window is None:
            return 0
        # Set only now: while the project opened beside Qt's loading, the default
        # switch interval spared both threads handovers (see ui.jobs.quick_handover).
        from ui.jobs import quick_handover, wait_for_images

        quick_handover()
        app.aboutToQuit.connect(wait_for_images)   # no QImage made while Qt goes away
        holder["window"] = window
        window.show()
        startup.desk_started()   # the collector again, over what is made from now on
        if args.screenshot is not None:
            from ui.window_state import stop_fitting

            stop_fitting(window)
            window.resize(*args.size)  # whatever the (offscreen) screen's size
            return _screenshot(app, window, args.screenshot)
        return app.exec()
    finally:
        hook.uninstall()


def desktop_identity(app: QApplication) -> None:
    """The window's icon, and the menu entry it belongs to (``triage --install-desktop``
    writes ``triage.desktop``; Wayland docks and task bars match the window by this name)."""
    from PySide6.QtGui import QIcon

    from triage.base.resources import resource

    app.setDesktopFileName("triage")
    app.setWindowIcon(QIcon(str(resource("icons", "triage.svg"))))


def wait_until(app: QApplication, done, timeout: float) -> bool:
    """Run the event loop until ``done()`` (True) or ``timeout`` seconds (False)."""
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            return False
        app.processEvents()
        time.sleep(0.02)
    return True


def _screenshot(app: QApplication, window, path: Path) -> int:
    settle(app)
    # The picture shows the desk as a user sees it a few seconds in: with the stopping
    # advice (computed in the helper process) and the panels' data, not "NO ADVICE".
    if not wait_until(app, lambda: window.advice_feed.latest is not None
                      and window.info is not None and not window.live_pending()
                      and not window.live_panels.busy(),
                      ADVICE_WAIT_S):
        print(f"triage: no advice after {ADVICE_WAIT_S:.0f} s; the picture shows none",
              file=sys.stderr)
    window.refresh_panels()
    for panel in window.panels:
        panel.flush()  # draw now rather than on the coalescing timer
    settle(app, 0.3)
    banner = window.advice_banner
    print(f"advice shown: {banner.badge.text()} {banner.text.text()}")
    path.parent.mkdir(parents=True, exist_ok=True)
    ok = window.grab().save(str(path))
    window.close()
    if not ok:
        print(f"triage: could not write {path}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0
