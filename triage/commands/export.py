"""``triage export PROJECT OUT``: candidates with their final labels, as CSV or JSONL."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from triage.errors import TriageError


def register(sub) -> None:
    p = sub.add_parser("export", help="write candidates and their final labels to CSV or JSONL")
    p.add_argument("project", type=Path)
    p.add_argument("out", type=Path, help="output file (.csv or .jsonl); replaced atomically")
    p.add_argument("--format", choices=["csv", "jsonl"],
                   help="output format (default: from the file extension)")
    p.add_argument("--labeled-only", action="store_true", help="only candidates with a label event")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from triage.export import write_table
    from triage.exporting import export_fields, export_rows
    from triage.project import open_project

    fmt = args.format or args.out.suffix.lower().lstrip(".")
    if fmt not in ("csv", "jsonl"):
        raise TriageError(f"{args.out}: unknown export format; use .csv or .jsonl or --format")
    with open_project(args.project) as project:
        fields = export_fields(project)
        rows = export_rows(project)
        if args.labeled_only:
            rows = (r for r in rows if r["label_status"] != "unlabeled")
        if fmt == "csv":  # metadata as JSON text in one CSV cell
            rows = ({**r, "meta": "" if r["meta"] is None else json.dumps(r["meta"],
                     ensure_ascii=False)} for r in rows)
        counted = [0]

        def counting(source):
            for row in source:
                counted[0] += 1
                yield row

        write_table(args.out, fields, counting(rows), fmt=fmt)
    print(f"wrote {counted[0]:,} candidates to {args.out}")
    return 0
