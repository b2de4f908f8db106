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


def add_scored_file_arguments(parser: argparse.ArgumentParser, *, file_help: str,
                               gold_required: bool) -> None:
    """FILE, --score NAME=COLUMN (repeatable), --gold COLUMN, --positive VALUE (repeatable).

    The arguments every command over a file of model scores and gold labels shares
    (``gain``, ``simulate``, ``value``, ``compare``), spelt the same everywhere.
    """
    parser.add_argument("file", metavar="FILE", help=file_help)
    parser.add_argument("--score", action="append", type=parse_score_option, default=[],
                        metavar="NAME=COLUMN", help="a model's score column (repeatable)")
    parser.add_argument("--gold", required=gold_required, metavar="COLUMN",
                        help="column holding the gold label")
    parser.add_argument("--positive", action="append", default=[], metavar="VALUE",
                        help="gold value that counts as positive (repeatable)")
    from triage.cli.commands._dialect import add_dialect_args

    add_dialect_args(parser.add_argument_group("how FILE is written (default: guessed)"))


def add_model_file_arguments(parser: argparse.ArgumentParser) -> None:
    """The scored-file arguments plus --labels-followed and --seed (``value``, ``compare``)."""
    add_scored_file_arguments(parser, file_help="CSV/TSV/JSONL file with scores and gold labels",
                              gold_required=True)
    parser.add_argument("--labels-followed", metavar="MODEL",
                        help="say that the gold labels were gathered by following MODEL's "
                        "ranking (adds the biased-sample warning)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    """Every command that reports numbers takes ``--json``."""
    parser.add_argument(
        "--json", action="store_true", help="print machine-readable JSON (keys in docs/cli.md)"
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


def report_import(summary: str, result: Any) -> int:
    """Print the import's summary line and where any rejected rows went; returns 0."""
    print(summary)
    if result.rows_rejected:
        from triage.views.formatting import plural

        print(f"{plural(result.rows_rejected, 'row')} rejected; see {result.rejects_path}")
    return 0
