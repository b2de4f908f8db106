"""``triage backup PROJECT [DEST]``: a consistent copy of a project, even while desks label."""

from __future__ import annotations

import argparse
from typing import Any

from triage.cli.commands._common import add_json_flag, emit


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``triage backup`` to the command line."""
    p = sub.add_parser("backup", help="copy a project safely, even while desks label it")
    p.add_argument("project", help="the project file")
    p.add_argument("dest", nargs="?", default=None,
                   help="where the copy goes (a file or a folder); default PROJECT.backup")
    add_json_flag(p)
    p.set_defaults(func=run)


def _text(data: dict[str, Any]) -> str:
    return f"{data['project']}: copied to {data['backup']} ({data['bytes']:,} bytes)"


def run(args: argparse.Namespace) -> int:
    """Copy the project with SQLite's online backup; exit 0 when the copy is whole."""
    from triage.base.errors import TriageError
    from triage.project.checkup import backup_project
    from triage.store.pg.url import is_server_url

    if is_server_url(args.project):
        raise TriageError("a team project lives on its server: back the server up there "
                          "(pg_dump), or copy it into a file with `triage pull URL FILE`")
    target = backup_project(args.project, args.dest)
    return emit(args, {"project": args.project, "backup": str(target),
                       "bytes": target.stat().st_size}, _text)
