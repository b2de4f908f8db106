"""Start Triage: the desk with no subcommand, the headless command line with one.

This module is also the installed ``triage`` entry point. The GUI is imported only when
it is wanted, so scripted commands never load Qt.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from triage import cli
    from triage.base import startup

    ending = argv is None  # the program's entry (``triage``, ``python main.py``): the
    # process ends when this returns; a caller passing arguments (a test) lives on
    argv = list(sys.argv[1:] if argv is None else argv)
    if cli.gui_requested(argv):
        startup.desk_starting()   # the start-up policy: no collection until it is up
        try:
            # The core (numpy, sqlite-utils) before Qt: once PySide6 is loaded, its import
            # hook reads the source of every module imported after it (looking for
            # ``from __feature__``), time spent before the first candidate (see
            # docs/benchmarks.md, The desk).
            import triage.project  # noqa: F401
            from ui.app import run_gui

            return run_gui(argv)
        finally:
            startup.desk_started()
    code = cli.main(argv)
    if ending:
        startup.freeze_survivors()   # shutdown's collections skip what the command made
    return code


if __name__ == "__main__":
    sys.exit(main())
