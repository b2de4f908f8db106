"""``triage import PROJECT FILE``: import the pool into an empty project, or add model scores."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from triage.base.errors import TriageError
from triage.cli.commands._common import report_import
from triage.cli.commands._progress import ProgressBar
from triage.cli.commands._project_args import (
    add_interchange_args,
    add_mapping_args,
    interchange_summary,
    mapping_from_args,
    read_dialect,
    read_options,
    report_pictures,
)
from triage.project.files import project_location
from triage.views.formatting import plural


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage import`` to the command line."""
    p = sub.add_parser("import", help="import candidates, or --add-scores of a later model")
    p.add_argument("project", type=project_location)
    p.add_argument("file", type=Path)
    add_mapping_args(p, text_required=False)
    p.add_argument("--add-scores", action="store_true",
                   help="add the --score columns to existing candidates, matched by --key")
    add_interchange_args(p)
    p.set_defaults(func=run)


def run_interchange(args: argparse.Namespace) -> int:
    """``--from prodigy|labelstudio``: the pool (into an empty project) or labels only."""
    from triage.project import open_project
    from triage.project.exchange import import_interchange, read_interchange

    options = read_options(args)
    with open_project(args.project) as project:
        ex = read_interchange(args.file, args.source_format, options)
        result = import_interchange(project, ex, reject_label=args.reject_label)
        print("imported into " + interchange_summary(args.project, result))
        report_pictures(project, args)
    return 0


def run(args: argparse.Namespace) -> int:
    """Run ``triage import`` with the parsed arguments; returns the exit code."""
    from triage.project import open_project

    if args.source_format:
        return run_interchange(args)
    if not args.score:
        raise TriageError("give at least one model score column with --score NAME=COLUMN")
    bar = ProgressBar("importing")
    with open_project(args.project) as project:
        try:
            if args.add_scores:
                if not args.key:
                    raise TriageError("--add-scores matches rows by key: give --key COLUMN")
                result = project.add_scores(args.file, key=args.key, scores=list(args.score),
                                            progress=bar)
            else:
                if not args.text and not args.image:
                    raise TriageError("give the text column with --text COLUMN (or pictures "
                                      "with --image)")
                reading = read_dialect(args)
                if reading:
                    print(f"guessed: {reading} (give --delimiter, --decimal, --encoding, "
                          "--header-row to choose otherwise)", file=sys.stderr)
                result = project.import_file(args.file, mapping_from_args(args),
                                             skip_invalid=args.skip_invalid, progress=bar)
                bar.finish()
                report_pictures(project, args)
        finally:
            bar.finish()
    return report_import(f"imported {plural(result.rows_imported, 'row')} into {args.project}; "
                         f"models {', '.join(result.models)}", result)
