"""Start Triage: the desk with no subcommand, the headless command line with one.

This module is also the installed ``triage`` entry point. The GUI is imported only when
it is wanted, so scripted commands never load Qt.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from triage import cli

    argv = list(sys.argv[1:] if argv is None else argv)
    if cli.gui_requested(argv):
        from ui.app import run_gui

        return run_gui(argv)
    return cli.main(argv)


if __name__ == "__main__":
    sys.exit(main())
