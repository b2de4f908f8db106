"""The ``triage`` command line: :mod:`triage.cli.program` builds the parser from the
subcommand modules in :mod:`triage.cli.commands` (one module per subcommand).

``python -m triage.cli`` runs the headless command line alone.
"""

from triage.cli.program import build_parser, gui_requested, main

__all__ = ["build_parser", "gui_requested", "main"]
