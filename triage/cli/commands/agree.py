"""``triage agree``: inter-annotator agreement of a ratings file (or a project).

Long format (default): one row per rating, columns item, annotator, label. ``--wide``:
one row per item, one column per annotator, an empty cell = no rating.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from triage.base.errors import InputError, Problem, TriageError
from triage.cli.commands._common import add_json_flag, emit
from triage.cli.commands._dialect import add_dialect_args, file_dialect
from triage.stats.agreement.ratings import BREAKDOWNS, LEVELS, numeric_values

if TYPE_CHECKING:
    from triage.ingest.read import Table

# Items, annotators and labels in long form, and the optional session/decile/time columns.
_LongForm = tuple[list[str], list[str], list[str], dict[str, list[str]]]


def _csv_list(value: str) -> list[str]:
    items = [v.strip() for v in value.split(",")]
    if not all(items):
        raise argparse.ArgumentTypeError(f"expected a comma-separated list, got {value!r}")
    return items


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``triage agree`` to the command line."""
    parser = subparsers.add_parser(
        "agree",
        help="inter-annotator agreement: Krippendorff's alpha, Cohen/Fleiss kappa, AC1",
        description="Agreement between annotators: Krippendorff's alpha (with a bootstrap "
        "95%% interval and Krippendorff's reading), Cohen's kappa per annotator pair, "
        "Fleiss' kappa, Gwet's AC1 and percent agreement. Undefined values are reported "
        "as undefined, with the reason.",
    )
    parser.add_argument("file", metavar="FILE", help="CSV/TSV/JSONL ratings, or a .triage project")
    add_dialect_args(parser.add_argument_group("how FILE is written (default: guessed)"))
    parser.add_argument("--item", default="item", metavar="COL", help="item column (item)")
    parser.add_argument("--annotator", default="annotator", metavar="COL",
                        help="annotator column, long format (annotator)")
    parser.add_argument("--label", default="label", metavar="COL",
                        help="label column, long format (label)")
    parser.add_argument("--wide", action="store_true",
                        help="one row per item; every column except --item is an annotator")
    parser.add_argument("--level", choices=LEVELS, default="nominal",
                        help="level of measurement for alpha (nominal)")
    parser.add_argument("--order", type=_csv_list, metavar="a,b,c",
                        help="category order (needed for ordinal words)")
    parser.add_argument("--categories", type=_csv_list, metavar="a,b,c",
                        help="the declared label set, including unused labels (AC1 uses it)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    parser.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                        help="bootstrap resamples for the 95%% interval; 0 = none (1000)")
    parser.add_argument("--by", action="append", choices=BREAKDOWNS, default=[],
                        help="add a breakdown (repeatable); session/decile/time need the column")
    parser.add_argument("--session", metavar="COL", help="session column for --by session")
    parser.add_argument("--decile", metavar="COL", help="score-decile column for --by decile")
    parser.add_argument("--guideline-version", metavar="COL",
                        help="guideline-version column for --by guideline_version (a project "
                             "file knows it)")
    parser.add_argument("--time", metavar="COL",
                        help="time column (ISO) for --by time: per day, or per --block")
    parser.add_argument("--block", type=int, metavar="N",
                        help="with --by time: blocks of N consecutive ratings")
    parser.add_argument("--retest", action="store_true",
                        help="test-retest agreement per annotator (needs --session)")
    add_json_flag(parser)
    parser.set_defaults(func=run)




def _categories(args: argparse.Namespace) -> list[str] | None:
    if args.order and args.categories and set(args.order) != set(args.categories):
        raise TriageError("--order and --categories name different labels")
    return args.order or args.categories


def _check_labels(table: Table, path: str, columns: list[str], args: argparse.Namespace,
                  cats: list[str] | None) -> None:
    """Every label is declared (when categories are given) and numeric where it must be."""
    problems = []
    allowed = set(cats) if cats else None
    declared = ", ".join(cats or ())
    for col in columns:
        for value, line in zip(table.strings(col), table.lines.tolist()):
            if value == "":
                continue
            if allowed is not None and value not in allowed:
                problems.append(Problem(path, line, col, f"label {value!r} is not one of the "
                                        f"declared categories ({declared})"))
            elif args.level in ("interval", "ratio") and numeric_values([value]) is None:
                problems.append(Problem(path, line, col,
                                        f"{value!r} is not a number ({args.level} level)"))
            elif args.level == "ratio" and float(value) < 0:
                problems.append(Problem(path, line, col, f"{value} is negative (ratio level)"))
    if problems:
        raise InputError(problems[:1000], total=len(problems))


def _long_arrays(args: argparse.Namespace, path: str, cats: list[str] | None) -> _LongForm:
    from triage.ingest.read import read_table

    extra = {k: getattr(args, k) for k in ("session", "decile", "time", "guideline_version")
             if getattr(args, k)}
    table = read_table(path, required=[args.item, args.annotator, args.label, *extra.values()],
                       nonempty=[args.item, args.annotator], dialect=file_dialect(args))
    _check_labels(table, path, [args.label], args, cats)
    columns = {k: table.strings(col) for k, col in extra.items()}
    return (table.strings(args.item), table.strings(args.annotator), table.strings(args.label),
            columns)


def _wide_arrays(args: argparse.Namespace, path: str, cats: list[str] | None) -> _LongForm:
    from triage.ingest.read import read_table

    table = read_table(path, dialect=file_dialect(args))
    has_item = args.item in table.columns
    raters = [c for c in table.columns if c != args.item]
    if not raters:
        raise TriageError(f"{path}: no annotator columns (every column except {args.item!r})")
    _check_labels(table, path, raters, args, cats)
    item_names = table.strings(args.item) if has_item else [str(n) for n in table.lines.tolist()]
    items: list[str] = []
    annotators: list[str] = []
    labels: list[str] = []
    for rater in raters:
        items.extend(item_names)
        annotators.extend([rater] * len(table))
        labels.extend(table.strings(rater))
    return items, annotators, labels, {}


def run(args: argparse.Namespace) -> int:
    """Run ``triage agree`` with the parsed arguments; returns the exit code."""
    if args.bootstrap < 0:
        raise TriageError("--bootstrap must be 0 or more")
    if args.block is not None and args.block < 1:
        raise TriageError("--block must be 1 or more")
    from triage.store.connection import is_sqlite_file
    from triage.store.pg.url import is_server_url

    project_file = is_server_url(args.file) or is_sqlite_file(args.file)
    for by in args.by:
        if project_file and by == "guideline_version":
            continue  # a project knows the guideline version of every label
        needs = {"session": args.session, "decile": args.decile,
                 "guideline_version": args.guideline_version}.get(by, True)
        if by == "time" and not (args.time or args.block):
            needs = None
        if not needs or (args.wide and by in ("session", "decile", "time")):
            raise TriageError(f"--by {by} needs the long format and its column (--{by.replace('_', '-')} COL"
                              + (" or --block N" if by == "time" else "") + ")")
    if args.retest and not args.session:
        raise TriageError("--retest needs the session column (--session COL)")
    from triage.project.agreement import project_report
    from triage.stats.agreement.report import agreement_report, render_text

    if project_file:
        report = project_report(args.file, args)
    else:
        cats = _categories(args)
        reader = _wide_arrays if args.wide else _long_arrays
        items, annotators, labels, extra = reader(args, args.file, cats)
        report = agreement_report(
            items, annotators, labels, level=args.level, categories=cats, seed=args.seed,
            bootstrap=args.bootstrap, breakdowns=args.by, block=args.block, retest=args.retest, **extra,
        )
    return emit(args, report.to_json(), lambda _: render_text(report))

