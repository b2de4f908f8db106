"""The ``triage`` command line.

Each subcommand lives in its own module under :mod:`triage.cli.commands` and exposes
``register(subparsers)``, which adds its parser and sets ``func`` to a callable taking
the parsed arguments and returning an exit code. Modules are discovered at start-up, so
adding a command never means editing this file.

With no subcommand the desk (GUI) opens: that dispatch lives in the top-level
``main.py`` (also the ``triage`` entry point), because this package never imports Qt or
``ui``. ``python -m triage.cli.program`` is the headless command line alone.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sqlite3
import sys
from collections.abc import Sequence

from triage import __version__
from triage.base.errors import TriageError
from triage.cli import commands


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every discovered subcommand."""
    parser = argparse.ArgumentParser(
        prog="triage",
        description="Budget-limited annotation of model-ranked candidates.",
    )
    parser.add_argument("--version", action="version", version=f"triage {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(sub)
    return parser


def gui_requested(argv: Sequence[str]) -> bool:
    """True when no subcommand is given: the GUI owns the argument list then."""
    if not argv:
        return True
    first = argv[0]
    if first in ("-h", "--help", "--version"):
        return False
    known = {m.name.rstrip("_") for m in pkgutil.iter_modules(commands.__path__)}
    return first not in known


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand headless; print help when none is given."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
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
        print(f"triage: {fault_sentence(error, getattr(args, 'project', None))}",
              file=sys.stderr)
        return 2 if isinstance(error, (OSError, sqlite3.Error)) else 1


def fault_sentence(error: BaseException, where: object) -> str:
    """One sentence for a fault no command turned into a TriageError (disk, file, damage)."""
    from triage.views.text import unexpected_fault

    place = str(where) if isinstance(where, (str, os.PathLike)) else None
    if isinstance(error, OSError) and error.strerror and error.errno is not None:
        from triage.store.faults import explain

        named = str(error.filename) if error.filename else place
        explained = explain(error, named)
        if explained is None:
            return f"{named}: {error.strerror.lower()}"
        return str(explained)
    return unexpected_fault(error, place) + ("" if isinstance(error, sqlite3.Error) else
                                             " (TRIAGE_DEBUG=1 shows the details)")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
