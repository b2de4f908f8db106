"""The ``triage`` command line.

Each subcommand lives in its own module under :mod:`triage.cli.commands` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a callable taking
the parsed arguments and returning an exit code. A run imports only the module of the
command it runs (importing all of them would load every command's dependencies at every
start); :data:`COMMANDS` names every command with its one-line help for ``triage
--help``, and ``tests/test_cli_core.py`` holds it equal to the modules.

With no subcommand the desk (GUI) opens: that dispatch lives in the top-level
``main.py`` (also the ``triage`` entry point), because this package never imports Qt or
``ui``. ``python -m triage.cli.program`` is the headless command line alone.
"""

from __future__ import annotations

import argparse
import importlib
import keyword
import os
import sqlite3
import sys
from collections.abc import Sequence

from triage import __version__
from triage.base import startup
from triage.base.errors import TriageError
from triage.cli import commands

# Every command and its help line, as its module registers it (a test checks they agree).
COMMANDS: dict[str, str] = {
    "adjudicate": "list candidates whose annotators disagree, or rule on one",
    "advise": "should annotation continue? budget, marginal value, recall estimate and "
              "certificate, knee, Quant and reliability rules",
    "agree": "inter-annotator agreement: Krippendorff's alpha, Cohen/Fleiss kappa, AC1",
    "backup": "copy a project safely, even while desks label it",
    "check": "check a project file for damage (full integrity check)",
    "compare": "precision, recall, F1, MCC, SBA, ROC-AUC, AP, NDCG per model, with "
               "significance",
    "config": "show or change project settings (label scheme, prices, ...)",
    "export": "write candidates and their final labels to CSV, JSONL or Parquet, or for Prodigy or Label Studio",
    "gain": "gain and cumulative gain by decile, and what a budget buys, per model",
    "import": "import candidates, or --add-scores of a later model",
    "learn": "fit the cal ranking on the labels now and store it for every desk "
             "(or --verify the stored snapshots)",
    "merge": "merge the labels of copies of a project into TARGET (idempotent)",
    "new": "create a project from a CSV/TSV/JSONL/Parquet file or spreadsheet of scored candidates",
    "pull": "copy a project from a PostgreSQL server into a new project file",
    "push": "publish a project file, labels and all, to a PostgreSQL server for a team",
    "report": "the lead's report as self-contained HTML or PDF",
    "server": "set up a team project on a PostgreSQL server",
    "simulate": "backtest the stopping rules on labeled data",
    "status": "spend, positives found and yield per decile of a project",
    "value": "model value with a reject option per error cost k, and what to auto-accept",
}
# Options that act on the desktop, not on a project (triage.cli.desktop); never the GUI's.
DESKTOP_FLAGS = ("--install-desktop", "--uninstall-desktop")


def command_module(name: str) -> str:
    """The module that defines command ``name`` (``import`` lives in ``import_``)."""
    return f"{commands.__name__}.{name}_" if keyword.iskeyword(name) else \
        f"{commands.__name__}.{name}"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser; with ``only``, the other commands are listed by name and help.

    Only ``only``'s module is imported then (all of them without it), which is enough for
    ``triage --help`` and for running that command.
    """
    parser = argparse.ArgumentParser(
        prog="triage",
        description="Budget-limited annotation of model-ranked candidates.",
    )
    parser.add_argument("--version", action="version", version=f"triage {__version__}")
    desktop = parser.add_mutually_exclusive_group()
    desktop.add_argument(DESKTOP_FLAGS[0], action="store_true",
                         help="add Triage to the desktop's applications menu, with its icon, "
                              "and open .triage files with it (freedesktop: Linux, BSD)")
    desktop.add_argument(DESKTOP_FLAGS[1], action="store_true",
                         help=f"remove what {DESKTOP_FLAGS[0]} wrote")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_line in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(command_module(name)).register(sub)
        else:
            sub.add_parser(name, help=help_line)
    return parser


def gui_requested(argv: Sequence[str]) -> bool:
    """True when no subcommand is given: the GUI owns the argument list then."""
    if not argv:
        return True
    first = argv[0]
    if first in ("-h", "--help", "--version", *DESKTOP_FLAGS):
        return False
    return first not in COMMANDS


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand headless; print help when none is given."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv[0] if argv and argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    flag = _desktop_flag(args)
    if flag is not None and getattr(args, "func", None) is not None:
        parser.error(f"{flag} takes no command")
    if flag is None and getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        if flag is not None:
            from triage.cli import desktop

            return desktop.run(flag)
        startup.prepare_command(argv[0])
        return int(args.func(args) or 0)
    except TriageError as error:
        print(f"triage: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("triage: interrupted; nothing after the last commit was written", file=sys.stderr)
        return 130
    except Exception as error:  # noqa: BLE001 - a fault is a sentence, never a traceback
        if os.environ.get("TRIAGE_DEBUG"):
            raise
        if isinstance(error, ImportError) and error.name == "psycopg":
            from triage.store.pg.connect import MISSING_DRIVER

            print(f"triage: {MISSING_DRIVER}", file=sys.stderr)
            return 2
        sentence, known = fault_sentence(error, getattr(args, "project", None))
        print(f"triage: {sentence}", file=sys.stderr)
        return 2 if known or isinstance(error, (OSError, sqlite3.Error)) else 1
    finally:
        startup.command_finished()


def _desktop_flag(args: argparse.Namespace) -> str | None:
    """The desktop option given (``--install-desktop`` or ``--uninstall-desktop``), if any."""
    for flag in DESKTOP_FLAGS:
        if getattr(args, flag.lstrip("-").replace("-", "_"), False):
            return flag
    return None


def fault_sentence(error: BaseException, where: object) -> tuple[str, bool]:
    """One sentence for a fault no command turned into a TriageError, and whether we know it.

    Faults are the disk's, the file's or damage; recognised ones are a full disk, a
    read-only file and the like.
    """
    from triage.store.faults import explain
    from triage.views.text import unexpected_fault

    place = str(where) if isinstance(where, (str, os.PathLike)) else None
    if isinstance(error, OSError) and error.strerror and error.errno is not None:
        named = str(error.filename) if error.filename else place
        explained = explain(error, named)
        if explained is None:
            return f"{named}: {error.strerror.lower()}", False
        return str(explained), True
    explained = explain(error, place)   # also what the bulk writer (ADBC, Arrow) reports
    if explained is not None:
        return str(explained), True
    return unexpected_fault(error, place) + ("" if isinstance(error, sqlite3.Error) else
                                             " (TRIAGE_DEBUG=1 shows the details)"), False


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
