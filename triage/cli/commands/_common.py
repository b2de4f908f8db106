"""Helpers shared by the subcommands: score/column options and JSON or text output."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from triage.base.errors import TriageError
from triage.base.jsonutil import jsonable

__all__ = ["add_json_flag", "emit", "jsonable", "parse_score_option", "require"]


def parse_score_option(value: str) -> tuple[str, str]:
    """Parse ``NAME=COLUMN`` (or just ``COLUMN``, which names the model after it)."""
    name, sep, column = value.partition("=")
    if not sep:
        column = name
    name, column = name.strip(), column.strip()
    if not name or not column:
        raise argparse.ArgumentTypeError(f"expected NAME=COLUMN, got {value!r}")
    return name, column


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Every command that reports numbers takes ``--json``."""
    parser.add_argument(
        "--json", action="store_true", help="print machine-readable JSON (keys documented in README)"
    )


def emit(args: argparse.Namespace, data: Any, render_text: Callable[[Any], str]) -> int:
    """Print ``data`` as JSON when ``--json`` was given, else as human-readable text."""
    if getattr(args, "json", False):
        json.dump(jsonable(data), sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(data).rstrip("\n") + "\n")
    return 0


def require(condition: bool, message: str) -> None:
    """Raise a user-facing error unless ``condition`` holds."""
    if not condition:
        raise TriageError(message)
