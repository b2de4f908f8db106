"""``triage advise PROJECT``: continue, stop or pause — with every rule's reason and numbers.

``--certify-now`` starts a one-off certification sample (its cost is stated first; the desks
serve it blind); ``--cancel-certification`` ends a running one where it stands.
"""

from __future__ import annotations

import argparse
from typing import Any

from triage.cli.commands._common import add_json_flag, emit
from triage.project.files import project_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage advise`` to the command line."""
    p = sub.add_parser("advise", help="should annotation continue? budget, marginal value, "
                       "recall estimate and certificate, knee, Quant and reliability rules")
    p.add_argument("project", type=project_location)
    group = p.add_mutually_exclusive_group()
    group.add_argument("--certify-now", action="store_true",
                       help="start a random certification sample of the unlabelled remainder")
    group.add_argument("--cancel-certification", action="store_true",
                       help="end a running certification sample where it stands")
    add_json_flag(p)
    p.set_defaults(func=run)


def render(data: dict[str, Any]) -> str:
    """The advice as text: the same wording as the banner and the Advice tab."""
    from triage.views.advice import advice_lines, summary_lines

    lines = advice_lines(data)
    out = [lines.headline or lines.decision, ""]
    for rule, verdict, detail in lines.rules:
        out.append(f"{rule:<15} {verdict:<9} {detail}")
    out.append("")
    out += summary_lines(lines)
    if any(r.get("validity") == "heuristic" and r.get("rule") != "knee"
           for r in data.get("reasons", [])):
        out.append(str(data.get("validity", "")))   # a ranking that learns: which rules hold
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    """Run ``triage advise`` with the parsed arguments; returns the exit code."""
    from triage.project import open_project
    from triage.project.advice import advice_state
    from triage.project.certify import cancel_certification, start_certification

    with open_project(args.project) as project:
        if args.certify_now:
            plan = (advice_state(project).advice.get("certification") or {}).get("plan") or {}
            start_certification(project, planned=plan.get("items"))
        elif args.cancel_certification:
            cancel_certification(project)
        data = advice_state(project).to_json()
    from triage.views.rule_words import worded

    return emit(args, worded(data), render)
