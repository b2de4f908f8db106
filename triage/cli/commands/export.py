"""``triage export PROJECT OUT``: candidates with their final labels, as CSV or JSONL."""

from __future__ import annotations

import argparse
from pathlib import Path

from triage.base.errors import TriageError
from triage.cli.commands._progress import ProgressBar
from triage.project.files import project_location
from triage.views.formatting import plural


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage export`` to the command line."""
    p = sub.add_parser("export", help="write candidates and their final labels to CSV, JSONL or Parquet, or for Prodigy or Label Studio")
    p.add_argument("project", type=project_location)
    p.add_argument("out", type=Path, help="output file (.csv, .jsonl or .parquet); replaced atomically")
    p.add_argument("--format", choices=["csv", "jsonl", "parquet"],
                   help="output format (default: from the file extension)")
    p.add_argument("--labeled-only", action="store_true", help="only candidates with a label event")
    p.add_argument("--to", choices=["prodigy", "labelstudio"],
                   help="write for another tool: Prodigy JSONL (label events, for db-in) or "
                   "Label Studio JSON (tasks with predictions and annotations)")
    p.add_argument("--annotator-email", action="append", default=[], metavar="NAME=EMAIL",
                   help="Label Studio: the user email of a Triage annotator, written as the "
                   "annotation's completed_by (repeatable; annotators not given are left out, "
                   "since Label Studio refuses emails it does not know)")
    p.add_argument("--embed-pictures", action="store_true",
                   help="Prodigy / Label Studio: write each local picture as a base64 data "
                   "URI (as Prodigy's image recipes do) instead of its absolute path")
    p.add_argument("--dataset", metavar="NAME",
                   help="Prodigy: dataset name in _session_id (default: the project's name)")
    p.set_defaults(func=run)


def _pair(value: str) -> tuple[str, str]:
    name, sep, email = value.rpartition("=")
    if not sep or not name.strip() or "@" not in email:
        raise TriageError(f"--annotator-email {value!r}: expected NAME=EMAIL")
    return name.strip(), email.strip()


def run(args: argparse.Namespace) -> int:
    """Run ``triage export`` with the parsed arguments; returns the exit code."""
    from triage.project.export import export_project

    if args.embed_pictures and not args.to:
        raise TriageError("--embed-pictures is for --to prodigy or --to labelstudio")
    if args.to:
        from triage.project.exchange import export_interchange

        emails = dict(_pair(v) for v in args.annotator_email)
        done = export_interchange(args.project, args.out, args.to, dataset=args.dataset,
                                  emails=emails, embed_pictures=args.embed_pictures)
        what = "label events" if args.to == "prodigy" else "tasks"
        print(f"wrote {done.count:,} {what} to {args.out}"
              + "".join(f"\n  note: {n}" for n in done.notes))
        return 0

    bar = ProgressBar("exporting")
    try:
        count = export_project(args.project, args.out, fmt=args.format,
                               labeled_only=args.labeled_only, progress=bar)
    finally:
        bar.finish()
    print(f"wrote {plural(count, 'candidate')} to {args.out}")
    return 0
