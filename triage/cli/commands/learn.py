"""``triage learn PROJECT``: fit the cal ranking on the labels now and store the snapshot.

The lead's machine (or one designated process) runs it for a team: the snapshot goes to
the server like an imported model, and every desk serves its order. ``--verify`` refits
every stored snapshot from the labels it names and says whether each comes out the same.
"""

from __future__ import annotations

import argparse
from typing import Any

from triage.cli.commands._common import add_json_flag, emit
from triage.project.files import project_location


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage learn`` to the command line."""
    p = sub.add_parser("learn", help="fit the cal ranking on the labels now and store it for "
                       "every desk (or --verify the stored snapshots)")
    p.add_argument("project", type=project_location)
    p.add_argument("--if-due", action="store_true",
                   help="fit only when enough labels came in since the last snapshot")
    p.add_argument("--verify", action="store_true",
                   help="refit every stored snapshot from its labels and compare")
    add_json_flag(p)
    p.set_defaults(func=run)


def render(data: dict[str, Any]) -> str:
    """One line per snapshot checked, or the snapshot stored."""
    if "verified" in data:
        lines = [f"snapshot {v['id']}: {v['labels_used']} labels, "
                 f"{'replays exactly' if v['same'] else 'DIFFERS'}" for v in data["verified"]]
        return "\n".join(lines) or "no cal snapshots stored yet"
    if data["stored"] is None:
        return data["why"]
    s = data["stored"]
    note = ("" if s["features"] == "text+scores" else
            "; the pool has no text, so it learned from the imported scores only")
    return (f"stored cal snapshot {s['id']}: learned from {s['labels_used']} labels "
            f"(up to label event {s['last_label_id']}){note}")


def run(args: argparse.Namespace) -> int:
    """Run ``triage learn`` with the parsed arguments; returns the exit code."""
    from triage.project import open_project
    from triage.project.cal import up_to_date, verify_snapshots

    with open_project(args.project) as project:
        if args.verify:
            data: dict[str, Any] = {"verified": verify_snapshots(project.state.db,
                                                                 project.settings)}
            return emit(args, data, render)
        if up_to_date(project.state.db, project.settings):
            data = {"stored": None, "why": "up to date: no labels came in since the newest "
                    "snapshot, so nothing was stored"}
            return emit(args, data, render)
        snap = project.train_cal(force=not args.if_due)
        stored = None
        if snap is not None:
            stored = {"id": snap.id, "labels_used": snap.labels_used,
                      "last_label_id": snap.last_label_id, "features": snap.features}
        why = ("not due: fewer new labels than the next fit needs" if args.if_due else
               "nothing to learn yet: it needs a positive and a negative label")
        data = {"stored": stored, "why": None if stored else why}
    return emit(args, data, render)
