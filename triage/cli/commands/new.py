"""``triage new PROJECT FILE``: create a project and import its candidate pool in one go."""

from __future__ import annotations

import argparse
from pathlib import Path

from triage.base.errors import TriageError
from triage.cli.commands._progress import ProgressBar
from triage.cli.commands._project_args import (
    add_mapping_args,
    add_settings_args,
    mapping_from_args,
    settings_changes,
)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage new`` to the command line."""
    p = sub.add_parser("new", help="create a project from a CSV/TSV/JSONL file of scored candidates",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("project", type=Path, help="the new project file (e.g. idioms.triage)")
    p.add_argument("file", type=Path, help="CSV, TSV or JSONL with one candidate per row")
    add_mapping_args(p)
    add_settings_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``triage new`` with the parsed arguments; returns the exit code."""
    from triage.project import create_project
    from triage.store.settings import Settings

    if not args.score:
        raise TriageError("give at least one model score column with --score NAME=COLUMN")
    settings = Settings().with_changes(**settings_changes(args))
    project = create_project(args.project, settings)
    bar = ProgressBar("importing")
    ok = False
    try:
        result = project.import_file(args.file, mapping_from_args(args),
                                     skip_invalid=args.skip_invalid, progress=bar)
        if settings.active_model and settings.active_model not in {m.name for m in project.models}:
            raise TriageError(f"--active-model {settings.active_model!r} is not one of the models")
        ok = True
    finally:
        bar.finish()
        project.close()
        if not ok:  # a failed import leaves nothing behind
            for leftover in (args.project, Path(f"{args.project}-wal"), Path(f"{args.project}-shm")):
                leftover.unlink(missing_ok=True)
    print(f"created {args.project}: {result.rows_imported:,} candidates, "
          f"models {', '.join(result.models)}")
    if result.rows_rejected:
        print(f"{result.rows_rejected:,} rows rejected; see {result.rejects_path}")
    return 0
