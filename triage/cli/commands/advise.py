"""``triage advise PROJECT``: continue, stop or pause — with every rule's reason and numbers."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from triage.cli.commands._common import add_json_flag, emit


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage advise`` to the command line."""
    p = sub.add_parser("advise", help="should annotation continue? budget, marginal value, "
                       "recall bound, knee and reliability rules")
    p.add_argument("project", type=Path)
    add_json_flag(p)
    p.set_defaults(func=run)


def render(data: dict[str, Any]) -> str:
    """The decision, every rule's verdict and the recall estimate as text."""
    lines = [data.get("headline") or data["decision"], ""]
    for reason in data["reasons"]:
        lines.append(f"{reason['rule']:<15} {reason['verdict']:<9} {reason['detail']}")
    rec = data["estimated_recall"]
    if rec and rec.get("point") is not None:
        lo = "n/a" if rec.get("lower") is None else f"{rec['lower']:.3f}"
        lines += ["", f"estimated recall {rec['point']:.3f} (lower bound {lo}; {rec['method']})"]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``triage advise`` with the parsed arguments; returns the exit code."""
    from triage.project import open_project
    from triage.project.advice import project_advice
    from triage.stats.stopping import advice_to_json

    with open_project(args.project) as project:
        data = advice_to_json(project_advice(project))
    return emit(args, data, render)
