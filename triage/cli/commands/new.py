"""``triage new PROJECT FILE``: create a project and import its candidate pool in one go."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from triage.base.errors import TriageError
from triage.cli.commands._common import report_import
from triage.cli.commands._progress import ProgressBar
from triage.cli.commands._project_args import (
    add_interchange_args,
    add_mapping_args,
    add_settings_args,
    interchange_summary,
    mapping_from_args,
    read_dialect,
    read_options,
    report_pictures,
    settings_changes,
)
from triage.views.formatting import plural

if TYPE_CHECKING:
    from triage.store.pg.ahead import Ahead
    from triage.store.pg.url import ServerUrl


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage new`` to the command line."""
    # Each option's help says its default where it has one (no formatter adds a second).
    p = sub.add_parser("new", help="create a project from a CSV/TSV/JSONL/Parquet file or "
                       "spreadsheet of scored candidates")
    p.add_argument("project", help="the new project file (e.g. idioms.triage), or a server "
                   "address postgresql://[USER@]HOST[:PORT]/DB?project=NAME")
    p.add_argument("file", type=Path, help="CSV, TSV, JSONL, Parquet or a spreadsheet (.xlsx, "
                   ".ods) with one candidate per row")
    add_mapping_args(p, text_required=False)
    add_interchange_args(p)
    add_settings_args(p)
    p.set_defaults(func=run)


def replace_interrupted(path: Path) -> None:
    """An earlier ``triage new`` of this file was killed mid-import: start it again."""
    from triage.project.checkup import replace_abandoned

    if replace_abandoned(path):
        print(f"triage: replacing {path}: an earlier `triage new` was interrupted before its "
              "import finished (it held no candidates and no labels)", file=sys.stderr)


def _cleanup(path: Path) -> None:
    for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        leftover.unlink(missing_ok=True)


def run_interchange(args: argparse.Namespace) -> int:
    """``triage new PROJECT FILE --from prodigy|labelstudio``: pool, scores and labels."""
    from triage.project import create_project
    from triage.project.exchange import import_interchange, read_interchange, scheme_for
    from triage.store.settings import Settings

    if Path(args.project).exists():
        raise TriageError(f"{args.project} already exists")
    changes = settings_changes(args)
    # Without --labels the scheme comes from the file: --positive is applied after it.
    positive = () if args.labels else changes.pop("positive_labels", ())
    active = changes.pop("active_model", None)
    settings = Settings().with_changes(**changes)
    ex = read_interchange(args.file, args.source_format, read_options(args))
    settings = scheme_for(ex, settings, args.reject_label, bool(args.labels), positive)
    project = create_project(args.project, settings)
    ok = False
    try:
        result = import_interchange(project, ex, reject_label=args.reject_label)
        if active:
            project.update_settings(active_model=active)
        ok = True
        print("created " + interchange_summary(args.project, result))
        report_pictures(project, args)
    finally:
        project.close()
        if not ok:  # a failed import leaves nothing behind
            _cleanup(args.project)
    if not args.labels and not positive:
        print(f"  positive label: {', '.join(settings.positive_labels)} "
              f"(of {', '.join(o.value for o in settings.labels)}; --positive chooses)")
    return 0


def _overlap_plan(settings: Any, models: list[str]) -> Any:
    """The overlap plan to store with the active model's ranking (as a file's import does)."""
    if settings.overlap_rate <= 0 or not models:
        return None
    from triage.serving.dispatcher import overlap_plan

    active = settings.active_model if settings.active_model in models else models[0]
    return lambda model: (overlap_plan(model.candidate_ids, settings.overlap_rate,
                                       settings.seed) if model.name == active else None)


def run_server(args: argparse.Namespace) -> int:
    """``triage new postgresql://…?project=NAME FILE``: the pool straight to the server."""
    from triage.store.pg.ahead import begin
    from triage.store.pg.url import parse_url

    url = parse_url(args.project)
    if args.source_format:
        raise TriageError("--from files carry labels: create a project file from it, "
                          "then publish it with `triage push FILE URL`")
    if not args.text:
        raise TriageError("give the text column with --text COLUMN")
    if not args.score:
        raise TriageError("give at least one model score column with --score NAME=COLUMN")
    # The server makes the project's schema while this process loads the importer (all of
    # it in the import's one transaction: nothing is committed unless the import is).
    ahead = begin(url)
    try:
        return _create_on_server(args, url, ahead)
    finally:
        ahead.close()


