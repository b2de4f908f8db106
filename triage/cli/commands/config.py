"""``triage config PROJECT [--budget 20 ...]``: show or change a project's settings."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict

from triage.cli.commands._common import add_json_flag, emit
from triage.cli.commands._project_args import add_settings_args, settings_changes
from triage.project.files import project_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage config`` to the command line."""
    p = sub.add_parser("config", help="show or change project settings (label scheme, prices, ...)")
    p.add_argument("project", type=project_location)
    add_settings_args(p)
    p.add_argument("--show-score", choices=["yes", "no"], help="show the model score on the desk")
    p.add_argument("--public-fields", metavar="COL,COL",
                   help="the unmapped columns annotators see under the text, comma-separated "
                   "('' for none; 'default' for every column that is not a number)")
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run ``triage config`` with the parsed arguments; returns the exit code."""
    from triage.project import open_project

    changes = settings_changes(args)
    if args.show_score:
        changes["show_score"] = args.show_score == "yes"
    if args.public_fields is not None:
        text = args.public_fields.strip()
        changes["public_fields"] = (None if text == "default" else
                                    tuple(f.strip() for f in text.split(",") if f.strip()))
    with open_project(args.project) as project:
        if changes.get("queue_mode") == "bandit" and project.settings.queue_mode == "pets":
            del changes["queue_mode"]   # --learn yes: pets is a bandit already
        settings = project.update_settings(**changes) if changes else project.settings
    data = asdict(settings)
    return emit(args, data, lambda d: "\n".join(f"{k}: {json.dumps(v)}" for k, v in d.items()))
