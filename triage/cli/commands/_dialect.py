"""How a text file is written, on the command line: --delimiter, --decimal, --encoding,
--header-row, and the guesses for what they leave open (see :mod:`triage.ingest.read.dialect`)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from triage.base.errors import TriageError

if TYPE_CHECKING:
    from triage.ingest.read import Dialect


_DELIMITERS = {",": ",", ";": ";", "tab": "\t", "\\t": "\t", "\t": "\t", "|": "|"}


def _delimiter(text: str) -> str:
    if text.lower() not in _DELIMITERS:
        raise argparse.ArgumentTypeError(f"{text!r}: use one of , ; tab |")
    return _DELIMITERS[text.lower()]


def _decimal(text: str) -> str:
    if text not in (".", ","):
        raise argparse.ArgumentTypeError(f"{text!r}: use . or ,")
    return text


def _header_row(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give the header's line (row) number, "
                                         "1 or more")
    return int(text)


def add_dialect_args(group: Any) -> None:
    """--delimiter, --decimal, --encoding, --header-row: how a text file is written."""
    group.add_argument("--delimiter", type=_delimiter, metavar="CHAR",
                       help="field separator of a CSV/TSV file: , ; tab or | (default: "
                       "guessed from the file)")
    group.add_argument("--decimal", type=_decimal, metavar="CHAR",
                       help="decimal separator of numbers: . or , (default: guessed)")
    group.add_argument("--encoding", metavar="NAME",
                       help="text encoding: utf-8, cp1252 or latin-1 (default: UTF-8, with "
                       "or without a byte-order mark)")
    group.add_argument("--header-row", type=_header_row, metavar="N",
                       help="the line (a spreadsheet's row number) holding the column names, "
                       "when a title stands above it (default: guessed)")


def given_dialect(args: argparse.Namespace) -> tuple[Dialect, frozenset[str]]:
    """The dialect options the user gave, and which of them they gave."""
    from triage.ingest.read import Dialect

    chosen = {n for n in ("delimiter", "decimal", "encoding", "header_row")
              if getattr(args, n, None) is not None}
    dialect = Dialect(delimiter=getattr(args, "delimiter", None),
                      decimal=getattr(args, "decimal", None) or ".",
                      encoding=getattr(args, "encoding", None) or "utf-8",
                      header_row=getattr(args, "header_row", None),
                      sheet=getattr(args, "sheet", None))
    return dialect, frozenset(chosen)


def read_dialect(args: argparse.Namespace) -> str:
    """Settle how FILE is written (``args.dialect``): the options given, the rest guessed.

    Returns the guesses with their reasons ('' for a plain file). An encoding other than
    UTF-8 is never taken silently: the command ends naming ``--encoding``.
    """
    # What views.new_project.read_as does, without loading the project package through
    # it (a fifth of a second of `triage new URL`'s start, which never opens a project).
    from triage.ingest.read import Sniffed, format_of, sniff, sniff_sheet

    given, chosen = given_dialect(args)
    kind = format_of(args.file)
    sniffed = (sniff_sheet(args.file, given, chosen) if kind in ("xlsx", "ods")
               else Sniffed(given) if kind == "parquet"
               else sniff(args.file, kind, given, chosen))
    refusal = sniffed.refusal()
    if refusal:
        raise TriageError(f"{args.file}: {refusal}")
    args.dialect = sniffed.dialect
    return sniffed.describe()


def file_dialect(args: argparse.Namespace) -> Dialect:
    """The dialect of ``args.file`` for commands that read it; the guesses go to stderr."""
    reading = read_dialect(args)
    if reading:
        print(f"guessed: {reading} (give --delimiter, --decimal, --encoding, --header-row "
              "to choose otherwise)", file=sys.stderr)
    return args.dialect
