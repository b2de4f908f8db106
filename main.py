"""Start Triage: the desk with no subcommand, the headless command line with one.

This module is also the installed ``triage`` entry point. The GUI is imported only when
it is wanted, so scripted commands never load Qt.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from triage import cli

    ending = argv is None  # the program's entry (``triage``, ``python main.py``): the
    # process ends when this returns; a caller passing arguments (a test) lives on
    argv = list(sys.argv[1:] if argv is None else argv)
    if cli.gui_requested(argv):
        # Starting the desk creates a few hundred thousand objects that live as long as it
        # does (modules, classes, Qt wrappers, the open project); each full collection
        # would walk them all (tens of milliseconds, several times before the first
        # candidate). The collector waits until the window is up; run_gui then freezes
        # them out of later collections.
        gc.disable()
        try:
            # The core (numpy, sqlite-utils) before Qt: once PySide6 is loaded, its import
            # hook reads the source of every module imported after it (looking for
            # ``from __feature__``), a tenth of a second spent before the first candidate.
            import triage.project  # noqa: F401
            from ui.app import run_gui

            return run_gui(argv)
        finally:
            gc.enable()
    code = cli.main(argv)
    if ending:
        # Interpreter shutdown runs full collections while it empties the modules, over
        # every object numpy, pyarrow and the rest made: 0.15-0.2 s of CPU after
        # `triage new` of a million rows (measured), for memory the system takes back at
        # exit anyway. Frozen objects are left out of them. Files and connections are
        # closed by then (every command closes its own); atexit handlers still run.
        gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(main())