def _create_on_server(args: argparse.Namespace, url: ServerUrl, ahead: Ahead) -> int:
    """The import of ``run_server``, in the transaction ``ahead`` began."""
    from triage.ingest.server import create_on_server
    from triage.store.settings import Settings

    reading = read_dialect(args)
    if reading:
        print(f"guessed: {reading}", file=sys.stderr)
    settings = Settings().with_changes(**settings_changes(args))
    bar = ProgressBar("importing")
    try:
        result = create_on_server(args.project, args.file, mapping_from_args(args), settings,
                                  skip_invalid=args.skip_invalid, progress=bar,
                                  plan=_overlap_plan(settings, [m for m, _ in args.score]),
                                  ahead=ahead)
    finally:
        bar.finish()
    return report_import(f"created {url.display}: {plural(result.rows_imported, 'candidate')}, "
                         f"models {', '.join(result.models)}", result)


def _guess(args: argparse.Namespace, reading: str) -> None:
    """Fill the mapping the user left out from the file's names and values (the dialog's
    guesses), and say so: ``guessed: text=..., key=..., scores=...``."""
    import sys

    from triage.ingest.read import read_table
    from triage.views.new_project import (
        describe_guess,
        guess_mapping,
        is_spreadsheet,
        profile,
        sheet_with_data,
    )

    found = profile(args.file, getattr(args, "sheet", None), args.dialect)
    if is_spreadsheet(args.file) and not getattr(args, "sheet", None):
        elsewhere = sheet_with_data(args.file, None, found)
        if elsewhere:
            raise TriageError(f"{args.file}: {elsewhere}")
    if found.rows == 0:
        read_table(args.file, dialect=args.dialect)  # the reader's reason, when it has one
        raise TriageError(f"{args.file}: the file has a header but no rows of data; there "
                          "is nothing to import")
    guess = guess_mapping(found)
    if not args.text and not args.image and guess["image"]:  # picture file names
        args.image, args.text = guess["image"], guess["text"]  # the caption only if named
    args.text = args.text or (None if args.image else guess["text"])  # a picture needs none
    args.key = args.key or guess["key"]
    args.gold = args.gold or guess["gold"]
    if not args.score:
        args.score = [(name, name) for name in guess["scores"] if name != args.gold]
        if not args.score:
            names = ", ".join(repr(c.name) for c in found.columns) or "none"
            raise TriageError(f"{args.file}: no column looks like a model's score (the "
                              f"columns are {names}): give --score NAME=COLUMN, or "
                              "--header-row N when the names are not on the first row")
    used = {"text": args.text, "image": args.image, "key": args.key, "gold": args.gold,
            "scores": [column for _name, column in args.score]}
    print(f"guessed: {describe_guess(used)}{'; ' + reading if reading else ''} (give "
          "--text or --image, --key, --score, --gold" + (", --delimiter, --decimal, "
          "--encoding, --header-row" if reading else "") + " to choose otherwise)",
          file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    """Run ``triage new`` with the parsed arguments; returns the exit code."""
    from triage.store.pg.url import is_server_url

    if is_server_url(args.project):  # before loading the project package: it is not needed
        return run_server(args)
    from triage.project import create_project
    from triage.store.settings import Settings

    args.project = Path(args.project)
    replace_interrupted(args.project)
    if args.source_format:
        return run_interchange(args)
    reading = read_dialect(args)
    if not (args.text or args.image) or not args.score:
        _guess(args, reading)
    elif reading:
        print(f"guessed: {reading} (give --delimiter, --decimal, --encoding, --header-row "
              "to choose otherwise)", file=sys.stderr)
    if not args.text and not args.image:
        raise TriageError("give the text column with --text COLUMN (or pictures with --image)")
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
        bar.finish()
        report_pictures(project, args)
    finally:
        bar.finish()
        project.close()
        if not ok:  # a failed import leaves nothing behind
            _cleanup(args.project)
    return report_import(f"created {args.project}: {plural(result.rows_imported, 'candidate')}, "
                         f"models {', '.join(result.models)}", result)
