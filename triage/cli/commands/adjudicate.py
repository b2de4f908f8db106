"""``triage adjudicate PROJECT``: list disagreements, or record a ruling on one."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import Any

from triage.base.errors import TriageError
from triage.cli.commands._common import add_json_flag, emit
from triage.project.files import project_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage adjudicate`` to the command line."""
    p = sub.add_parser("adjudicate",
                       help="list candidates whose annotators disagree, or rule on one")
    p.add_argument("project", type=project_location)
    p.add_argument("--list", action="store_true",
                   help="list the disagreements awaiting a ruling (the default)")
    p.add_argument("--key", help="the candidate to rule on (its key)")
    p.add_argument("--label", help="the final label")
    p.add_argument("--annotator", help="who rules (recorded as an adjudication session)")
    p.add_argument("--note", help="a note kept with the ruling")
    add_json_flag(p)
    p.set_defaults(func=run)


def _plain(text: str) -> str:
    """Candidate text is untrusted: no control characters reach the terminal."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def render_queue(data: dict[str, Any]) -> str:
    """The disagreements awaiting a ruling as a text table."""
    items = data["disagreements"]
    if not items:
        return "no disagreements await a ruling"
    ties = sum(1 for d in items if d["status"] == "unresolved")
    one = len(items) == 1
    lines = [f"{len(items):,} disagreement{'' if one else 's'} await{'s' if one else ''} a ruling "
             f"({ties:,} unresolved tie{'s' if ties != 1 else ''})",
             f"{'rank':>6}  {'key':<16} {'status':<10} votes"]
    for d in items:
        votes = ", ".join(f"{name}: {label}" for name, label in d["votes"].items())
        lines.append(f"{d['rank']:>6}  {d['key'][:16]:<16} {d['status']:<10} {votes}")
        lines.append(f"{'':>8}{_plain(d['text'])[:70]}")
    return "\n".join(lines)


def render_ruling(data: dict[str, Any]) -> str:
    """One line saying what was ruled, by whom, and what the votes were."""
    votes = ", ".join(f"{name}: {label}" for name, label in data["votes"].items())
    return (f"{data['key']}: final label {data['final']!r} (ruled by {data['annotator']}; "
            f"votes were {votes})")


def run(args: argparse.Namespace) -> int:
    """Run ``triage adjudicate`` with the parsed arguments; returns the exit code."""
    from triage.project import open_project
    from triage.project.adjudication import adjudicate, candidate_id_of, disagreements

    ruling = [args.key, args.label, args.annotator]
    if any(v is not None for v in ruling):
        if any(v is None for v in ruling):
            raise TriageError("a ruling needs --key, --label and --annotator together")
        if args.list:
            raise TriageError("--list cannot be combined with a ruling")
    with open_project(args.project) as project:
        if args.key is None:
            queue = {"disagreements": [asdict(d) for d in disagreements(project)]}
            return emit(args, queue, render_queue)
        candidate_id = candidate_id_of(project, args.key)
        session = project.start_session(args.annotator)
        try:
            final = adjudicate(project, session, candidate_id, args.label, note=args.note)
        finally:
            project.end_session(session)
        data = {"key": args.key, "candidate_id": candidate_id, "final": final.value,
                "status": final.status, "adjudicated": final.adjudicated,
                "votes": dict(sorted(final.votes.items())), "annotator": session.annotator}
        return emit(args, data, render_ruling)
