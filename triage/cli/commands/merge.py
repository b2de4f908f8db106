"""``triage merge TARGET SOURCE...``: bring the labels of project copies into one file."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any

from triage.cli.commands._common import add_json_flag, emit


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage merge`` to the command line."""
    p = sub.add_parser(
        "merge", help="merge the labels of copies of a project into TARGET (idempotent)")
    p.add_argument("target", type=Path, help="the project that receives the labels")
    p.add_argument("sources", type=Path, nargs="+", metavar="SOURCE",
                   help="copies of the same project (opened read-only, never changed)")
    add_json_flag(p)
    p.set_defaults(func=run)


def render(data: dict[str, Any]) -> str:
    """What each copy added, and the totals, as a text table."""
    lines = [f"merged {len(data['sources'])} cop{'y' if len(data['sources']) == 1 else 'ies'} "
             f"into {data['target']}",
             f"{'source':<32} {'annotators':>10} {'sessions':>9} {'labels':>8} {'undo marks':>10}"]
    for s in data["sources"]:
        lines.append(f"{s['source'][-32:]:<32} {s['annotators_added']:>10,} "
                     f"{s['sessions_added']:>9,} {s['labels_added']:>8,} "
                     f"{s['undo_marks_applied']:>10,}")
    lines.append(f"{'added in total':<32} {data['annotators_added']:>10,} "
                 f"{data['sessions_added']:>9,} {data['labels_added']:>8,} "
                 f"{data['undo_marks_applied']:>10,}")
    if not (data["labels_added"] or data["sessions_added"] or data["undo_marks_applied"]
            or data["annotators_added"]):
        lines.append("nothing new: the target already had everything in these copies")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``triage merge`` with the parsed arguments; returns the exit code."""
    from triage.project.merge import merge_projects

    report = merge_projects(args.target, args.sources)
    return emit(args, asdict(report), render)
